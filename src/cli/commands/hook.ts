import type { Argv } from 'yargs';
import type { CliContext, GlobalArgs } from '../command-context.js';

interface HookArgs extends GlobalArgs {
  event: string;
  harness?: string;
}

/**
 * `vault hook <event>`: run one lifecycle hook with the harness's JSON payload on stdin.
 * bin/vault.js normally takes a fast path straight to src/hooks/hook-main.ts; this module is
 * the same runner reached through yargs (e.g. from `main()` in-process), and documents the flags.
 */
export const hookCommand = (ctx: CliContext) => ({
  command: 'hook <event>',
  describe: 'run a lifecycle hook (session-start, stop, session-end, pre-compact); always exits 0',
  builder: (y: Argv) =>
    y
      .positional('event', { type: 'string', describe: 'session-start | stop | session-end | pre-compact (or the harness name: SessionStart, Stop, ...)' })
      .option('harness', { type: 'string', describe: 'claude-code (default), codex or gemini-cli (aliases such as claude, gemini resolve)' })
      .epilog('Reads the JSON payload on stdin (at most 1 MiB), prints nothing or one JSON document. Kill switches: see docs/hooks.md.'),
  handler: async (argv: HookArgs) => {
    const { runHookCommand } = await import('../../hooks/hook-main.js');
    ctx.exitCode = await runHookCommand(String(argv.event), argv.harness, (t) => ctx.io.stdout(t), ctx.io.runtime);
  },
});
