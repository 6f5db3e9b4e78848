import type { Argv } from 'yargs';
import { SCOPES, type Scope } from '../../document/contract.js';
import { VaultError } from '../../errors.js';
import { printJson, printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';
import { clientIdentity } from '../server-link.js';

/** Arguments of `vault watch`, as yargs delivers them. */
export interface WatchArgs extends GlobalArgs {
  scope?: Scope[];
  debounce?: number;
  detach?: boolean;
  stop?: boolean;
  status?: boolean;
}

/** How long `--detach` waits for the new server to answer, and `--stop` for it to go (ms). */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * `vault watch`: the vault's resident index server. In the foreground it prints one line per
 * change until Ctrl-C; `--detach` starts it in the background and returns once it answers;
 * `--stop` and `--status` talk to a running one.
 */
export const watchCommand = (ctx: CliContext) => ({
  command: 'watch',
  describe: 'run the index server: keep the index in memory and fresh while memory files change (Ctrl-C to stop)',
  builder: (y: Argv) =>
    y
      .option('scope', { type: 'string', array: true, choices: SCOPES, describe: 'scopes to keep and watch (default project, team and user)' })
      .option('debounce', { type: 'number', default: 200, describe: 'milliseconds to wait for changes to settle before refreshing the index on disk' })
      .option('detach', { type: 'boolean', describe: 'start the server in the background and return once it answers' })
      .option('stop', { type: 'boolean', describe: "stop this vault's server" })
      .option('status', { type: 'boolean', describe: "show this vault's server: pid, uptime, memories, watcher mode" })
      .conflicts('stop', ['status', 'detach'])
      .conflicts('status', 'detach'),
  handler: (argv: WatchArgs) => runCommand(ctx, argv, () => runWatch(ctx, argv)),
});

/**
 * `vault watch` for parsed arguments: --status, --stop, --detach, or the foreground server.
 *
 * @throws VaultError as the command reports it (no vault here, a server that did not start, ...)
 */
export async function runWatch(ctx: CliContext, argv: WatchArgs): Promise<number | void> {
  const roots = await rootsFor(ctx, argv);
  // no vault here: refuse before anything is created (the server's folder is <vault>/.index)
  const { assertVault } = await import('../../store/roots.js');
  assertVault(roots, argv.status ? "show an index server's status" : argv.stop ? 'stop an index server' : 'run the index server');
  const who = clientIdentity(ctx);
  const { askServer, foreignListenerError, serverPresence } = await import('../../search/resident/resident-client.js');
  const status = async () => {
    const p = await serverPresence(roots, who, 5000);
    return p.kind === 'ours' ? p.status : undefined;
  };
  if (argv.status) {
    const s = await status();
    if (argv.json) printJson(ctx, s ?? { running: false, vault: roots.memoryRoot });
    else if (!s) printText(ctx, `no index server runs for ${roots.memoryRoot}; searches read the files (start one with \`vault watch --detach\`)`);
    else {
      const w = s.watcher as { mode: string; folders?: number; reason?: string; blind?: string[]; absent?: string[]; fullCheckEveryS?: number };
      const every =
        w.fullCheckEveryS === 0
          ? '; every request checks the files in full (ECC_INDEX_FULL_CHECK_S=0)'
          : w.fullCheckEveryS
            ? `; full check every ${w.fullCheckEveryS} s`
            : '';
      const memories = Object.entries(s.memories as Record<string, number>)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      printText(ctx, `index server pid ${s.pid} for ${s.vault}, up ${s.uptimeS} s (ready in ${s.readyMs} ms)`);
      printText(ctx, `memories: ${memories || 'none kept yet'}`);
      printText(
        ctx,
        w.mode === 'fs.watch'
          ? `watcher: fs.watch on ${w.folders} folder(s)${w.blind?.length ? `; checked in full on every request: ${w.blind.join(', ')}` : ''}${w.absent?.length ? `; no folder yet: ${w.absent.join(', ')}` : ''}${every}`
          : `watcher: failed (${w.reason}); every request checks the files in full`,
      );
      printText(ctx, `requests: ${s.requests}, full checks: ${s.fullChecks}, resident memory: ${s.memoryMB} MB`);
    }
    return;
  }
  if (argv.stop) {
    const r = await askServer(roots, { op: 'stop' }, who, 5000);
    const stopped = r?.ok ? (r.result as { stopped?: unknown } | undefined)?.stopped : undefined;
    // an answer without a pid is not our server's (a foreign or broken listener): nothing was stopped
    if (!r?.ok || !Number.isSafeInteger(stopped) || (stopped as number) <= 0) {
      if (argv.json) printJson(ctx, { stopped: false, running: false });
      else printText(ctx, `no index server runs for ${roots.memoryRoot}`);
      return;
    }
    const pid = stopped as number;
    const until = Date.now() + STOP_TIMEOUT_MS;
    while (ctx.io.runtime.isProcessAlive(pid) && Date.now() < until) await sleep(20);
    if (argv.json) printJson(ctx, { stopped: true, pid });
    else printText(ctx, `stopped the index server (pid ${pid})`);
    return;
  }
  if (argv.detach) {
    const presence = await serverPresence(roots, who, 5000);
    if (presence.kind === 'foreign') throw foreignListenerError(presence.socket);
    const running = presence.kind === 'ours' ? presence.status : undefined;
    if (running) {
      if (argv.json) printJson(ctx, { started: false, ...running });
      else printText(ctx, `an index server already runs for this vault (pid ${running.pid})`);
      return;
    }
    const [{ spawn }, { openSync, closeSync }, { join }, { serverEntry }, { serverDirFor }] = await Promise.all([
      import('node:child_process'),
      import('node:fs'),
      import('node:path'),
      import('../server-entry.js'),
      import('../../search/resident/resident-protocol.js'),
    ]);
    const { mkdirSync } = await import('node:fs');
    const dir = serverDirFor(roots);
    mkdirSync(dir, { recursive: true });
    const log = openSync(join(dir, 'server.log'), 'a', 0o600);
    // V8 tuned for a small footprint: a resident process that reopens its index after changes
    // otherwise keeps the garbage's high-water mark (10k memories, 40 saves and 80 searches: RSS
    // 121 -> 87 MB, peak 136 -> 91 MB; no search latency difference measurable). That mode also
    // shrinks the young generation to 1 MB, so opening 100,000 memories spent ~1 s in scavenges:
    // 8 MB semi-spaces measured at 100k ready 3.8 -> 2.3 s, RSS after 30 requests 156 -> 159 MB,
    // peak 188 -> 167 MB; at 10k no difference beyond the noise (both ~0.5 s, ~80 MB)
    // the foreground server's own entry (cli/watch-server.ts, bundled), not bin/vault.js: no yargs to load
    const entry = serverEntry();
    const serverArgs = {
      json: true,
      debounce: argv.debounce ?? 200,
      ...(argv.root !== undefined ? { root: argv.root } : {}),
      ...(argv['user-root'] !== undefined ? { 'user-root': argv['user-root'] } : {}),
      ...(argv.scope?.length ? { scope: argv.scope } : {}),
    };
    const args = ['--optimize-for-size', '--max-semi-space-size=8', entry, JSON.stringify(serverArgs)];
    const child = spawn(process.execPath, args, {
      cwd: ctx.io.runtime.cwd,
      env: { ...ctx.io.runtime.env } as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    child.unref();
    const until = Date.now() + START_TIMEOUT_MS;
    let s: Record<string, unknown> | undefined;
    while (!(s = await status()) && exited === undefined && Date.now() < until) await sleep(20);
    if (!s) {
      throw new VaultError('io-error', `the index server did not start${exited !== undefined ? ` (exit code ${exited})` : ''}`, {
        hint: `see ${join(dir, 'server.log')}`,
      });
    }
    if (argv.json) printJson(ctx, { started: true, ...s });
    else printText(ctx, `started the index server (pid ${s.pid}); \`vault watch --stop\` stops it`);
    return;
  }
  const { runIndexServer } = await import('../../server/server-main.js');
  const scopes = argv.scope?.length ? [...new Set(argv.scope)] : SCOPES;
  const server = await runIndexServer(roots, {
    scopes,
    debounceMs: argv.debounce ?? 200,
    who,
    say: (obj, text) => (argv.json ? ctx.io.stdout(`${JSON.stringify(obj)}\n`) : printText(ctx, text)),
  });
  const stop = () => void server.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  // another server listens on the path now: ending the process by its own close would remove that socket
  if (server.socketTaken) process.exit(ctx.exitCode);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
