// Search at scale: synthetic vaults of 1,000 / 10,000 / 100,000 realistic memories (varied kinds
// and tags, 200 B–8 KB bodies, a Zipf vocabulary of 8,000 words and identifiers, ~10 % Chinese or
// Japanese), written with the library's serializer.
// Measures the full index build, index size, `vault search` wall time (cold process, median),
// in-process latency p50/p99, refresh after 1 and 100 changed files, and peak RSS; and runs the same
// queries through a linear parse-every-file baseline (how the reference tool searches), `rg`
// (raw file scanning floor, when installed) and `node -e 0` (process start floor).
// `--quick` runs 1,000 only; BENCH_SEARCH_SIZES=1000,10000 picks sizes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const dist = (p) => pathToFileURL(join(repoDir, 'dist', p)).href;

const WORDS = `session token cache redis postgres migration schema deploy rollback kubernetes cluster node pod service
ingress certificate secret rotation backup restore queue worker retry timeout latency throughput benchmark profile memory
leak index search ranking tokenizer parser compiler build release version branch merge conflict review approval
pipeline runner artifact docker image registry terraform module provider state lock lease election leader follower
replica shard partition consistency transaction isolation deadlock mutex thread async promise callback stream buffer
encoding unicode locale timezone calendar invoice payment refund customer account billing subscription plan quota
limit throttle gateway proxy router handler middleware logging tracing metrics alert dashboard oncall incident
postmortem runbook playbook decision lesson preference convention style format lint test fixture mock stub snapshot
coverage flaky regression bisect hotfix patch upgrade dependency vulnerability audit license compliance privacy consent
encryption signature checksum hash salt password login logout oauth openid saml scim directory group role permission
policy admin tenant workspace project team user profile avatar upload download storage bucket object blob file folder
path symlink permission owner watcher event webhook notification email template render layout component state store
reducer selector query mutation resolver graphql rest endpoint pagination cursor offset filter sort facet highlight
excerpt typo fuzzy prefix stemming analyzer segmenter language chinese japanese korean accent normalization`.split(/\s+/);
const FILLER = 'the a we it is was to of and in for on with that this by from as at be are not but or'.split(' ');
const CJK = [
  '我们使用数据库来存储会话',
  '缓存失效导致延迟升高',
  '部署之前需要备份数据',
  'セッションをRedisに保存します',
  '障害対応の手順を確認する',
  '索引重建需要几分钟',
  '用户权限由角色决定',
];
const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'];
const TAGS = Array.from({ length: 60 }, (_, i) => WORDS[(i * 7) % WORDS.length]);

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * A vocabulary like a developer vault's: the words above plus a long tail of identifiers,
 * compounds, file paths and numbered names, in a seeded random order (so no query word is
 * favoured), drawn with Zipf's law (frequency ∝ 1 / rank).
 */
function vocabulary(r) {
  const v = [...WORDS];
  const pick = () => WORDS[Math.floor(r() * WORDS.length)];
  while (v.length < 8000) {
    const k = r();
    const a = pick();
    const b = pick();
    v.push(k < 0.35 ? `${a}${b}` : k < 0.65 ? `${a}${'_-./'[Math.floor(r() * 4)]}${b}` : k < 0.85 ? `${a}${Math.floor(r() * 100)}` : `src/${a}/${b}.ts`);
  }
  for (let i = v.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [v[i], v[j]] = [v[j], v[i]];
  }
  return v;
}

export function makeMemories(n, seed = 42) {
  const r = rng(seed);
  const vocab = vocabulary(r);
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(r() * Math.log(vocab.length + 1))) - 1)];
  const sentence = () => {
    const len = 6 + Math.floor(r() * 12);
    const ws = [];
    for (let i = 0; i < len; i++) ws.push(r() < 0.45 ? FILLER[Math.floor(r() * FILLER.length)] : zipf());
    const s = ws.join(' ');
    return `${s[0].toUpperCase()}${s.slice(1)}.`;
  };
  const out = [];
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let i = 0; i < n; i++) {
    const target = Math.floor(200 * 40 ** r()); // log-uniform 200 B .. 8 KB
    const cjk = r() < 0.1;
    let body = '';
    while (Buffer.byteLength(body) < target) body += (cjk && r() < 0.6 ? `${CJK[Math.floor(r() * CJK.length)]}。` : sentence()) + (r() < 0.15 ? '\n\n' : ' ');
    const title = cjk ? CJK[Math.floor(r() * CJK.length)] : Array.from({ length: 3 + Math.floor(r() * 5) }, zipf).join(' ');
    const kind = KINDS[Math.floor(r() * KINDS.length)];
    const t = new Date(base + Math.floor(r() * 300 * 86_400_000)).toISOString();
    out.push({
      schema: 'ecc.memory.v1',
      id: `mem_20260101_${i.toString(16).padStart(20, '0')}`,
      title: title[0].toUpperCase() + title.slice(1),
      kind,
      scope: 'team',
      trust: 'unreviewed',
      status: r() < 0.9 ? 'active' : 'superseded',
      sourceHarness: r() < 0.5 ? 'claude' : 'codex',
      targetHarnesses: ['all'],
      tags: [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => TAGS[Math.floor(r() * TAGS.length)]))],
      links: [],
      createdAt: t,
      updatedAt: t,
      body: body.trim(),
    });
  }
  return out;
}

