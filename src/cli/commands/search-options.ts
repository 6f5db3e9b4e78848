/**
 * The search options of `vault search`'s flags: one mapping for the lean path (search-run.ts) and
 * the served fast path (served-main.ts, its own small bundle: this module imports no code).
 */
import type { SearchOptions } from '../../search/query/search-memories.js';
import type { SearchArgs } from './search-run.js';

/**
 * The `SearchOptions` of parsed `vault search` flags (the limit already checked by the caller).
 *
 * @param fullCheckIntervalS seconds between full checks (ECC_INDEX_FULL_CHECK_S, read by the caller)
 */
export function searchOptionsOf(args: SearchArgs, fullCheckIntervalS: number): SearchOptions {
  return {
    scopes: args.scope?.length ? args.scope : undefined,
    kinds: args.kind,
    tags: args.tag,
    statuses: args.status?.length ? args.status : undefined,
    targetHarness: args['target-harness'],
    sourceHarness: args['source-harness'],
    since: args.since,
    until: args.until,
    limit: args.limit,
    fresh: args.fresh === true,
    fullCheckIntervalS,
  };
}
