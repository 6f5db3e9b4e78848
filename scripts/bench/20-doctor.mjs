// Benchmark: `vault doctor` over 10,000 valid memories (target: under 3 s on the 2-core machine).
// Writes a real vault of canonical memories (team and project scope, links between them, a few
// tags), then times the built CLI end to end as a subprocess (start-up, scan, every rule,
// secretlint over every file, JSON output). Median of several runs; the first run is a warm-up
// for the file system cache, as in CI after checkout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'];
const WORDS =
  'session cache redis token rotation deploy migration schema index search review commit branch worker queue retry timeout config secret policy'.split(' ');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function makeVault(root, n) {
  const { serializeMemory } = await import(pathToFileURL(join(repo, 'dist', 'document', 'serialize.js')).href);
  const ids = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const kind = KINDS[i % KINDS.length];
    const scope = i % 4 === 0 ? 'project' : 'team';
    const id = `mem_20260801_${String(i).padStart(20, '0')}`;
    const day = String(1 + (i % 28)).padStart(2, '0');
    const at = `2026-07-${day}T${String(i % 24).padStart(2, '0')}:00:00.000Z`;
    const words = Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
    const memory = {
      schema: 'ecc.memory.v1',
      id,
      title: `Memory ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`,
      kind,
      scope,
      trust: 'unreviewed',
      status: 'active',
      sourceHarness: 'claude',
      targetHarnesses: ['all'],
      tags: [WORDS[i % WORDS.length], `t${i % 50}`],
      links: i >= 4 && i % 3 === 0 ? [ids[i - 4]] : [], // same scope (i % 4 picks the scope), other kind (i % 8): no team→local link, no "probably superseded"
      createdAt: at,
      updatedAt: at,
      body: `${words}.\n\nSee [[${ids[i - 4] ?? id}]] for context.\n\n- step one\n- step two`,
    };
    ids.push(id);
    const text = serializeMemory(memory);
    bytes += Buffer.byteLength(text);
    const file = join(root, scope, `${kind}s`, `${id}.md`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  writeFileSync(join(root, 'project', '.gitignore'), '*\n!.gitignore\n');
  return bytes;
}

/** Builds the search index when the search module is there, so doctor's index check runs too. */
async function buildIndex(root, home) {
  const status = join(repo, 'dist', 'search', 'index', 'index-status.js');
  if (!existsSync(status)) return false;
  const [{ refreshIndex }, { resolveRoots }, { nodeRuntime }] = await Promise.all([
    import(pathToFileURL(status).href),
    import(pathToFileURL(join(repo, 'dist', 'store', 'roots.js')).href),
    import(pathToFileURL(join(repo, 'dist', 'io', 'runtime.js')).href),
  ]);
  refreshIndex(resolveRoots(nodeRuntime({ cwd: home, env: { ECC_MEMORY_PROJECT_ROOT: root }, home })));
  return true;
}

function timeDoctor(root, home, indexCheck) {
  const started = process.hrtime.bigint();
  const args = [join(repo, 'bin', 'vault.js'), 'doctor', '--json', '--root', root, ...(indexCheck ? [] : ['--no-index-check'])];
  const r = spawnSync(process.execPath, args, {
    cwd: home,
    // the memories are dated July 2026: the stale-handoff rule runs, with an age none of them reaches
    env: { ...process.env, HOME: home, ECC_MEMORY_USER_ROOT: join(home, 'user'), NO_COLOR: '1', ECC_HANDOFF_STALE_DAYS: '36500' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`doctor exited ${r.status}: ${r.stderr || r.stdout.slice(0, 2000)}`);
  const report = JSON.parse(r.stdout);
  return { ms, report };
}

export async function run({ quick } = {}) {
  const n = quick ? 1000 : 10_000;
  const runs = quick ? 3 : 5;
  const home = mkdtempSync(join(tmpdir(), 'vault-bench-doctor-'));
  try {
    const root = join(home, 'vault');
    const bytes = await makeVault(root, n);
    const indexCheck = await buildIndex(root, home);
    timeDoctor(root, home, indexCheck); // warm-up (file system cache)
    const times = [];
    let last;
    for (let i = 0; i < runs; i++) {
      last = timeDoctor(root, home, indexCheck);
      times.push(last.ms);
    }
    if (last.report.counts.memories !== n || last.report.problems.length !== 0) throw new Error(`unexpected report: ${JSON.stringify(last.report.counts)}`);
    const med = median(times);
    const markdown = [
      `\`vault doctor --json\` run as a subprocess (CLI start-up included) over ${n.toLocaleString('en')} valid canonical memories`,
      `(${(bytes / 1024 / 1024).toFixed(1)} MiB, team and project scope, links and wikilinks between them), every rule on, including secretlint over every file${indexCheck ? ' and the index freshness check (index built first)' : ' (the search module was not built: no index check)'}.`,
      '',
      '| memories | runs | median | min | max | target |',
      '|---:|---:|---:|---:|---:|---|',
      `| ${n.toLocaleString('en')} | ${runs} | ${(med / 1000).toFixed(2)} s | ${(Math.min(...times) / 1000).toFixed(2)} s | ${(Math.max(...times) / 1000).toFixed(2)} s | < 3 s${quick ? ' (at 10,000)' : med < 3000 ? ' ✔' : ' ✘'} |`,
    ].join('\n');
    return {
      title: 'Doctor over a large vault',
      markdown,
      readme: `vault doctor over ${n.toLocaleString('en')} memories: ${(med / 1000).toFixed(2)} s (median of ${runs})`,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