const QUERIES = [
  'redis session',
  'deploy rollback kubernetes',
  'flaky regression test',
  '数据库',
  'certificate rotation runbook',
  'postgres migration lock timeout',
  'oauth login',
  'webhook retry',
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((s.length * p) / 100) - 1)];
}
function timeSpawn(cmd, args, opts) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 && !(cmd === 'rg' && r.status === 1)) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}
const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
const mib = (b) => `${(b / 1024 ** 2).toFixed(1)} MiB`;

// The reference tool's way: read and parse every file on every query, then match words.
const LINEAR = `
const [{ scanVault }, { resolveRoots }, { nodeRuntime }] = await Promise.all([import(${JSON.stringify(dist('scanner/scan-vault.js'))}), import(${JSON.stringify(dist('store/roots.js'))}), import(${JSON.stringify(dist('io/runtime.js'))})]);
const words = process.argv[1].toLowerCase().split(/\\s+/);
const scan = scanVault(resolveRoots(nodeRuntime()), { scopes: ['project', 'team'], secretCheck: false });
const hits = scan.entries.filter((e) => { const t = (e.memory.title + ' ' + e.memory.tags.join(' ') + ' ' + e.memory.body).toLowerCase(); return words.some((w) => t.includes(w)); });
process.stdout.write(String(hits.length) + '\\n');`;

const RSS_WRAPPER = `
const { runCli } = await import(${JSON.stringify(dist('cli/run-cli.js'))});
const code = await runCli(process.argv.slice(1));
process.stderr.write('MAXRSS ' + process.resourceUsage().maxRSS + '\\n');
process.exitCode = code;`;

function peakRss(args, opts) {
  const r = timeSpawn(process.execPath, ['--input-type=module', '-e', RSS_WRAPPER, ...args], opts);
  const m = /MAXRSS (\d+)/.exec(r.stderr);
  return m ? Number(m[1]) * 1024 : NaN;
}

