/**
 * The body of `vault search`, free of yargs: shared by the yargs command (commands/search.ts)
 * and the lean start-up path (cli/lean-main.ts), so both print byte-identical output.
 */
import { KINDS, SCOPES, STATUSES, type Kind, type Scope, type Status } from '../../document/contract.js';
import type { SearchOptions, SearchResponse } from '../../search/query/search-memories.js';
import type { VaultRoots } from '../../store/roots.js';
import { printJson, progressStream, rootsFor, usageError, type CliContext, type GlobalArgs } from '../command-context.js';
import { clientIdentity } from '../server-link.js';
import { searchOptionsOf } from './search-options.js';

/** Allowed `--scope` values of `vault search`, in the order the help text lists them. */
export const SEARCH_SCOPE_CHOICES: readonly Scope[] = SCOPES;
/** Allowed `--kind` values (the contract's kinds). */
export const SEARCH_KIND_CHOICES: readonly Kind[] = KINDS;
/** Allowed `--status` values. */
export const SEARCH_STATUS_CHOICES: readonly Status[] = STATUSES;

/**
 * Parsed arguments of `vault search`, shaped as yargs delivers them (kebab-case keys). A
 * single-value flag given twice arrives as an array, which {@link runSearch} refuses.
 */
export interface SearchArgs extends GlobalArgs {
  query?: string[];
  scope?: Scope[];
  kind?: Kind[];
  tag?: string[];
  status?: Status[];
  'target-harness'?: string;
  'source-harness'?: string;
  since?: string;
  until?: string;
  limit?: number;
  fresh?: boolean;
}

/**
 * Runs one search and prints the result: JSON with `--json`, otherwise numbered hits (bold
 * titles and marked terms on a colour terminal) and warnings about invalid files, skipped
 * links and an incomplete read on stderr.
 *
 * @throws VaultError `usage` for a repeated single-value flag or a `--limit` that is not a whole number 1..100;
 *   whatever `searchMemories` throws (invalid filter values, unreadable vault)
 */
export async function runSearch(ctx: CliContext, argv: SearchArgs): Promise<void> {
  for (const flag of ['target-harness', 'source-harness', 'since', 'until', 'limit'] as const) {
    if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
  }
  // one wording and one exit code (usage, 2) for every bad --limit: `abc`, `0`, `1.5`, `101`
  if (argv.limit !== undefined && !(Number.isInteger(argv.limit) && argv.limit >= 1 && argv.limit <= 100))
    usageError('--limit must be a whole number from 1 to 100', 'e.g. --limit 20');
  const { fullCheckIntervalFrom } = await import('../../search/index/index-freshness.js');
  const roots = await rootsFor(ctx, argv);
  const query = (argv.query ?? []).map(String).join(' ');
  const options = searchOptionsOf(argv, fullCheckIntervalFrom(ctx.io.runtime.env.ECC_INDEX_FULL_CHECK_S));
  // the resident server (`vault watch`) answers when one runs for this vault, else the files do
  const { searchThroughServer } = await import('../../search/resident/resident-client.js');
  let response = await searchThroughServer(roots, query, options, clientIdentity(ctx));
  if (!response) {
    const { searchMemories } = await import('../../search/query/search-memories.js');
    const progress = await indexProgress(ctx);
    try {
      response = await searchMemories(roots, query, { ...options, onProgress: progress?.update });
    } finally {
      progress?.stop();
    }
  }
  if (argv.json) {
    printJson(ctx, response);
    return;
  }
  const [{ sanitizeTerminalText: clean }, { searchText, searchWarnings }] = await Promise.all([
    import('../../unicode/terminal-text.js'),
    import('../../search/resident/resident-render.js'),
  ]);
  const env = ctx.io.runtime.env;
  const tty = ctx.io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb';
  const pc = tty ? (await import('picocolors')).default.createColors(true) : undefined;
  ctx.io.stdout(searchText(query, response, pc));
  const warnings = searchWarnings(response);
  if (warnings) ctx.io.stderr(warnings);
  if (response.total === 0) {
    const [{ existsSync }, { NO_VAULT_HINT, noVaultMessage }, { LINKED_FOLDER_HINT, linkedScopeFolder }] = await Promise.all([
      import('node:fs'),
      import('../../store/roots.js'),
      import('../../store/scope-folders.js'),
    ]);
    const linked = roots.located === 'none' ? undefined : (linkedScopeFolder(roots, 'team') ?? linkedScopeFolder(roots, 'project'));
    if (roots.located === 'none')
      ctx.io.stderr(`note: ${clean(noVaultMessage(roots))}
hint: ${NO_VAULT_HINT}
`);
    else if (linked)
      ctx.io.stderr(`note: ${clean(linked)} is a symbolic link, so the vault's project and team scopes were not read\nhint: ${LINKED_FOLDER_HINT}\n`);
    else if (![roots.team, roots.project].some((dir) => existsSync(dir)))
      ctx.io.stderr(`hint: there is no vault here yet (${clean(roots.memoryRoot)}); run \`vault init\` to create it
`);
    const search = async (r: VaultRoots, q: string, o: SearchOptions): Promise<SearchResponse> =>
      (await searchThroughServer(r, q, o, clientIdentity(ctx))) ?? (await import('../../search/query/search-memories.js')).searchMemories(r, q, o);
    for (const hint of await nearMisses(roots, query, options, search))
      ctx.io.stderr(`hint: ${clean(hint)}
`);
  }
}

