// Search, read and save at scale, with and without the index server, against the targets of the
// issue "Fast and fresh at 100,000 memories".
//
// Vaults of 10,000 and 100,000 generated memories (the sizes of the targets) (scripts/bench/lib/vault-gen.mjs: Zipf
// text over > 20,000 distinct words, ~10 % Chinese/Japanese, 200 B–8 KB). Queries are picked by
// how many memories they match and checked with `vault search`'s own total: selective (≤ 5 % of
// the memories) and broad (> 50 %). Each size goes through three states:
//   1. right after `vault index --rebuild` (its wall time and peak RSS measured),
//   2. after 100 `vault save` (the index has changes on top of its last build),
//   3. after 100 in-place edits of memory files (as a person edits in an editor),
// each measured without the index server, then with it (`vault watch --detach` … `--stop`; the
// saves and edits of the server half are made while it runs). Every command is a new process
// (cold process, warm page cache), timed between runs of `node -e 0` (F) so load shifts both.
// Only the CLI and the library's public exports (dist/index.js) are used.
//
// `--quick`: 1,000 memories, one selective and one broad query, one run each, 10 changes per half. Environment: BENCH_SEARCH_SIZES=1000,10000
// picks sizes; BENCH_RUNS (runs per query and state), BENCH_CHANGES (saves and edits per half)
// override the defaults.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, hasRipgrep, load, mb, median, nodeFloor, peakMemory, procMemory, timeRun } from './lib/measure.mjs';
import { memoryStream, textStats, writeVault } from './lib/vault-gen.mjs';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const api = pathToFileURL(join(repoDir, 'dist', 'index.js')).href;

/** The targets of the issue, in ms beyond F (search, read, save) or absolute (server, rebuild). */
const TARGETS = {
  10000: { selective: 80, broad: 120, server: 40, read: 80, readServer: 40, save: 150, rssMB: 150, readyMs: 1000 },
  100000: { selective: 200, broad: 300, server: 80, read: 200, readServer: 80, save: 300, rssMB: 300, readyMs: 3000, rebuildMs: 30_000, rebuildMB: 600 },
};
const SELECTIVE_MAX = 0.05;
const BROAD_MIN = 0.5;

// The reference tool's way, for comparison: read and parse every file on every query, then match words.
const LINEAR = `
const { scanVault, resolveRoots, nodeRuntime } = await import(${JSON.stringify(api)});
const words = process.argv[1].toLowerCase().split(/\\s+/);
const scan = scanVault(resolveRoots(nodeRuntime()), { scopes: ['project', 'team'], secretCheck: false });
const hits = scan.entries.filter((e) => { const t = (e.memory.title + ' ' + e.memory.tags.join(' ') + ' ' + e.memory.body).toLowerCase(); return words.some((w) => t.includes(w)); });
process.stdout.write(String(hits.length) + '\\n');`;