async function benchSize(n, hasRg) {
  const work = mkdtempSync(join(tmpdir(), `vault-bench-search-${n}-`));
  try {
    const repo = join(work, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true }); // a git dir is enough for the index location
    const { serializeMemory } = await import(dist('document/serialize.js'));
    const memories = makeMemories(n);
    const past = new Date(Date.now() - 60_000);
    let bytes = 0;
    const made = new Set();
    for (const m of memories) {
      const dir = join(repo, '.ecc', 'memory', 'team', `${m.kind}s`);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      const text = serializeMemory(m);
      bytes += Buffer.byteLength(text);
      const p = join(dir, `${m.id}.md`);
      writeFileSync(p, text);
      utimesSync(p, past, past);
    }
    const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1' };
    const opts = { cwd: repo, env };
    const [{ resolveRoots }, { nodeRuntime }, { rebuildIndex, refreshIndex, indexStatus }, { searchMemories }] = await Promise.all([
      import(dist('store/roots.js')),
      import(dist('io/runtime.js')),
      import(dist('search/index/index-status.js')),
      import(dist('search/query/search-memories.js')),
    ]);
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env }));

    // full build, in a fresh process (cold), as `vault index --rebuild` runs it
    const buildRss = peakRss(['index', '--rebuild', '--scope', 'team', '--json'], opts);
    const buildMs = JSON.parse(timeSpawn(process.execPath, [bin, 'index', '--rebuild', '--scope', 'team', '--json'], opts).stdout).ms;
    const size = indexStatus(roots, ['team']).bytes;

    // CLI wall time, cold process, warm page cache
    const runs = n >= 100_000 ? 5 : 9;
    const cli = [];
    const qs = (i) => QUERIES[i % QUERIES.length];
    timeSpawn(process.execPath, [bin, 'search', qs(0), '--json'], opts); // warm the page cache
    for (let i = 0; i < runs; i++) cli.push(timeSpawn(process.execPath, [bin, 'search', qs(i), '--json'], opts).ms);
    const searchRss = peakRss(['search', qs(1), '--json'], opts);
    const node0 = [];
    for (let i = 0; i < runs; i++) node0.push(timeSpawn(process.execPath, ['-e', '0'], opts).ms);
    const linRuns = n >= 100_000 ? 1 : n >= 10_000 ? 3 : 5;
    const linear = [];
    for (let i = 0; i < linRuns; i++) linear.push(timeSpawn(process.execPath, ['--input-type=module', '-e', LINEAR, qs(i)], opts).ms);
    const rg = [];
    if (hasRg)
      for (let i = 0; i < runs; i++)
        rg.push(timeSpawn('rg', ['-l', '-i', '-F', '-e', ...qs(i).split(' ').join(' -e ').split(' '), join(repo, '.ecc', 'memory')], opts).ms);

    // in-process latency (freshness check included in every call)
    const lat = [];
    await searchMemories(roots, qs(0), { scopes: ['team'] });
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      await searchMemories(roots, qs(i), { scopes: ['team'] });
      lat.push(performance.now() - t);
    }
    // refresh after 1 and 100 changed files (edits by hand), compared with a check that finds nothing
    const t0 = performance.now();
    refreshIndex(roots, { scopes: ['team'] });
    const noChange = performance.now() - t0;
    const touch = (k) => {
      for (let i = 0; i < k; i++) {
        const m = { ...memories[(i * 37) % n], body: `${memories[(i * 37) % n].body} edited ${k}` };
        writeFileSync(join(repo, '.ecc', 'memory', 'team', `${m.kind}s`, `${m.id}.md`), serializeMemory(m));
      }
    };
    touch(1);
    let t = performance.now();
    refreshIndex(roots, { scopes: ['team'] });
    const refresh1 = performance.now() - t;
    touch(100);
    t = performance.now();
    refreshIndex(roots, { scopes: ['team'] });
    const refresh100 = performance.now() - t;
    void rebuildIndex;
    return {
      n,
      bytes,
      buildMs,
      size,
      cli: median(cli),
      node0: median(node0),
      linear: median(linear),
      rg: rg.length ? median(rg) : undefined,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      noChange,
      refresh1,
      refresh100,
      buildRss,
      searchRss,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function run({ quick }) {
  const sizes = process.env.BENCH_SEARCH_SIZES ? process.env.BENCH_SEARCH_SIZES.split(',').map(Number) : quick ? [1000] : [1000, 10_000, 100_000];
  const hasRg = spawnSync('rg', ['--version']).status === 0;
  const rows = [];
  for (const n of sizes) {
    console.error(`bench: search ${n} memories ...`);
    rows.push(await benchSize(n, hasRg));
    console.error(`bench: ${JSON.stringify(rows.at(-1))}`);
  }
  const lines = [
    'Synthetic team vaults: varied kinds and tags, 200 B–8 KB bodies (log-uniform), a Zipf vocabulary of 8,000 words and',
    'identifiers, ~10 % Chinese/Japanese; written with the library serializer. "vault search" = `vault search <query> --json`',
    'in a new process (cold process, warm page cache), median over different queries; the freshness check (directory listing',
    '+ one lstat per file) runs on every search. "linear" reads and parses every file per query, like the reference tool.',
    'In-process latency = `searchMemories()` in a long-lived process (MCP server, watch). Refresh = `refreshIndex()` after',
    'editing files by hand; "no change" is the bare freshness check.',
    '',
    '| memories | vault data | full build | index size | vault search (CLI) | linear baseline (CLI) | speed-up | rg -l | node -e 0 | in-process p50 / p99 | no change / refresh 1 / refresh 100 | peak RSS build / search |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en')} | ${mib(r.bytes)} | ${fmt(r.buildMs)} | ${mib(r.size)} | **${fmt(r.cli)}** | ${fmt(r.linear)} | ${(r.linear / r.cli).toFixed(1)}× | ${r.rg !== undefined ? fmt(r.rg) : 'not installed'} | ${fmt(r.node0)} | ${fmt(r.p50)} / ${fmt(r.p99)} | ${fmt(r.noChange)} / ${fmt(r.refresh1)} / ${fmt(r.refresh100)} | ${mib(r.buildRss)} / ${mib(r.searchRss)} |`,
    ),
  ];
  if (!hasRg) lines.push('', '`rg` was not installed on the benchmark machine (`apt-get install ripgrep`), so its column is empty.');
  // retrieval quality is measured separately (it needs the LoCoMo data); include its latest run
  const locomo = join(repoDir, 'docs', 'locomo.md');
  if (existsSync(locomo)) {
    const text = readFileSync(locomo, 'utf8')
      .replace(/^# .*\n/, '')
      .trim();
    lines.push('', '### Retrieval quality: LoCoMo (copied from docs/locomo.md, written by `npm run eval:locomo`)', '', text);
  }
  return { title: 'Search at scale (`scripts/bench/90-search.mjs`)', markdown: lines.join('\n') };
}
