// The resident index server (`vault watch`): CLI wall time of `vault search` and `vault read`
// with and without the server beside `node -e 0` (F) in the same run, the client's fallback
// cost when no server answers, the server's ready time from an existing index and its resident
// memory, and the watcher choice: fs.watch on the folders against chokidar (what `vault watch`
// used before) on the same vault. Uses the search bench's generator (90-search.mjs).
// `--quick` runs 1,000 only; BENCH_SERVER_SIZES=10000,100000 picks sizes (default 10,000).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeMemories } from './90-search.mjs';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const dist = (p) => pathToFileURL(join(repoDir, 'dist', p)).href;
const QUERIES = ['redis session', 'deploy rollback kubernetes', 'oauth login', 'webhook retry'];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function timeSpawn(args, opts) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

/** A watcher measured in its own process: time to ready, watches (inotify), RSS after ready. */
const WATCHER = `
const [which, dir] = process.argv.slice(1);
const t = performance.now();
const { readdirSync, watch, lstatSync } = await import('node:fs');
const { join } = await import('node:path');
let watches = 0;
if (which === 'chokidar') {
  const { watch: cw } = await import(${JSON.stringify(pathToFileURL(join(repoDir, 'node_modules', 'chokidar', 'index.js')).href)});
  const w = cw(dir, { ignoreInitial: true, followSymlinks: false });
  await new Promise((r) => w.on('ready', r));
  const fds = readdirSync('/proc/self/fdinfo');
  for (const fd of fds) { try { const s = (await import('node:fs')).readFileSync('/proc/self/fdinfo/' + fd, 'utf8'); watches += (s.match(/^inotify wd/gm) || []).length; } catch {} }
} else {
  const walk = (d) => { watch(d, () => {}); watches++; for (const n of readdirSync(d)) { const p = join(d, n); if (!n.startsWith('.') && lstatSync(p).isDirectory()) walk(p); } };
  walk(dir);
}
process.stdout.write(JSON.stringify({ ms: performance.now() - t, watches, rss: process.memoryUsage().rss }));
process.exit(0);`;