/** `vault search q --json` → total (the number of memories matching), or NaN when the output is not the expected JSON. */
function totalOf(stdout) {
  try {
    const t = JSON.parse(stdout).total;
    return typeof t === 'number' ? t : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Picks the queries for a vault from the generator's document frequencies, each checked with
 * `vault search`'s total (a word's stem or its parts in identifiers can match more than the
 * generator drew): `[{ name, kind: 'selective' | 'broad', q, share, ok }]`; with `few`, one of each kind.
 */
function pickQueries(gen, search, few) {
  const n = gen.memories.length;
  const latin = [...gen.df].filter(([w]) => /^[a-z]{4,}$/.test(w)).sort((a, b) => b[1] - a[1]);
  const cjk = new Set(gen.vocabulary.cjk);
  const cjkWords = [...gen.df].filter(([w]) => cjk.has(w) && w.length >= 2).sort((a, b) => b[1] - a[1]);
  const near = (list, share) => [...list].sort((a, b) => Math.abs(a[1] / n - share) - Math.abs(b[1] / n - share)).map(([w]) => w);
  const check = (kind, candidates) => {
    let best;
    for (const q of candidates.slice(0, 5)) {
      const share = search(q) / gen.active;
      const ok = kind === 'selective' ? share <= SELECTIVE_MAX && share > 0 : share > BROAD_MIN;
      best = { q, share, ok };
      if (ok) break;
    }
    return { kind, ...best };
  };
  const top = latin.map(([w]) => w);
  const one = near(latin, 0.01);
  const two = near(latin, 0.012);
  const three = near(latin, 0.006);
  const pairs = (ws, k) => Array.from({ length: 5 }, (_, i) => ws.slice(i * k, i * k + k).join(' '));
  const all = [
    ['selective, one word', 'selective', () => one],
    ['selective, two words', 'selective', () => pairs(two.slice(5), 2)],
    ['selective, three words (with feedback)', 'selective', () => pairs(three.slice(3), 3)],
    ['selective, Chinese/Japanese word', 'selective', () => near(cjkWords, 0.01)],
    ['broad, one word', 'broad', () => top],
    ['broad, two words', 'broad', () => pairs(top.slice(1), 2)],
  ];
  return all.filter(([name]) => !few || name.endsWith('one word')).map(([name, kind, candidates]) => ({ name, ...check(kind, candidates()) }));
}

async function benchSize(n, { runs, changes, rg, few }) {
  const work = mkdtempSync(join(tmpdir(), `vault-bench-search-${n}-`));
  const repo = join(work, 'repo');
  const runDir = join(work, 'run');
  mkdirSync(join(repo, '.git'), { recursive: true }); // a git dir is enough for the index location
  mkdirSync(runDir, { mode: 0o700 });
  const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1', XDG_RUNTIME_DIR: runDir };
  for (const k of Object.keys(env)) if (k.startsWith('ECC_') && k !== 'ECC_MEMORY_USER_ROOT') delete env[k];
  const offEnv = { ...env, ECC_VAULT_SERVER: 'off' };
  const opts = { cwd: repo, env };
  const vault = (args, e = env) => timeRun(process.execPath, [bin, ...args], { cwd: repo, env: e });
  let serverPid;
  const loadStart = load();
  try {
    const { serializeMemory } = await import(api);
    const t = performance.now();
    const gen = writeVault(repo, n, serializeMemory);
    const genMs = performance.now() - t;
    console.error(`bench: search ${n}: vault written in ${fmt(genMs)} (${mb(gen.bytes)}), load ${load()}`);

    // 1. the full rebuild, cold process: wall time and the child's peak RSS
    const rebuild = await peakMemory(process.execPath, [bin, 'index', '--rebuild', '--json'], opts);
    const indexBytes = JSON.parse(rebuild.stdout).bytes;
    console.error(`bench: search ${n}: rebuild ${fmt(rebuild.ms)}, peak ${mb(rebuild.peak)}`);

    const F = nodeFloor(opts);
    const queries = pickQueries(gen, (q) => totalOf(vault(['search', q, '--json', '--limit', '1'], offEnv).stdout), few);
    const readId = gen.memories.find((m, i) => i >= n / 2 && m.status === 'active').id;

    let saved = 0;
    let edited = 0;
    const states = [];
    /** Times every query and `vault read` `runs` times, F between; the first search is kept apart (the first after a change pays for the freshness check). */
    const measure = (state, server) => {
      const e = server ? env : offEnv;
      const row = { state, server, queries: [], read: [] };
      const fFrom = F.samples.length;
      queries.forEach((q, qi) => {
        const first = vault(['search', q.q, '--json'], e);
        if (qi === 0) row.first = first.ms;
        const xs = [];
        let last = first;
        for (let i = 0; i < runs; i++) {
          F.sample();
          last = vault(['search', q.q, '--json'], e);
          xs.push(last.ms);
        }
        row.queries.push({ ...q, ms: xs, share: totalOf(last.stdout) / (gen.active + saved) });
      });
      vault(['read', readId, '--json'], e);
      for (let i = 0; i < runs; i++) {
        F.sample();
        row.read.push(vault(['read', readId, '--json'], e).ms);
      }
      // F of this state: the `node -e 0` runs interleaved with its own runs (the machine's speed
      // drifts over a size's minutes; a state is compared with F taken in the same minute)
      row.F = median(F.samples.slice(fFrom));
      states.push(row);
      console.error(`bench: search ${n}: ${state}, ${server ? 'server' : 'no server'} measured, load ${load()}`);
      return row;
    };
    const starts = [];
    const startServer = () => {
      const s = Date.now();
      const out = JSON.parse(vault(['watch', '--detach', '--json']).stdout);
      serverPid = out.pid;
      starts.push({ wall: Date.now() - s, own: out.readyMs, pid: out.pid });
    };
    const stopServer = () => {
      const status = JSON.parse(vault(['watch', '--status', '--json']).stdout);
      const m = procMemory(serverPid);
      Object.assign(starts.at(-1), { rss: Number.isNaN(m.rss) ? status.memoryMB * 1048576 : m.rss, hwm: m.hwm, selfMB: status.memoryMB });
      vault(['watch', '--stop', '--json']);
      serverPid = undefined;
    };
    const saveMs = { off: [], on: [] };
    const saveF = { off: [], on: [] };
    const save = (server) => {
      const m = gen.stream.next();
      F.sample();
      saveF[server ? 'on' : 'off'].push(F.samples.at(-1));
      const r = vault(['save', '--scope', 'team', '--kind', m.kind, `--title=${m.title}`, `--body=${m.body}`, '--json'], server ? env : offEnv);
      saveMs[server ? 'on' : 'off'].push(r.ms);
      saved++; // vault save writes an active memory, whatever the generator drew
    };
    // an edit by hand: one sentence more at the end of the body, with a word no memory has yet
    const marker = (k) => `editmark${k.toString(36)}x`;
    const edit = () => {
      const k = edited++;
      const { path } = gen.memories[(k * 7919) % n];
      writeFileSync(path, `${readFileSync(path, 'utf8').trimEnd()} ${gen.stream.sentence()} ${marker(k)}\n`);
    };

    // rg (raw file scanning) and the linear baseline, on the rebuilt vault
    const memDir = join(repo, '.ecc', 'memory');
    const rgMs = [];
    if (rg)
      for (const q of queries) {
        const words = q.q.split(' ').flatMap((w) => ['-e', w]);
        timeRun('rg', ['-l', '-i', '-F', ...words, memDir], opts, [0, 1]);
        for (let i = 0; i < runs; i++) rgMs.push(timeRun('rg', ['-l', '-i', '-F', ...words, memDir], opts, [0, 1]).ms);
      }
    const linear = timeRun(process.execPath, ['--input-type=module', '-e', LINEAR, queries[0].q], opts).ms;

    // state 1: rebuilt
    measure('rebuilt', false);
    startServer();
    measure('rebuilt', true);
    stopServer();
    // state 2: saves (CLI), first without the server, then with it
    for (let i = 0; i < changes; i++) save(false);
    measure(`+${changes} saves`, false);
    startServer();
    for (let i = 0; i < changes; i++) save(true);
    measure(`+${changes * 2} saves`, true);
    stopServer();
    // state 3: in-place edits, first without the server, then while it runs
    for (let i = 0; i < changes; i++) edit();
    measure(`+${changes} edits`, false);
    startServer();
    const editStart = Date.now();
    for (let i = 0; i < changes; i++) edit();
    // the server has caught up when the last edit's new word is found through it
    let caughtUp = Number.NaN;
    for (let tries = 0; tries < 200; tries++) {
      // every status: the edited memory may be one of the generator's superseded ones
      if (totalOf(vault(['search', marker(edited - 1), '--json', '--limit', '1', '--status', 'active', 'rejected', 'superseded']).stdout) >= 1) {
        caughtUp = Date.now() - editStart;
        break;
      }
    }
    measure(`+${changes * 2} edits`, true);
    stopServer();

    return { n, gen, genMs, rebuild, indexBytes, F: F.median(), queries, states, starts, saveMs, saveF, rgMs, linear, caughtUp, loadStart, loadEnd: load() };
  } finally {
    if (serverPid) spawnSync('kill', ['-9', String(serverPid)]);
    rmSync(work, { recursive: true, force: true });
  }
}

const pctS = (x) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`;
const beyond = (ms, F) => `${fmt(ms)} (F+${fmt(ms - F)})`;

/**
 * Per size: the worst state of a kind of query, with and without the server: the one whose median
 * is the most above its own F. @returns `{ ms, F }` of that state
 */
function worst(r, server, pick) {
  const rows = r.states.filter((s) => s.server === server).map((s) => ({ ms: pick(s), F: s.F }));
  return rows.reduce((a, b) => (b.ms - b.F > a.ms - a.F ? b : a));
}
const kindMedian = (kind) => (s) => median(s.queries.filter((q) => q.kind === kind).flatMap((q) => q.ms));

function targetRows(r) {
  const key = r.n >= 100_000 ? 100_000 : 10_000;
  const T = TARGETS[key];
  const at = r.n === key ? '' : ` (the ${key.toLocaleString('en')} target, at ${r.n.toLocaleString('en')})`;
  const size = `${r.n.toLocaleString('en')} memories`;
  const rows = [];
  const rel = (what, { ms, F }, limit) =>
    rows.push({ what: `${size}: ${what}${at}`, target: `≤ F + ${limit} ms`, figure: `${fmt(ms)} = F + ${fmt(ms - F)} (F ${fmt(F)})`, ok: ms - F <= limit });
  rel('search, no server, selective (worst state)', worst(r, false, kindMedian('selective')), T.selective);
  rel('search, no server, broad (worst state)', worst(r, false, kindMedian('broad')), T.broad);
  rel('search, server, selective (worst state)', worst(r, true, kindMedian('selective')), T.server);
  rel('search, server, broad (worst state)', worst(r, true, kindMedian('broad')), T.server);
  rel(
    'read, no server (worst state)',
    worst(r, false, (s) => median(s.read)),
    T.read,
  );
  rel(
    'read, server (worst state)',
    worst(r, true, (s) => median(s.read)),
    T.readServer,
  );
  rel('save, no server', { ms: median(r.saveMs.off), F: median(r.saveF.off) }, T.save);
  rel('save, server running', { ms: median(r.saveMs.on), F: median(r.saveF.on) }, T.save);
  const rss = Math.max(...r.starts.map((s) => s.rss));
  rows.push({ what: `${size}: server RSS after the queries (highest of 3 starts)${at}`, target: `≤ ${T.rssMB} MB`, figure: mb(rss), ok: rss / 1e6 <= T.rssMB });
  const ready = Math.max(...r.starts.map((s) => s.wall));
  rows.push({
    what: `${size}: server ready, \`vault watch --detach\` wall (slowest of 3)${at}`,
    target: `≤ ${fmt(T.readyMs)}`,
    figure: fmt(ready),
    ok: ready <= T.readyMs,
  });
  if (T.rebuildMs) {
    rows.push({ what: `${size}: full rebuild, wall${at}`, target: `≤ ${fmt(T.rebuildMs)}`, figure: fmt(r.rebuild.ms), ok: r.rebuild.ms <= T.rebuildMs });
    rows.push({
      what: `${size}: full rebuild, peak RSS${at}`,
      target: `≤ ${T.rebuildMB} MB`,
      figure: mb(r.rebuild.peak),
      ok: r.rebuild.peak / 1e6 <= T.rebuildMB,
    });
  }
  return rows;
}

