// Lifecycle hook latency and transcript parse throughput.
//
// 1. `vault hook session-start` as a fresh process (node start-up included), median wall time over
//    repeated runs, with 1,000 session snapshots in the sessions folder (999 of other worktrees,
//    all newer than this worktree's oldest one) and a vault of 200 memories for the title list.
//    Measured twice: right after this worktree's own session wrote its snapshot (the usual case:
//    the worktree's start record is valid), and after another worktree's session wrote one since
//    (the full path: snapshot index and title cache).
// 2. `vault hook stop` on the largest transcript fixture (Codex rollout, 187 KB).
// 3. Transcript parse throughput (MB/s) in-process: the largest fixture read repeatedly, and a
//    64 MiB transcript built from the real Claude Code fixture's lines (the streaming path).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const shared = join(repoDir, '..', 'shared', 'fixtures', 'transcripts');
const CODEX_REAL = join(shared, 'codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
const CLAUDE_REAL = join(shared, 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const CLAUDE_DAG = join(shared, 'claude/projects/-tmp/dag_compact_after_rewind.jsonl');

const dist = (p) => import(pathToFileURL(join(repoDir, 'dist', p)).href);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))];
};

/** A Codex stop hook answers `{}`, or only a `systemMessage` (the review notice when the session left proposals). */
function stopAnswer(out) {
  try {
    const j = JSON.parse(out);
    return j !== null && typeof j === 'object' && Object.keys(j).every((k) => k === 'systemMessage');
  } catch {
    return false;
  }
}

function timeProcess(args, { cwd, env, input, runs, check }) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd, env, input, encoding: 'utf8' });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (check && !check(r.stdout)) throw new Error(`${args.join(' ')}: unexpected output ${r.stdout.slice(0, 200)}`);
  }
  return ms;
}

