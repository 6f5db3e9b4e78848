// The index server's side costs (its search/read latency, ready time and RSS per size are in
// 90-search.mjs): what a `vault search` pays for looking for a server when none runs (no socket)
// and when a killed server left its socket behind, both against `ECC_VAULT_SERVER=off`; and the
// watcher choice: fs.watch on the folders against chokidar (what `vault watch` used before) on the
// same vault. Generated vault (scripts/bench/lib/vault-gen.mjs); only the CLI is used.
// `--quick` runs 1,000 memories; BENCH_SERVER_SIZES=10000,100000 picks sizes (default 10,000).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, load, mb, median, nodeFloor, timeRun } from './lib/measure.mjs';
import { writeVault } from './lib/vault-gen.mjs';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const api = pathToFileURL(join(repoDir, 'dist', 'index.js')).href;
const QUERIES = ['week', 'convention move', 'guitar'];

/** A watcher measured in its own process: time to ready, watches (inotify), RSS after ready. */
const WATCHER = `
const [which, dir] = process.argv.slice(1);
const t = performance.now();
const { readdirSync, readFileSync, watch, lstatSync } = await import('node:fs');
const { join } = await import('node:path');
let watches = 0;
if (which === 'chokidar') {
  const { watch: cw } = await import(${JSON.stringify(pathToFileURL(join(repoDir, 'node_modules', 'chokidar', 'index.js')).href)});
  const w = cw(dir, { ignoreInitial: true, followSymlinks: false });
  await new Promise((r) => w.on('ready', r));
  for (const fd of readdirSync('/proc/self/fdinfo')) { try { watches += (readFileSync('/proc/self/fdinfo/' + fd, 'utf8').match(/^inotify wd/gm) || []).length; } catch {} }
} else {
  const walk = (d) => { watch(d, () => {}); watches++; for (const n of readdirSync(d)) { const p = join(d, n); if (!n.startsWith('.') && lstatSync(p).isDirectory()) walk(p); } };
  walk(dir);
}
process.stdout.write(JSON.stringify({ ms: performance.now() - t, watches, rss: process.memoryUsage().rss }));
process.exit(0);`;

async function benchSize(n, runs) {
  const work = mkdtempSync(join(tmpdir(), `vault-bench-server-${n}-`));
  const repo = join(work, 'repo');
  const runDir = join(work, 'run');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(runDir, { mode: 0o700 });
  const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1', XDG_RUNTIME_DIR: runDir };
  for (const k of Object.keys(env)) if (k.startsWith('ECC_') && k !== 'ECC_MEMORY_USER_ROOT') delete env[k];
  const off = { ...env, ECC_VAULT_SERVER: 'off' };
  const opts = { cwd: repo, env };
  let stale;
  try {
    const { serializeMemory } = await import(api);
    writeVault(repo, n, serializeMemory);
    timeRun(process.execPath, [bin, 'index', '--rebuild', '--json'], opts);
    const F = nodeFloor(opts);
    // the three cases interleaved query by query, so load shifts them alike
    const walls = { off: [], none: [], stale: [] };
    const round = (cases) => {
      for (const q of QUERIES) {
        for (const c of cases) timeRun(process.execPath, [bin, 'search', q, '--json'], { cwd: repo, env: c === 'off' ? off : env });
        for (let i = 0; i < runs; i++) {
          F.sample();
          for (const c of cases) walls[c].push(timeRun(process.execPath, [bin, 'search', q, '--json'], { cwd: repo, env: c === 'off' ? off : env }).ms);
        }
      }
    };
    round(['off', 'none']);
    // a stale socket: a server killed without its cleanup
    stale = spawn(process.execPath, [bin, 'watch', '--json'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve, reject) => {
      let out = '';
      stale.stdout.on('data', (d) => (out += d) && out.includes('"watching"') && resolve());
      stale.on('close', () => reject(new Error(`vault watch exited before it was watching: ${out.slice(0, 500)}`)));
    });
    stale.kill('SIGKILL');
    await new Promise((r) => (stale.exitCode !== null || stale.signalCode !== null ? r() : stale.on('close', r)));
    stale = undefined;
    const offBefore = walls.off.length;
    round(['off', 'stale']);
    const offStale = walls.off.slice(offBefore);
    walls.off = walls.off.slice(0, offBefore);

    const team = join(repo, '.ecc', 'memory', 'team');
    const watcher = (which) => JSON.parse(timeRun(process.execPath, ['--input-type=module', '-e', WATCHER, which, team], { ...opts, timeout: 300_000 }).stdout);
    return {
      n,
      F: F.median(),
      off: median(walls.off),
      none: median(walls.none),
      offStale: median(offStale),
      stale: median(walls.stale),
      fsw: watcher('fs.watch'),
      chok: watcher('chokidar'),
    };
  } finally {
    if (stale) stale.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

export async function run({ quick }) {
  const loadStart = load();
  const sizes = quick ? [1000] : (process.env.BENCH_SERVER_SIZES ?? '10000').split(',').map(Number);
  const runs = Number(process.env.BENCH_RUNS ?? (quick ? 1 : 5));
  const rows = [];
  for (const n of sizes) rows.push(await benchSize(n, runs));
  const sign = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(0)} ms`;
  const markdown = [
    `Median wall time of \`vault search <q> --json\` (${QUERIES.length} queries × ${runs} runs, each case right after the other) when no`,
    'server answers: with `ECC_VAULT_SERVER=off` (the client does not look), with no socket, and with the socket of a',
    'server killed by SIGKILL (one refused connect). The difference is what looking for a server costs; the look-up',
    'itself is a connect() on a local socket, so on a loaded machine the difference is mostly noise (its sign too).',
    `F = \`node -e 0\`. Load average (1/5/15 min) ${loadStart} at the start, ${load()} at the end.`,
    '',
    '| memories | F | off | no socket | difference | off (second round) | stale socket | difference |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en')} | ${fmt(r.F)} | ${fmt(r.off)} | ${fmt(r.none)} | ${sign(r.none - r.off)} | ${fmt(r.offStale)} | ${fmt(r.stale)} | ${sign(r.stale - r.offStale)} |`,
    ),
    '',
    'The watcher: one process watching the team folder until ready (inotify watches, RSS after ready).',
    '',
    '| memories | fs.watch on the folders | chokidar |',
    '|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en')} | ${r.fsw.watches} watches, ${fmt(r.fsw.ms)}, ${mb(r.fsw.rss)} | ${r.chok.watches} watches, ${fmt(r.chok.ms)}, ${mb(r.chok.rss)} |`,
    ),
  ].join('\n');
  return { title: 'Index server: looking for it, and the watcher (`scripts/bench/92-server.mjs`)', markdown };
}