/** How long an index build runs before its progress is drawn (ms); `ECC_PROGRESS_DELAY_MS` overrides it. */
const PROGRESS_DELAY_MS = 1000;

/**
 * The progress of an index build (the first search over a large vault builds the index from
 * every file), drawn on stderr with cli-progress, and only when stderr is a terminal: once a
 * build has run for a second, a bar `indexing <scope> [...] done/total files` appears, and it
 * is cleared when the search goes on. Nothing is drawn for a fresh index or a short build.
 *
 * @returns undefined when stderr is not a terminal
 */
async function indexProgress(ctx: CliContext): Promise<{ update: (scope: Scope, done: number, total: number) => void; stop: () => void } | undefined> {
  if (!ctx.io.stderrIsTTY) return undefined;
  const override = Number(ctx.io.runtime.env.ECC_PROGRESS_DELAY_MS);
  const delay = Number.isInteger(override) && override >= 0 ? override : PROGRESS_DELAY_MS;
  const started = performance.now();
  let bar:
    | { start(total: number, value: number, payload?: object): void; update(value: number, payload?: object): void; setTotal(t: number): void; stop(): void }
    | undefined;
  let make: (() => typeof bar) | undefined;
  const stream = progressStream(ctx);
  const { default: cliProgress } = await import('cli-progress');
  make = () =>
    new cliProgress.SingleBar(
      {
        format: 'indexing {scope} [{bar}] {value}/{total} files',
        stream,
        hideCursor: false,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
  return {
    update: (scope, done, total) => {
      if (!bar && done < total && performance.now() - started >= delay) {
        bar = make?.();
        bar?.start(total, done, { scope });
      }
      bar?.setTotal(total);
      bar?.update(done, { scope });
    },
    stop: () => {
      bar?.stop();
      make = undefined;
    },
  };
}

/**
 * Why a search found nothing, when a nearby search would have found something: the user scope
 * (searched only when asked) holds matches. Runs only after an empty answer, so a search that
 * finds something pays nothing.
 *
 * @returns hint lines (without `hint: `), possibly none
 */
async function nearMisses(
  roots: VaultRoots,
  query: string,
  options: SearchOptions,
  search: (roots: VaultRoots, query: string, options: SearchOptions) => Promise<SearchResponse>,
): Promise<string[]> {
  const { existsSync } = await import('node:fs');
  const count = async (o: SearchOptions) => {
    try {
      return (await search(roots, query, { ...o, limit: 1 })).total;
    } catch {
      return 0; // a hint never turns an answer into an error
    }
  };
  const hints: string[] = [];
  // (a tag's case never hides a match: searchMemories compares tags lowercased, as tags are saved)
  if (!(options.scopes ?? ['project', 'team']).includes('user') && existsSync(roots.user)) {
    const n = await count({ ...options, scopes: ['user'] });
    if (n > 0) hints.push(`${n} ${n === 1 ? 'memory' : 'memories'} in the user scope would match; add --scope user (user scope is searched only when asked)`);
  }
  return hints;
}
