import type { Argv } from 'yargs';
import type { Scope } from '../../document/contract.js';
import { EXIT } from '../../errors.js';
import { printJson, printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface FmtArgs extends GlobalArgs {
  paths?: string[];
  check?: boolean;
  scope?: Scope[];
}

/** `vault fmt [paths..] [--check]`: restore the canonical form of memory files (never a value). */
export const fmtCommand = (ctx: CliContext) => ({
  command: 'fmt [paths..]',
  describe: 'rewrite non-canonical memory files in canonical form (values never change; invalid files are refused)',
  builder: (y: Argv) =>
    y
      .positional('paths', { type: 'string', array: true, describe: 'files or folders (default: every memory of the project and team scopes)' })
      .option('check', { type: 'boolean', describe: 'write nothing; exit 1 if a file would change' })
      .option('scope', {
        type: 'string',
        array: true,
        choices: ['team', 'project', 'user'],
        describe: 'scopes to format when no paths are given (default project and team)',
      })
      .example('$0 fmt --check', 'in CI: fail when a memory is not canonical')
      .example('$0 fmt team/decisions/mem_x.md', 'fix one file'),
  handler: (argv: FmtArgs) =>
    runCommand(ctx, argv, async () => {
      const [{ fmtMemories }, { displayName }] = await Promise.all([import('../../operations/fmt.js'), import('../../doctor/display-name.js')]);
      const roots = await rootsFor(ctx, argv);
      const check = Boolean(argv.check);
      const result = fmtMemories(roots, (argv.paths ?? []).map(String), ctx.io.runtime, { check, ...(argv.scope?.length ? { scopes: argv.scope } : {}) });
      const c = result.counts;
      if (argv.json) {
        printJson(ctx, { check, ...result });
      } else {
        // A file name that needs cleaning is shown JSON-quoted, escapes visible (never merged with another name).
        for (const f of result.files.map((x) => ({ ...x, path: displayName(x.path) }))) {
          if (f.status === 'formatted') printText(ctx, `formatted     ${f.path} (${f.reasons?.join(', ')})`);
          else if (f.status === 'would-format') printText(ctx, `would format  ${f.path} (${f.reasons?.join(', ')})`);
          else if (f.status === 'refused') printText(ctx, `refused       ${f.path}${f.line ? `:${f.line}` : ''}: ${f.message} [${f.code}]`);
        }
        const changed = check ? `${c['would-format']} would change` : `${c.formatted} formatted`;
        printText(ctx, `${changed}, ${c.unchanged} already canonical${c.refused ? `, ${c.refused} refused` : ''}`);
      }
      if (result.files.some((f) => f.status === 'refused' && f.code === 'not-found')) return EXIT.notFound;
      if (c.refused > 0) return EXIT.invalid;
      if (check && c['would-format'] > 0) return EXIT.findings;
      return EXIT.ok;
    }),
});