export async function run({ quick }) {
  const runs = quick ? 7 : 25;
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-hooks-'));
  try {
    const repo = join(work, 'repo');
    mkdirSync(repo);
    spawnSync('git', ['init', '-q', '-b', 'main', repo]);
    const home = join(work, 'home');
    const sessions = join(home, '.ecc', 'sessions');
    mkdirSync(sessions, { recursive: true, mode: 0o700 });
    const env = { ...process.env, HOME: home, ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory'), NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('ECC_') && k !== 'ECC_MEMORY_USER_ROOT') delete env[k];

    // 1,000 snapshots: this worktree's is the oldest.
    const { renderSnapshot } = await dist('sessions/snapshots/snapshot.js');
    const { realpathSync } = await import('node:fs');
    const here = realpathSync(repo);
    const now = Date.now();
    for (let i = 0; i < 1000; i++) {
      const mine = i === 999;
      const shortId = `${i.toString(16).padStart(8, '0')}`;
      const text = renderSnapshot({
        project: mine ? 'repo' : `project-${i % 40}`,
        worktree: mine ? here : `/work/other/project-${i % 40}/wt-${i}`,
        repo: mine ? join(here, '.git') : `/work/other/project-${i % 40}/.git`,
        branch: `branch-${i}`,
        sessionId: `session-${i}`,
        shortId,
        harness: i % 2 ? 'codex' : 'claude-code',
        transcript: `/home/u/.claude/projects/x/${shortId}.jsonl`,
        startedAt: new Date(now - 86_400_000).toISOString(),
        updatedAt: new Date(now - i * 60_000).toISOString(),
        lastEvent: 'stop',
        updates: 3,
        goal: `Goal of session ${i}: make the search index incremental`,
        requests: Array.from({ length: 8 }, (_, k) => `request ${k} of session ${i}`),
        notes: ['Context compacted (auto, 150000 tokens before)'],
        files: Array.from({ length: 30 }, (_, k) => `src/module-${k}/file-${i}.ts`),
        commands: Array.from({ length: 20 }, (_, k) => `npm test -- tests/case-${k}.test.ts`),
        openItems: ['[pending] benchmark', '[in_progress] docs'],
        problems: [],
        lastState: `Session ${i} ended with the index rebuilt and two tests failing.`,
        readNote: undefined,
      });
      const file = join(sessions, `2026-11-0${1 + (i % 9)}-${shortId}-session.tmp`);
      writeFileSync(file, text, { mode: 0o600 });
      const t = new Date(now - 3_600_000 - i * 60_000);
      utimesSync(file, t, t);
    }

    // A vault of 200 memories (written with the library, create-only).
    const { save } = await dist('operations/save.js');
    const { resolveRoots } = await dist('store/roots.js');
    const { nodeRuntime } = await dist('io/runtime.js');
    const rt = nodeRuntime({ cwd: repo, env });
    const roots = resolveRoots(rt);
    const titles = [];
    for (let i = 0; i < 200; i++) {
      const words = i % 3 ? 'search index layout' : i % 2 ? 'orchestrator updates CLAUDE.md' : 'session hooks budget';
      const saved = await save(
        roots,
        { title: `Decision ${i}: ${words}`, body: `Body ${i}.`, kind: i % 2 ? 'decision' : 'note', scope: i % 4 ? 'project' : 'team', tags: ['bench'] },
        rt,
      );
      titles.push(saved.absPath);
    }
    // A vault is not written within the last 2 s of a session start (the racy window of the caches).
    const hourAgo = new Date(now - 3_600_000);
    for (const p of titles) for (const q of [p, dirname(p), dirname(dirname(p))]) utimesSync(q, hourAgo, hourAgo);

    const hookRun = (event, payload, cwd, extraEnv = {}) => {
      const r = spawnSync(process.execPath, [bin, 'hook', event], { cwd, env: { ...env, ...extraEnv }, input: JSON.stringify(payload), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`hook ${event} exited ${r.status}: ${r.stderr}`);
    };
    // This worktree's session ends: its snapshot and start record are written by the real hook.
    hookRun('stop', { session_id: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7', transcript_path: CLAUDE_REAL, cwd: repo, hook_event_name: 'Stop' }, repo);

    const startInput = JSON.stringify({
      session_id: 'bench',
      transcript_path: join(work, 'none.jsonl'),
      cwd: repo,
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    const injected = (out) =>
      out.includes('BEGIN PRIOR-SESSION SUMMARY') && out.includes('/orchestrator @CLAUDE.md') && out.includes('UNREVIEWED VAULT MEMORIES');
    const rows = [];
    const add = (what, ms) => rows.push(`| ${what} | ${median(ms).toFixed(0)} | ${p90(ms).toFixed(0)} |`);
    /** session-start and bare node, interleaved so machine load affects both alike: [node, hook] ms. */
    const interleaved = () => {
      const node = [];
      const hook = [];
      for (let i = 0; i < runs; i++) {
        node.push(...timeProcess(['-e', '0'], { cwd: repo, env, runs: 1 }));
        hook.push(...timeProcess([bin, 'hook', 'session-start'], { cwd: repo, env, input: startInput, runs: 1, check: injected }));
      }
      return [node, hook];
    };
    const [nodeMs, start] = interleaved();
    add('`node -e 0` (Node.js start-up alone)', nodeMs);
    add('`vault hook session-start`, 1,000 snapshots, 200 memories, after this worktree’s session (start record)', start);
    rows.push(`| hook time beyond Node.js start-up (difference of the medians) | ${(median(start) - median(nodeMs)).toFixed(0)} | |`);

    // Another worktree's session writes a snapshot: this worktree's start record no longer holds.
    const other = join(work, 'other');
    mkdirSync(other);
    spawnSync('git', ['init', '-q', '-b', 'main', other]);
    hookRun('stop', { session_id: 'other-session', transcript_path: CLAUDE_DAG, cwd: other, hook_event_name: 'Stop' }, other);
    const [nodeMs2, full] = interleaved();
    add('`node -e 0` (again, interleaved with the next row)', nodeMs2);
    add('the same after another worktree’s session wrote a snapshot (full path: snapshot index; the digest record still holds)', full);
    add(
      'the full path with `ECC_SESSION_START_MEMORIES=off`',
      timeProcess([bin, 'hook', 'session-start'], {
        cwd: repo,
        env: { ...env, ECC_SESSION_START_MEMORIES: 'off' },
        input: startInput,
        runs,
        check: (o) => o.includes('/orchestrator @CLAUDE.md'),
      }),
    );
    add(
      '`vault hook session-start` with source `resume` (prune only, no injection)',
      timeProcess([bin, 'hook', 'session-start'], { cwd: repo, env, input: startInput.replace('"startup"', '"resume"'), runs, check: (o) => o === '' }),
    );
    const stopInput = JSON.stringify({ session_id: '019a93b9-f380-7600-98ff-940e6b99603c', transcript_path: CODEX_REAL, cwd: repo, hook_event_name: 'Stop' });
    add(
      '`vault hook stop --harness codex` (187 KB rollout, snapshot update)',
      timeProcess([bin, 'hook', 'stop', '--harness', 'codex'], { cwd: repo, env, input: stopInput, runs, check: stopAnswer }),
    );

    // Parse throughput, in-process.
    const { readTranscript } = await dist('sessions/transcripts/read-transcript.js');
    const fixtureBytes = statSync(CODEX_REAL).size;
    const reps = quick ? 40 : 200;
    readTranscript(CODEX_REAL, { harness: 'codex' });
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) readTranscript(CODEX_REAL, { harness: 'codex' });
    const fixtureMBs = (fixtureBytes * reps) / 1024 / 1024 / (Number(process.hrtime.bigint() - t0) / 1e9);

    const big = join(work, 'big-0000-4000-8000-000000000001.jsonl');
    const lines = readFileSync(CLAUDE_REAL, 'utf8');
    const target = quick ? 16 * 1024 * 1024 : 64 * 1024 * 1024;
    const copies = Math.ceil(target / Buffer.byteLength(lines));
    writeFileSync(big, lines.repeat(copies));
    const bigBytes = statSync(big).size;
    t0 = process.hrtime.bigint();
    const s = readTranscript(big, { harness: 'claude-code', maxBytes: bigBytes + 1 });
    const bigSec = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s.records !== 53 * copies) throw new Error(`expected ${53 * copies} records, got ${s.records}`);
    const bigMBs = bigBytes / 1024 / 1024 / bigSec;

    const markdown = [
      `Wall time of one hook process, ${runs} runs each (ms), interleaved with \`node -e 0\`. Sessions folder: 1,000 snapshots (999 of other worktrees, all newer than this worktree's oldest one); vault: 200 memories. Then this worktree's session writes its snapshot through the real stop hook (real Claude Code transcript), as a session's end does; the next rows start a session there.`,
      '',
      '| hook | median | p90 |',
      '|---|---|---|',
      ...rows,
      '',
      '| transcript parse (in-process) | MB/s |',
      '|---|---|',
      `| largest fixture (Codex rollout, ${(fixtureBytes / 1024).toFixed(0)} KB) × ${reps} | ${fixtureMBs.toFixed(0)} |`,
      `| ${(bigBytes / 1024 / 1024).toFixed(0)} MiB Claude Code transcript (real fixture lines repeated), streamed in 1 MiB chunks | ${bigMBs.toFixed(0)} |`,
    ].join('\n');
    return {
      title: 'Session hooks',
      markdown,
      readme: `session-start hook with 1,000 snapshots and 200 memories: median ${median(start).toFixed(0)} ms wall after the worktree's own session, ${median(full).toFixed(0)} ms after another worktree's (Node.js start-up alone: ${median(nodeMs).toFixed(0)} / ${median(nodeMs2).toFixed(0)} ms); transcript parsing ${fixtureMBs.toFixed(0)} MB/s on the largest fixture, ${bigMBs.toFixed(0)} MB/s streaming ${(bigBytes / 1024 / 1024).toFixed(0)} MiB`,
    };
  } finally {
    // VAULT_BENCH_KEEP=1 keeps the folders for profiling (the path is printed)
    if (process.env.VAULT_BENCH_KEEP === '1') console.error(`bench: hooks work folder kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}
