// Proposal extractor cost (src/sessions/proposals), in-process, on the built dist/.
//
// A hook runs the extractor on the transcript lines appended since its last run, so the number
// that matters is the incremental run: the last turn of a session, with the state of everything
// before it. Measured on
//   1. the largest real transcript fixture (Codex rollout, 187 KB; read here only, never by the tests),
//   2. a generated 10 MB Claude Code transcript (the corpus excerpts and the real Claude Code
//      fixture's lines, repeated with fresh ids), as one run from the first line (a first hook
//      run on an old session, or an import) and as incremental runs of one turn at its end,
//      each including the read of the appended bytes from the file at the state's offset.
// Also: the import of the module in a fresh Node.js process (hooks load it lazily).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = join(repoDir, '..', 'shared', 'fixtures', 'transcripts');
const CODEX_REAL = join(shared, 'codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
const CLAUDE_REAL = join(shared, 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const corpus = join(repoDir, 'tests', 'fixtures', 'capture', 'claude');
const modulePath = join(repoDir, 'dist', 'sessions', 'proposals', 'index.js');

/** The extractor's budget per hook run, ms (PROPOSAL_STORE_LIMITS.hookBudgetMs in src/sessions/proposal-store.ts). */
const BUDGET = 50;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))];
};
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
function time(fn, runs) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** Splits a file's text into the lines before the last `turnLines` and those lines. */
function split(lines, turnLines) {
  return [lines.slice(0, lines.length - turnLines), lines.slice(lines.length - turnLines)];
}

/** Reads `path` from `offset` to its end (what a hook does with the state's byteOffset). */
function readFrom(path, offset, size) {
  const buf = Buffer.allocUnsafe(size - offset);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, buf.length, offset);
  } finally {
    closeSync(fd);
  }
  return buf;
}

