import type { Argv } from 'yargs';
import { SCOPES, type Scope } from '../../document/contract.js';
import { printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface WatchArgs extends GlobalArgs {
  scope?: Scope[];
  debounce?: number;
}

/** `vault watch`: keep the search index fresh while files change; one line per change. */
export const watchCommand = (ctx: CliContext) => ({
  command: 'watch',
  describe: 'keep the search index fresh while memory files change (Ctrl-C to stop)',
  builder: (y: Argv) =>
    y
      .option('scope', { type: 'string', array: true, choices: SCOPES, describe: 'scopes to watch (default project and team)' })
      .option('debounce', { type: 'number', default: 200, describe: 'milliseconds to wait for changes to settle' }),
  handler: (argv: WatchArgs) =>
    runCommand(ctx, argv, async () => {
      const [{ watch }, { refreshIndex }, { existsSync }, { relative, sep }] = await Promise.all([
        import('chokidar'),
        import('../../search/index/index-status.js'),
        import('node:fs'),
        import('node:path'),
      ]);
      const roots = await rootsFor(ctx, argv);
      const scopes = argv.scope?.length ? [...new Set(argv.scope)] : (['project', 'team'] as Scope[]);
      const say = (obj: Record<string, unknown>, text: string) => (argv.json ? ctx.io.stdout(`${JSON.stringify(obj)}\n`) : printText(ctx, text));
      const first = refreshIndex(roots, { scopes });
      for (const r of first)
        say({ event: 'ready', scope: r.scope, action: r.action }, `ready ${r.scope}: index ${r.action === 'fresh' ? 'up to date' : r.action}`);
      const dirs = scopes.map((s) => ({ scope: s, dir: roots[s] })).filter((d) => existsSync(d.dir));
      const pending = new Map<string, { scope: Scope; event: string }>();
      let timer: NodeJS.Timeout | undefined;
      const flush = () => {
        timer = undefined;
        const batch = [...pending.entries()];
        pending.clear();
        const touched = [...new Set(batch.map(([, v]) => v.scope))];
        try {
          const reports = refreshIndex(roots, { scopes: touched });
          for (const [path, v] of batch) say({ event: v.event, path, scope: v.scope }, `${v.event.padEnd(7)} ${path}`);
          for (const r of reports)
            if (r.action === 'rebuilt') say({ event: 'rebuilt', scope: r.scope, reason: r.reason }, `rebuilt ${r.scope} index (${r.reason})`);
        } catch (err) {
          ctx.io.stderr(`error: index refresh failed: ${(err as Error).message}\n`);
        }
      };
      const watcher = watch(
        dirs.map((d) => d.dir),
        {
          ignoreInitial: true,
          followSymlinks: false,
          // hidden entries below a scope folder (.index/, .obsidian/, editor temp files) are never memories
          ignored: (p: string) => {
            const d = dirs.find((x) => p.startsWith(x.dir + sep));
            return (
              d !== undefined &&
              relative(d.dir, p)
                .split(sep)
                .some((part) => part.startsWith('.'))
            );
          },
        },
      );
      const onEvent = (event: string) => (abs: string) => {
        if (!abs.endsWith('.md')) return;
        const d = dirs.find((x) => abs.startsWith(x.dir + sep));
        if (!d) return;
        const path = `${d.scope}/${relative(d.dir, abs).split(sep).join('/')}`;
        pending.set(path, { scope: d.scope, event: event === 'add' ? 'added' : event === 'unlink' ? 'removed' : 'changed' });
        if (timer) clearTimeout(timer);
        timer = setTimeout(flush, Math.max(0, argv.debounce ?? 200));
      };
      watcher.on('add', onEvent('add')).on('change', onEvent('change')).on('unlink', onEvent('unlink'));
      watcher.on('error', (err: unknown) => ctx.io.stderr(`warning: watch error: ${(err as Error).message}\n`));
      await new Promise<void>((resolve) => watcher.on('ready', () => resolve()));
      say(
        { event: 'watching', scopes: dirs.map((d) => d.scope) },
        `watching ${dirs.map((d) => d.scope).join(', ') || 'nothing (no scope folder exists; run vault init)'}`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      if (timer) {
        clearTimeout(timer);
        flush();
      }
      await watcher.close();
    }),
});
