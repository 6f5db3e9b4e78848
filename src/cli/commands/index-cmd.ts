import type { Argv } from 'yargs';
import { SCOPES, type Scope } from '../../document/contract.js';
import { printJson, printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface IndexArgs extends GlobalArgs {
  rebuild?: boolean;
  scope?: Scope[];
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

/** `vault index [--rebuild]`: bring the search index up to date (or rebuild it) and show its state. */
export const indexCommand = (ctx: CliContext) => ({
  command: 'index',
  describe: 'refresh the search index (only changed files) and show its state; --rebuild builds it from scratch',
  builder: (y: Argv) =>
    y
      .option('rebuild', { type: 'boolean', describe: 'rebuild from the Markdown files (a progress bar appears on a terminal when it takes over a second)' })
      .option('scope', { type: 'string', array: true, choices: SCOPES, describe: 'scopes (default project and team)' }),
  handler: (argv: IndexArgs) =>
    runCommand(ctx, argv, async () => {
      const { refreshIndex, rebuildIndex, indexStatus } = await import('../../search/index/index-status.js');
      const roots = await rootsFor(ctx, argv);
      const scopes = argv.scope?.length ? [...new Set(argv.scope)] : (['project', 'team'] as Scope[]);
      if (scopes.some((s) => s !== 'user')) {
        const { assertVault } = await import('../../store/roots.js');
        assertVault(roots, `index the ${scopes.filter((s) => s !== 'user').join(' and ')} scope${scopes.filter((s) => s !== 'user').length > 1 ? 's' : ''}`);
      }
      let bar:
        | {
            start(total: number, value: number, payload?: object): void;
            update(value: number, payload?: object): void;
            setTotal(t: number): void;
            stop(): void;
          }
        | undefined;
      const started = performance.now();
      let progress: ((scope: Scope, done: number, total: number) => void) | undefined;
      if (argv.rebuild && ctx.io.stdoutIsTTY && !argv.json) {
        const { default: cliProgress } = await import('cli-progress');
        progress = (scope, done, total) => {
          if (!bar && performance.now() - started > 1000 && done < total) {
            bar = new cliProgress.SingleBar(
              { format: 'indexing {scope} [{bar}] {value}/{total} files', stream: process.stderr, hideCursor: true },
              cliProgress.Presets.shades_classic,
            );
            bar.start(total, done, { scope });
          }
          bar?.setTotal(total);
          bar?.update(done, { scope });
        };
      }
      const actions = argv.rebuild ? rebuildIndex(roots, { scopes, onProgress: progress }) : refreshIndex(roots, { scopes });
      bar?.stop();
      const status = indexStatus(roots, scopes);
      const ms = Math.round(performance.now() - started);
      if (argv.json) {
        printJson(ctx, { ...status, actions, ms });
        return;
      }
      for (const s of status.scopes) {
        const a = actions.find((x) => x.scope === s.scope);
        const did = a
          ? a.action === 'fresh'
            ? 'up to date'
            : a.action === 'rebuilt'
              ? `rebuilt (${a.reason})`
              : `refreshed: ${a.added} added, ${a.changed} changed, ${a.removed} removed`
          : '';
        printText(
          ctx,
          `${s.scope.padEnd(8)} ${s.documents} ${s.documents === 1 ? 'memory' : 'memories'}, ${s.invalid} invalid, ${formatBytes(s.bytes)}, ${did}${a && !a.persisted ? ' (index folder not writable; kept in memory)' : ''}`,
        );
        printText(ctx, `         ${s.location}`);
      }
      printText(ctx, `last refresh ${status.lastRefresh ?? 'never'} · ${ms} ms`);
    }),
});
