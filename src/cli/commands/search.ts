import type { Argv } from 'yargs';
import { runCommand, type CliContext } from '../command-context.js';
import { runSearch, SEARCH_KIND_CHOICES, SEARCH_SCOPE_CHOICES, SEARCH_STATUS_CHOICES, type SearchArgs } from './search-run.js';

/** `vault search [query..]`: ranked search over the vault, fresh on every call (body in search-run.ts, shared with the lean path). */
export const searchCommand = (ctx: CliContext) => ({
  command: 'search [query..]',
  describe: 'search memories (any language); an empty query lists the newest first',
  builder: (y: Argv) =>
    y
      .positional('query', { type: 'string', array: true, describe: 'words to look for' })
      .option('scope', {
        type: 'string',
        array: true,
        choices: [...SEARCH_SCOPE_CHOICES],
        describe: 'scopes to search (default project and team; user only when asked)',
      })
      .option('kind', { type: 'string', array: true, choices: [...SEARCH_KIND_CHOICES], describe: 'only these kinds (repeatable)' })
      .option('tag', { type: 'string', array: true, describe: 'only memories with every one of these tags (repeatable)' })
      .option('status', { type: 'string', array: true, choices: [...SEARCH_STATUS_CHOICES], describe: 'only these statuses (default active)' })
      .option('target-harness', { type: 'string', describe: 'only memories meant for this harness (or for all)' })
      .option('source-harness', { type: 'string', describe: 'only memories written by this harness (source_harness; aliases such as claude resolve)' })
      .option('since', { type: 'string', describe: 'updated at or after (YYYY-MM-DD or ISO-8601)' })
      .option('until', { type: 'string', describe: 'updated at or before (YYYY-MM-DD or ISO-8601)' })
      .option('limit', {
        type: 'string',
        // digits only: yargs would read `0x10`, `1e1` and `2.0` as numbers (NaN is refused as not a whole number)
        coerce: (v: unknown) => (Array.isArray(v) ? v : /^\s*\d{1,6}\s*$/.test(String(v)) ? Number(v) : Number.NaN),
        describe: 'results to show, a whole number 1..100 (default 20)',
      })
      .option('fresh', { type: 'boolean', describe: 'check every file before answering, not only the folders (see docs/concepts.md)' })
      .example('$0 search "auth session redis"', 'best matches in project and team')
      .example('$0 search --kind decision --since 2026-07-01', 'recent decisions, newest first')
      .epilog(
        'When stderr is a terminal and building the index from the files (the first search over a large vault) takes ' +
          'longer than a second (ECC_PROGRESS_DELAY_MS), its progress is drawn on stderr and cleared before the results. ' +
          'A search that finds nothing says when the user scope, searched only when asked, would have matched.',
      ),
  handler: (argv: SearchArgs & { _?: unknown[] }) => {
    // words after `--` are query words too (`vault search -- --kind` looks for "--kind"); yargs leaves them in `_` after the command
    const literal = (argv._ ?? []).slice(1).map(String);
    const args: SearchArgs = literal.length ? { ...argv, query: [...(argv.query ?? []), ...literal] } : argv;
    return runCommand(ctx, args, () => runSearch(ctx, args));
  },
});
