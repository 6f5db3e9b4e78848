/**
 * Rule: the search index exists and matches the files. The Markdown files are the source of
 * truth and search rebuilds or refreshes the index by itself, so this is a warning: it says the
 * next search will pay for a rebuild, or that something keeps the index from refreshing.
 *
 * The index belongs to the search module; this rule asks it through `indexStatus(roots)` and is
 * skipped when that module is not available.
 */
import type { DoctorContext } from '../context.js';
import { problem, type Problem } from '../problem.js';

/** What this rule needs from the search module's answer. */
interface IndexStatusLike {
  state?: string;
  status?: string;
  reason?: string;
  path?: string;
  stale?: number | string[];
}

type IndexStatusFn = (roots: DoctorContext['roots'], options?: unknown) => IndexStatusLike | Promise<IndexStatusLike>;

async function loadIndexStatus(): Promise<IndexStatusFn | undefined> {
  const specifier = '../../search/index-status.js';
  try {
    const mod = (await import(specifier)) as { indexStatus?: IndexStatusFn };
    return typeof mod.indexStatus === 'function' ? mod.indexStatus : undefined;
  } catch {
    return undefined;
  }
}

/** Warnings for a missing or stale search index. */
export async function checkIndexFreshness(ctx: DoctorContext): Promise<Problem[]> {
  if (!ctx.checkIndex || ctx.selection) return [];
  const indexStatus = await loadIndexStatus();
  if (!indexStatus) return [];
  let s: IndexStatusLike;
  try {
    s = await indexStatus(ctx.roots);
  } catch {
    return [problem('warning', 'index-stale', '.index', undefined, 'the search index could not be inspected', 'run `vault index --rebuild`')];
  }
  const state = (s.state ?? s.status ?? '').toLowerCase();
  const path = s.path ?? '.index';
  if (state === 'missing' || state === 'absent') {
    if (ctx.scan.entries.length === 0) return [];
    return [problem('warning', 'index-missing', path, undefined, 'the search index has not been built yet; the next search builds it', 'run `vault index` (or any `vault search`)')];
  }
  if (state === 'fresh' || state === 'ok' || state === 'current' || state === '') return [];
  return [problem('warning', 'index-stale', path, undefined, `the search index is ${state}${s.reason ? ` (${s.reason})` : ''}; the next search refreshes it`, 'run `vault index` (or any `vault search`)')];
}