export async function run({ quick }) {
  const { extractProposals, extractProposalsFromBytes } = await import(pathToFileURL(modulePath).href);
  const runs = quick ? 15 : 61;
  const rows = [];
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-proposals-'));
  try {
    // 1. The largest real transcript.
    if (existsSync(CODEX_REAL)) {
      const text = readFileSync(CODEX_REAL, 'utf8');
      const lines = text.trimEnd().split('\n');
      const full = time(() => extractProposals(lines, undefined, { harness: 'codex', event: 'stop' }), runs);
      const [before, turn] = split(lines, 20);
      const state = extractProposals(before, undefined, { harness: 'codex' }).state;
      const inc = time(() => extractProposals(turn, state, { harness: 'codex', event: 'stop' }), runs);
      rows.push([`real Codex rollout (${(Buffer.byteLength(text) / 1024).toFixed(0)} KB, ${lines.length} lines): whole file, first run`, full]);
      rows.push(['same, incremental: its last 20 lines', inc, BUDGET]);
    }

    // 2. A generated 10 MB Claude Code transcript.
    const sources = readdirSync(corpus)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => readFileSync(join(corpus, f), 'utf8'));
    if (existsSync(CLAUDE_REAL)) sources.push(readFileSync(CLAUDE_REAL, 'utf8'));
    const pieces = [];
    let size = 0;
    for (let round = 0; size < 10 * 1024 * 1024; round++) {
      for (const src of sources) {
        // Fresh ids per round, so the repeats are new records (uuids, tool ids), not the same ones.
        const piece = src.replace(/("(?:uuid|parentUuid|tool_use_id|id)":"[^"]{4,})"/g, `$1-r${round}"`);
        pieces.push(piece);
        size += Buffer.byteLength(piece);
        if (size >= 10 * 1024 * 1024) break;
      }
    }
    const big = pieces.join('');
    const file = join(work, 'generated.jsonl');
    writeFileSync(file, big);
    const bigLines = big.trimEnd().split('\n');
    // A first run in a fresh process (cold code, as a hook's first run on an old session would be).
    const cold = [];
    for (let i = 0; i < (quick ? 2 : 5); i++) {
      const r = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import {readFileSync} from 'node:fs';const m=await import(${JSON.stringify(pathToFileURL(modulePath).href)});const b=readFileSync(${JSON.stringify(file)});const t=performance.now();m.extractProposalsFromBytes(b,undefined,{harness:'claude-code',event:'stop'});process.stdout.write(String(performance.now()-t))`,
        ],
        { encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`cold run failed: ${r.stderr}`);
      cold.push(Number(r.stdout));
    }
    const fullRuns = quick ? 3 : 7;
    const fullBig = time(() => extractProposals(bigLines, undefined, { harness: 'claude-code', event: 'stop' }), fullRuns);
    const bytes = readFileSync(file);
    const fullBytes = time(() => extractProposalsFromBytes(bytes, undefined, { harness: 'claude-code', event: 'stop' }), fullRuns);
    // The last turn: the last corpus excerpt's lines (~10 records of a real-sized turn).
    const turnLines = sources[0].trimEnd().split('\n').length;
    const turnBytes = Buffer.byteLength(bigLines.slice(-turnLines).join('\n')) + 1;
    const head = bytes.subarray(0, bytes.length - turnBytes);
    const state = extractProposalsFromBytes(head, undefined, { harness: 'claude-code' }).state;
    const incBig = time(() => {
      const chunk = readFrom(file, state.byteOffset, bytes.length);
      extractProposalsFromBytes(chunk, state, { harness: 'claude-code', event: 'stop' });
    }, runs);
    const stateBytes = Buffer.byteLength(JSON.stringify(state));
    rows.push([
      `generated Claude Code transcript (${(bytes.length / 1024 / 1024).toFixed(1)} MB, ${bigLines.length.toLocaleString('en')} lines): whole file, first run, lines`,
      fullBig,
    ]);
    rows.push(['same, whole file, first run, from bytes', fullBytes]);
    rows.push(['same, whole file, from bytes, in a fresh process (cold code)', cold]);
    rows.push([
      `same, incremental: read the last turn (${turnLines} lines, ${(turnBytes / 1024).toFixed(1)} KB) from the state's offset and extract`,
      incBig,
      BUDGET,
    ]);

    // 2b. What a hook pays: captureProposals (sessions/proposal-store.js) with its 50 ms budget,
    // store read and atomic write included; first on the 10 MB file from its start (stops at the
    // budget), then after catching up, one appended turn per run.
    {
      const { captureProposals } = await import(pathToFileURL(join(repoDir, 'dist', 'sessions', 'proposal-store.js')).href);
      const { nodeRuntime } = await import(pathToFileURL(join(repoDir, 'dist', 'io', 'runtime.js')).href);
      const rt = nodeRuntime({ cwd: work, env: {}, home: work });
      const sessionsDir = join(work, 'sessions');
      const { mkdirSync, appendFileSync } = await import('node:fs');
      mkdirSync(sessionsDir, { mode: 0o700 });
      const hookFile = join(work, 'hook.jsonl');
      writeFileSync(hookFile, big);
      const input = { sessionsDir, shortId: 'bench', sessionId: 'bench', worktree: work, transcript: hookFile, harness: 'claude-code', event: 'stop' };
      const first = time(() => captureProposals(rt, { ...input, deadline: Date.now() + 10_000 }), 1);
      let outcome;
      do outcome = captureProposals(rt, { ...input, event: 'import', deadline: Date.now() + 60_000 });
      while (outcome.partial);
      const turn = `${bigLines.slice(-turnLines).join('\n')}\n`;
      const hookRuns = time(() => {
        appendFileSync(hookFile, turn);
        captureProposals(rt, { ...input, deadline: Date.now() + 10_000 });
      }, runs);
      rows.push(['hook: captureProposals on the 10 MB transcript from its start (extractor stops at its 50 ms budget; store write included)', first]);
      rows.push([`hook: captureProposals after one appended turn (${turnLines} lines), store read and atomic write included`, hookRuns, BUDGET]);
    }

    // 3. Import of the module in a fresh process, next to the snapshot's transcript reader (interleaved).
    const imports = { proposals: [], reader: [] };
    const importTime = (path) => {
      const r = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t=performance.now();await import(${JSON.stringify(pathToFileURL(path).href)});process.stdout.write(String(performance.now()-t))`,
        ],
        { encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
      return Number(r.stdout);
    };
    for (let i = 0; i < (quick ? 5 : 15); i++) {
      imports.proposals.push(importTime(modulePath));
      imports.reader.push(importTime(join(repoDir, 'dist', 'sessions', 'transcripts', 'read-transcript.js')));
    }
    rows.push(['import of dist/sessions/proposals/index.js in a fresh process', imports.proposals]);
    rows.push(['for comparison: import of dist/sessions/transcripts/read-transcript.js (the snapshot reader)', imports.reader]);

    const table = [
      '| run | median | p90 | runs | budget per hook run | |',
      '|---|---:|---:|---:|---:|---|',
      ...rows.map(
        ([label, xs, budget]) =>
          `| ${label} | ${ms(median(xs))} | ${ms(p90(xs))} | ${xs.length} | ${budget ? `≤ ${budget} ms` : ''} | ${budget ? (median(xs) <= budget ? '✔' : '✘') : ''} |`,
      ),
    ];
    const targets = rows
      .filter(([, , budget]) => budget)
      .map(([label, xs, budget]) => ({
        what: `proposal extractor: ${label}`,
        target: `≤ ${budget} ms (median)`,
        figure: `${ms(median(xs))} ms`,
        ok: median(xs) <= budget,
      }));
    return {
      title: 'Proposal extractor',
      markdown: [
        'In-process wall time of `extractProposals` / `extractProposalsFromBytes` (ms). A hook pays the incremental row: the lines appended since its last run, with the state of the rest (the state stays small: ' +
          `${(stateBytes / 1024).toFixed(1)} KB of JSON at the end of the 10 MB transcript).`,
        '',
        ...table,
        '',
        'A first run over a long existing transcript (the first hook after installing, on an old session) costs the whole-file rows; a hook should pass a deadline so that such a run stops within its budget and the next runs continue from the state. The module import row loads node:crypto eagerly from dist/; the hook bundle loads it only when a fingerprint is computed.',
      ].join('\n'),
      targets,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