export async function run({ quick }) {
  const sizes = process.env.BENCH_SEARCH_SIZES ? process.env.BENCH_SEARCH_SIZES.split(',').map(Number) : quick ? [1000] : [10_000, 100_000];
  const changes = Number(process.env.BENCH_CHANGES ?? (quick ? 10 : 100));
  const rg = hasRipgrep();
  const results = [];
  for (const n of sizes) {
    const runs = Number(process.env.BENCH_RUNS ?? (quick ? 1 : n >= 100_000 ? 3 : 5));
    console.error(`bench: search ${n} memories, ${runs} runs per query and state, ${changes} changes per half ...`);
    const started = Date.now();
    results.push({ ...(await benchSize(n, { runs, changes, rg, few: quick })), runs, changes, wallMs: Date.now() - started });
  }
  const targets = results.flatMap(targetRows);
  // how the generated text compares with real conversation text (LoCoMo, read from ../shared when present)
  const stream = memoryStream(42);
  const { vocabulary } = stream;
  const generated = textStats(
    Array.from({ length: 2000 }, () => {
      const m = stream.next();
      return `${m.title} ${m.body}`;
    }),
  );
  const locomoPath = join(repoDir, '..', 'shared', 'bench-data', 'locomo10.json');
  let locomoText;
  if (existsSync(locomoPath)) {
    const texts = [];
    for (const sample of JSON.parse(readFileSync(locomoPath, 'utf8')))
      for (const turns of Object.values(sample.conversation ?? {}))
        if (Array.isArray(turns)) for (const t of turns) if (typeof t?.text === 'string') texts.push(t.text);
    locomoText = { ...textStats(texts), turns: texts.length };
  }
  const stats = (x) =>
    `${x.tokens.toLocaleString('en')} words, ${x.distinct.toLocaleString('en')} distinct, Zipf slope ${x.slope.toFixed(2)} (ranks 10–1,000), top ten words ${pctS(x.top10)} of all`;
  const md = [
    "Generated team vaults (`scripts/bench/lib/vault-gen.mjs`, seeded, self-contained): text drawn with Zipf's law from a",
    `vocabulary of ${vocabulary.latin.length.toLocaleString('en')} Latin-script words (real English, made-up names and jargon, code identifiers) and ${vocabulary.cjk.length.toLocaleString('en')} Chinese/`,
    'Japanese words (~10 % of the memories are mostly CJK); 200 B–8 KB per memory (log-uniform); 8 kinds, tags, 10 %',
    'superseded. Every figure is the median wall time of a new `vault` process (cold process, warm page cache); F is',
    '`node -e 0` sampled between the runs (each state has its own F, in the table). Queries are picked by their share of matching memories and',
    "that share is checked with `vault search`'s own total: selective ≤ 5 %, broad > 50 % of the active memories.",
    `States: right after \`vault index --rebuild\`; after saves with \`vault save\`; after in-place edits (one sentence`,
    'appended to a file, as in an editor). Each state is measured without the index server (`ECC_VAULT_SERVER=off`),',
    "then the server is started (`vault watch --detach`), the server half's saves or edits are made while it runs, and",
    `it is measured again and stopped (\`--stop\`). So "+${changes * 2} saves" with the server means ${changes} saved before it started and`,
    `${changes} while it ran.`,
    '',
    `Text (Latin-script words): the generator's first 2,000 memories ${stats(generated)}; ${locomoText ? `LoCoMo's ${locomoText.turns.toLocaleString('en')} turns (../shared/bench-data, for comparison) ${stats(locomoText)}` : 'LoCoMo (../shared) is not beside this checkout, so no comparison'}.`,
    '',
  ];
  for (const r of results) {
    const distinct = [...r.gen.df.keys()].length;
    md.push(
      `### ${r.n.toLocaleString('en')} memories`,
      '',
      `Vault: ${mb(r.gen.bytes)} of Markdown, ${r.gen.active.toLocaleString('en')} active memories, ${distinct.toLocaleString('en')} distinct vocabulary words used; written in ${fmt(r.genMs)}. ` +
        `Full rebuild (\`vault index --rebuild\`, new process): **${fmt(r.rebuild.ms)}**, peak RSS **${mb(r.rebuild.peak)}** (${r.rebuild.how}); index ${mb(r.indexBytes)}. ` +
        `F (\`node -e 0\`) median **${fmt(r.F)}**. ${r.runs} run${r.runs === 1 ? '' : 's'} per query and state (after one unmeasured). Load average (1/5/15 min) ${r.loadStart} at the start, ${r.loadEnd} at the end; this size took ${fmt(r.wallMs)}.`,
      '',
      `| query | kind | \`vault search\` query | share matching (rebuilt) | ${r.states.map((s) => `${s.state}${s.server ? ', server' : ''}`).join(' | ')} |`,
      `|---|---|---|---:|${r.states.map(() => '---:').join('|')}|`,
      ...r.queries.map(
        (q, qi) =>
          `| ${q.name} | ${q.kind} | \`${q.q}\` | ${pctS(q.share)} ${q.ok ? '✔' : `✘ (not ${q.kind === 'selective' ? '≤ 5 %' : '> 50 %'})`} | ${r.states.map((s) => fmt(median(s.queries[qi].ms))).join(' | ')} |`,
      ),
      `| \`vault read <id>\` | | | | ${r.states.map((s) => fmt(median(s.read))).join(' | ')} |`,
      `| first search of the state, no server (after a change: the freshness check and index update) | | | | ${r.states.map((s) => (s.server ? '' : fmt(s.first))).join(' | ')} |`,
      `| F: \`node -e 0\`, median of the runs between this state's runs | | | | ${r.states.map((s) => fmt(s.F)).join(' | ')} |`,
      '',
      `Share matching in the last state: ${r.states
        .at(-1)
        .queries.map((q) => pctS(q.share))
        .join(', ')} (same order). ` +
        `\`vault save\`: median ${beyond(median(r.saveMs.off), median(r.saveF.off))} without the server, ${beyond(median(r.saveMs.on), median(r.saveF.on))} with it running (${r.saveMs.off.length} + ${r.saveMs.on.length} saves, F from the \`node -e 0\` run before each). ` +
        `Server: \`--detach\` wall ${r.starts.map((s) => fmt(s.wall)).join(' / ')} (its own ready time ${r.starts.map((s) => fmt(s.own)).join(' / ')}), RSS after the queries ${r.starts.map((s) => mb(s.rss)).join(' / ')} (peak ${r.starts.map((s) => mb(s.hwm)).join(' / ')}), one figure per start; ` +
        `it found the last of the ${r.changes} edits made while it ran ${Number.isNaN(r.caughtUp) ? 'not within 200 searches' : `${fmt(r.caughtUp)} after the first`}. ` +
        `For comparison: \`rg -l -i -F\` over the files ${r.rgMs.length ? fmt(median(r.rgMs)) : 'not installed'}; parsing every file per query (the reference tool's way) ${fmt(r.linear)}.`,
      '',
    );
  }
  md.push(
    'The lines against the targets of the issue "Fast and fresh at 100,000 memories" are in "Against the targets" at the top',
    'of this file. A search or read line takes the worst of the three states (median over the runs of every query of that',
    "kind, without or with the server) against that state's own F: the `node -e 0` runs made between its runs. The",
    "machine's speed drifts over the minutes a size takes (F moved by 20-30 ms within one size in earlier runs), so each",
    'state is compared with F measured in the same minute; a save line with the `node -e 0` run before each save.',
  );
  if (!rg) md.push('', '`rg` is not installed on this machine (`apt-get install ripgrep`), so its figure is missing.');
  // retrieval quality is measured separately (it needs the LoCoMo data); include its latest run
  const locomo = join(repoDir, 'docs', 'locomo.md');
  if (existsSync(locomo)) {
    const text = readFileSync(locomo, 'utf8')
      .replace(/^# .*\n/, '')
      .trim();
    md.push('', '### Retrieval quality: LoCoMo (copied from docs/locomo.md, written by `npm run eval:locomo`)', '', text);
  }
  return { title: 'Search, read and save at scale (`scripts/bench/90-search.mjs`)', markdown: md.join('\n'), targets };
}
