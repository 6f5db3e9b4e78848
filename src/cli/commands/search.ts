import type { Argv } from 'yargs';
import type { Kind, Scope, Status } from '../../document/contract.js';
import { printJson, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../context.js';

interface SearchArgs extends GlobalArgs {
  query?: string[];
  scope?: Scope[];
  kind?: Kind[];
  tag?: string[];
  status?: Status[];
  'target-harness'?: string;
  since?: string;
  until?: string;
  limit?: number;
}

/** `vault search [query..]`: ranked search over the vault, fresh on every call. */
export const searchCommand = (ctx: CliContext) => ({
  command: 'search [query..]',
  describe: 'search memories (any language); an empty query lists the newest first',
  builder: (y: Argv) =>
    y
      .positional('query', { type: 'string', array: true, describe: 'words to look for' })
      .option('scope', { type: 'string', array: true, choices: ['project', 'team', 'user'], describe: 'scopes to search (default project and team; user only when asked)' })
      .option('kind', { type: 'string', array: true, choices: ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'], describe: 'only these kinds (repeatable)' })
      .option('tag', { type: 'string', array: true, describe: 'only memories with every one of these tags (repeatable)' })
      .option('status', { type: 'string', array: true, choices: ['active', 'rejected', 'superseded'], describe: 'only these statuses (default active)' })
      .option('target-harness', { type: 'string', describe: 'only memories meant for this harness (or for all)' })
      .option('since', { type: 'string', describe: 'updated at or after (YYYY-MM-DD or ISO-8601)' })
      .option('until', { type: 'string', describe: 'updated at or before (YYYY-MM-DD or ISO-8601)' })
      .option('limit', { type: 'number', describe: 'results to show, 1..100 (default 20)' })
      .example('$0 search "auth session redis"', 'best matches in project and team')
      .example('$0 search --kind decision --since 2026-07-01', 'recent decisions, newest first'),
  handler: (argv: SearchArgs) =>
    runCommand(ctx, argv, async () => {
      const { usageError } = await import('../context.js');
      for (const flag of ['target-harness', 'since', 'until', 'limit'] as const) {
        if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
      }
      if (argv.limit !== undefined && Number.isNaN(argv.limit)) usageError('--limit must be a number from 1 to 100');
      const { searchMemories } = await import('../../search/search-memories.js');
      const roots = await rootsFor(ctx, argv);
      const query = (argv.query ?? []).map(String).join(' ');
      const response = await searchMemories(roots, query, {
        scopes: argv.scope?.length ? argv.scope : undefined,
        kinds: argv.kind,
        tags: argv.tag,
        statuses: argv.status?.length ? argv.status : undefined,
        targetHarness: argv['target-harness'],
        since: argv.since,
        until: argv.until,
        limit: argv.limit,
      });
      if (argv.json) {
        printJson(ctx, response);
        return;
      }
      const [{ sanitizeTerminalText: clean }, { markTerms }, { tokenizeQuery }] = await Promise.all([import('../terminal-text.js'), import('../../search/excerpt.js'), import('../../search/tokenizer.js')]);
      const env = ctx.io.runtime.env;
      const tty = ctx.io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb';
      const pc = tty ? (await import('picocolors')).default.createColors(true) : undefined;
      const terms = tokenizeQuery(query);
      const lines: string[] = [];
      response.results.forEach((h, i) => {
        const title = clean(h.title);
        const excerpt = clean(h.excerpt);
        lines.push(`${i + 1}. ${pc ? pc.bold(title) : title}`);
        const meta = [h.id, h.kind, h.scope, h.status !== 'active' ? h.status : '', h.updatedAt.slice(0, 10), query.trim() ? `score ${h.score}` : '', h.tags.length ? h.tags.map((t) => `#${t}`).join(' ') : ''].filter(Boolean).join(' · ');
        lines.push(`   ${pc ? pc.dim(clean(meta)) : clean(meta)}`);
        lines.push(`   ${clean(h.path)}`);
        lines.push(`   ${pc ? markTerms(excerpt, terms, (w) => pc.bold(pc.yellow(w))) : excerpt}`);
      });
      const shown = response.results.length;
      lines.push(shown === 0 ? (query.trim() ? `no memories match "${clean(query)}"` : 'no memories') : `${shown} of ${response.total} ${response.total === 1 ? 'memory' : 'memories'}`);
      ctx.io.stdout(`${lines.join('\n')}\n`);
      const d = response.diagnostics;
      if (d.invalidFiles.length) ctx.io.stderr(`warning: ${d.invalidFiles.length} invalid file(s) not searched (first: ${clean(d.invalidFiles[0]!.path)}: ${clean(d.invalidFiles[0]!.message)}); run \`vault doctor\`\n`);
      if (d.skippedSymlinks.length) ctx.io.stderr(`warning: ${d.skippedSymlinks.length} symbolic link(s) skipped\n`);
      if (!d.complete) ctx.io.stderr(`warning: the vault could not be read completely: ${clean(d.incompleteReasons.join('; '))}\n`);
    }),
});
