import type { Argv } from 'yargs';
import { SCOPES, type Scope } from '../../document/contract.js';
import { EXIT } from '../../errors.js';
import { printJson, printText, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';

interface RetireArgs extends GlobalArgs {
  id: string;
  'superseded-by'?: string;
  rejected?: boolean;
  reason?: string;
  scope?: Scope[];
}

/** `vault retire ID (--superseded-by NEW_ID | --rejected) [--reason TEXT]`: the one sanctioned edit of a memory file. */
export const retireCommand = (ctx: CliContext) => ({
  command: 'retire <id>',
  describe:
    'retire a memory: set its status to superseded or rejected (the one sanctioned edit of an existing memory; only the status and updated_at lines change)',
  builder: (y: Argv) =>
    y
      .positional('id', { type: 'string', describe: 'id of the active memory to retire (its file must be in canonical form: see vault fmt)' })
      .option('superseded-by', {
        type: 'string',
        requiresArg: true,
        describe: 'id of the memory that replaces it; it must exist and link to ID (vault save --link ID ...)',
      })
      .option('rejected', { type: 'boolean', describe: 'retire it as rejected (no successor)' })
      .option('reason', {
        type: 'string',
        requiresArg: true,
        describe: 'why: saved as a new memory linking to ID (a decision with --superseded-by, a lesson with --rejected); the old body is never edited',
      })
      .option('scope', { type: 'string', array: true, choices: SCOPES, describe: 'scopes to look the memories up in (default project and team)' })
      .example('$0 retire mem_20260101_aaaaaaaaaaaaaaaaaaaa --superseded-by mem_20260301_bbbbbbbbbbbbbbbbbbbb', 'a newer decision replaces it')
      .example('$0 retire mem_20260101_aaaaaaaaaaaaaaaaaaaa --rejected --reason "the benchmark did not hold up"', 'it turned out wrong')
      .epilog('Every other memory file is create-only; retire is the one sanctioned edit. It is not available through MCP or hooks.'),
  handler: (argv: RetireArgs) =>
    runCommand(ctx, argv, async () => {
      for (const flag of ['superseded-by', 'reason'] as const) if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
      const supersededBy = argv['superseded-by'] === undefined ? undefined : String(argv['superseded-by']).trim();
      if (Boolean(supersededBy) === Boolean(argv.rejected))
        usageError('choose exactly one of --superseded-by NEW_ID and --rejected', 'e.g. vault retire OLD_ID --superseded-by NEW_ID');
      if (argv.reason !== undefined && String(argv.reason).trim() === '') usageError('--reason needs a text');
      const [{ retireMemory }, { sourceHarnessFromEnv }] = await Promise.all([import('../../operations/retire.js'), import('../../operations/save.js')]);
      const roots = await rootsFor(ctx, argv);
      const result = await retireMemory(
        roots,
        {
          id: String(argv.id).trim(),
          supersededBy,
          rejected: Boolean(argv.rejected),
          reason: argv.reason,
          sourceHarness: sourceHarnessFromEnv(ctx.io.runtime.env),
        },
        ctx.io.runtime,
        { scopes: argv.scope },
      );
      const rel = (abs: string) => (abs.startsWith(`${roots.worktreeRoot}/`) ? abs.slice(roots.worktreeRoot.length + 1) : abs);
      if (argv.json) {
        printJson(ctx, result);
        return EXIT.ok;
      }
      printText(ctx, `Retired ${result.id} as ${result.status}${result.supersededBy ? ` by ${result.supersededBy}` : ''}`);
      printText(ctx, `  path: ${result.path}`);
      if (result.reason) printText(ctx, `  reason saved as ${result.reason.memory.kind} ${result.reason.memory.id} (${result.reason.path})`);
      if (result.scope === 'team') {
        const files = [result.absPath, ...(result.reason ? [result.reason.absPath] : [])].map(rel);
        printText(ctx, `  commit it: git add ${files.join(' ')}`);
      }
      return EXIT.ok;
    }),
});