async function benchSize(n) {
  const work = mkdtempSync(join(tmpdir(), `vault-bench-server-${n}-`));
  const repo = join(work, 'repo');
  const run = join(work, 'run');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(run, { mode: 0o700 });
  const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1', XDG_RUNTIME_DIR: run };
  const off = { ...env, ECC_VAULT_SERVER: 'off' };
  let pid;
  try {
    const { serializeMemory } = await import(dist('document/serialize.js'));
    const memories = makeMemories(n);
    const past = new Date(Date.now() - 60_000);
    const made = new Set();
    for (const m of memories) {
      const dir = join(repo, '.ecc', 'memory', 'team', `${m.kind}s`);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      const p = join(dir, `${m.id}.md`);
      writeFileSync(p, serializeMemory(m));
      utimesSync(p, past, past);
    }
    timeSpawn([bin, 'index', '--rebuild', '--scope', 'team', '--json'], { cwd: repo, env });
    const id = memories[Math.floor(n / 2)].id;
    const runs = n >= 100_000 ? 5 : 11;
    const wall = (args, e) => {
      timeSpawn(args, { cwd: repo, env: e }); // warm-up
      return median(Array.from({ length: runs }, () => timeSpawn(args, { cwd: repo, env: e }).ms));
    };
    const searchWall = (e) => median(QUERIES.map((q) => wall([bin, 'search', q, '--scope', 'team', '--json'], e)));
    const F = wall(['-e', '0'], env);
    const noServer = { search: searchWall(off), read: wall([bin, 'read', id, '--json'], off) };
    // with no server running, the client looks for the socket first: its cost against ECC_VAULT_SERVER=off
    const fallback = searchWall(env) - noServer.search;
    const { askServer } = await import(dist('search/resident/resident-client.js'));
    const { resolveRoots } = await import(dist('store/roots.js'));
    const { nodeRuntime } = await import(dist('io/runtime.js'));
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env }));
    const who = { uid: process.getuid(), env };
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) await askServer(roots, { op: 'status' }, who);
    const probeNone = (performance.now() - t0) / 100;

    const t = performance.now();
    const started = JSON.parse(timeSpawn([bin, 'watch', '--detach', '--json'], { cwd: repo, env }).stdout);
    const readyMs = performance.now() - t;
    pid = started.pid;
    const withServer = { search: searchWall(env), read: wall([bin, 'read', id, '--json'], env) };
    const status = JSON.parse(timeSpawn([bin, 'watch', '--status', '--json'], { cwd: repo, env }).stdout);
    const t1 = performance.now();
    for (let i = 0; i < 100; i++) await askServer(roots, { op: 'status' }, who);
    const roundTrip = (performance.now() - t1) / 100;
    timeSpawn([bin, 'watch', '--stop'], { cwd: repo, env });
    pid = undefined;
    // a stale socket (a killed server's) costs one refused connect
    const stale = spawn(process.execPath, [bin, 'watch', '--scope', 'team', '--json'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((r) => stale.stdout.on('data', (d) => String(d).includes('"watching"') && r()));
    stale.kill('SIGKILL');
    await new Promise((r) => stale.on('close', r));
    const t2 = performance.now();
    for (let i = 0; i < 100; i++) await askServer(roots, { op: 'status' }, who);
    const probeStale = (performance.now() - t2) / 100;

    const team = join(repo, '.ecc', 'memory', 'team');
    const watcher = (which) => JSON.parse(timeSpawn(['--input-type=module', '-e', WATCHER, which, team], { cwd: repo, env, timeout: 300_000 }).stdout);
    const fsw = watcher('fs.watch');
    const chok = watcher('chokidar');
    return { n, F, noServer, withServer, fallback, probeNone, probeStale, roundTrip, readyMs, status, fsw, chok };
  } finally {
    if (pid) spawnSync('kill', ['-9', String(pid)]);
    rmSync(work, { recursive: true, force: true });
  }
}

export async function run({ quick }) {
  const sizes = quick ? [1000] : (process.env.BENCH_SERVER_SIZES ?? '10000').split(',').map(Number);
  const rows = [];
  for (const n of sizes) rows.push(await benchSize(n));
  const mb = (b) => `${(b / 1024 ** 2).toFixed(0)} MB`;
  const markdown = [
    'Median CLI wall time (cold process, warm page cache) of `vault search` (4 queries, `--json`) and',
    '`vault read <id>`, with and without `vault watch --detach` running, beside `node -e 0` (F) in the',
    'same run. "Fallback" is what looking for the socket costs a search when no server runs (against',
    '`ECC_VAULT_SERVER=off`); the probes are the client alone, in-process.',
    '',
    '| memories | F | search (files / server) | read (files / server) | fallback | probe: none / stale socket | round trip | ready (server / `--detach` wall) | server RSS |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en-US')} | ${fmt(r.F)} | ${fmt(r.noServer.search)} / ${fmt(r.withServer.search)} (F + ${fmt(r.withServer.search - r.F)}) | ${fmt(r.noServer.read)} / ${fmt(r.withServer.read)} (F + ${fmt(r.withServer.read - r.F)}) | ${r.fallback.toFixed(1)} ms | ${r.probeNone.toFixed(2)} / ${r.probeStale.toFixed(2)} ms | ${r.roundTrip.toFixed(2)} ms | ${fmt(r.status.readyMs)} / ${fmt(r.readyMs)} | ${r.status.memoryMB} MB |`,
    ),
    '',
    'The watcher: one process watching the team folder until ready (inotify watches, RSS after ready).',
    '',
    '| memories | fs.watch on the folders | chokidar 5 |',
    '|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en-US')} | ${r.fsw.watches} watches, ${fmt(r.fsw.ms)}, ${mb(r.fsw.rss)} | ${r.chok.watches} watches, ${fmt(r.chok.ms)}, ${mb(r.chok.rss)} |`,
    ),
  ].join('\n');
  return { title: 'Index server', markdown };
}
