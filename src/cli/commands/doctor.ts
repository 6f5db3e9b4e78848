import type { Argv } from 'yargs';
import type { Scope } from '../../document/contract.js';
import { EXIT } from '../../errors.js';
import { printJson, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';

interface DoctorArgs extends GlobalArgs {
  format?: string;
  strict?: boolean;
  changed?: string;
  staged?: boolean;
  scope?: Scope[];
  'index-check'?: boolean;
}

/** `vault doctor`: check the vault, change nothing; exit 1 when errors (or warnings with --strict) are found. */
export const doctorCommand = (ctx: CliContext) => ({
  command: 'doctor',
  describe: 'check the vault without changing anything (exit 1 on errors)',
  builder: (y: Argv) =>
    y
      .option('format', {
        type: 'string',
        choices: ['text', 'json', 'github'],
        describe: 'output: text (default), json (= --json), github (workflow annotations)',
      })
      .option('strict', { type: 'boolean', describe: 'warnings fail too (exit 1)' })
      .option('changed', {
        type: 'string',
        describe: 'check only files changed since the merge base with this git ref (e.g. origin/main); vault-wide checks still see everything',
      })
      .option('staged', { type: 'boolean', describe: 'check only files staged in git (pre-commit)' })
      .option('scope', { type: 'string', array: true, choices: ['team', 'project', 'user'], describe: 'scopes to check (default project and team)' })
      .option('index-check', { type: 'boolean', default: true, describe: 'check that the search index is fresh (--no-index-check skips it)' })
      .example('$0 doctor', 'check the project and team scopes')
      .example('$0 doctor --changed origin/main --format github', 'in CI on a pull request')
      .example('$0 doctor --staged --strict', 'in a pre-commit hook'),
  handler: (argv: DoctorArgs) =>
    runCommand(ctx, argv, async () => {
      if (Array.isArray(argv.changed) || Array.isArray(argv.format)) usageError('--changed and --format may be given only once');
      if (argv.changed !== undefined && argv.staged)
        usageError('choose one of --changed <ref> and --staged', 'use --changed in CI, --staged in a pre-commit hook');
      if (argv.changed !== undefined && String(argv.changed).trim() === '') usageError('--changed needs a git ref, e.g. --changed origin/main');
      const format = argv.json ? 'json' : (argv.format ?? 'text');
      const [{ runDoctor }, { handoffStaleDaysFrom }] = await Promise.all([
        import('../../doctor/run-doctor.js'),
        import('../../doctor/rules/stale-handoff.js'),
      ]);
      const roots = await rootsFor(ctx, argv);
      const report = await runDoctor(roots, {
        ...(argv.scope?.length ? { scopes: argv.scope } : {}),
        strict: Boolean(argv.strict),
        ...(argv.changed !== undefined ? { changed: String(argv.changed) } : {}),
        staged: Boolean(argv.staged),
        checkIndex: argv['index-check'] !== false,
        now: ctx.io.runtime.now(),
        handoffStaleDays: handoffStaleDaysFrom(ctx.io.runtime.env.ECC_HANDOFF_STALE_DAYS),
      });
      if (format === 'json') {
        printJson(ctx, report);
      } else if (format === 'github') {
        const [{ formatGithub }, { repoPathOf }, { sanitizeTerminalText }] = await Promise.all([
          import('../../doctor/report-format.js'),
          import('../../doctor/repo-path.js'),
          import('../../unicode/terminal-text.js'),
        ]);
        const text = formatGithub(report, (p) => repoPathOf(roots, p.path), Boolean(argv.strict));
        // For the Actions runner (not a terminal) the escaped text is exact, so file= names the real
        // file; on a terminal escape sequences are still removed.
        ctx.io.stdout(ctx.io.stdoutIsTTY ? sanitizeTerminalText(text) : text);
      } else {
        const [{ formatText, NO_PAINT }, { sanitizeTerminalText }, { displayName }] = await Promise.all([
          import('../../doctor/report-format.js'),
          import('../../unicode/terminal-text.js'),
          import('../../doctor/display-name.js'),
        ]);
        const env = ctx.io.runtime.env;
        const colour = ctx.io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb';
        const paint = colour ? (await import('picocolors')).default.createColors(true) : NO_PAINT;
        // One problem, one line: a file name with a line break must not forge another line.
        const oneLine = (t: string) => sanitizeTerminalText(t.replace(/\r\n|\r|\n/g, '⏎').replace(/\t/g, ' '));
        // A file name that needed cleaning is shown JSON-quoted, so two names never print the same.
        ctx.io.stdout(formatText(report, paint, oneLine, Boolean(argv.strict), displayName));
      }
      if (roots.located === 'none' && report.scopes.some((s) => s !== 'user') && format !== 'json') {
        const { NO_VAULT_HINT, noVaultMessage } = await import('../../store/roots.js');
        ctx.io.stderr(`note: ${noVaultMessage(roots)}: the project and team scopes are empty\nhint: ${NO_VAULT_HINT}\n`);
      }
      return report.ok ? EXIT.ok : EXIT.findings;
    }),
});
