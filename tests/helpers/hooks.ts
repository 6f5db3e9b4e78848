/**
 * Helpers for hook tests: run `vault hook <event>` with a JSON payload (in-process through the
 * hook runner, or with `bin: true` as the real binary and its hook bundle), and look at the
 * sessions folder and the vault afterwards.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, runBin, runCli, type RunResult } from './cli.js';

/** Our synthetic transcripts in the harnesses' formats (what each holds: tests/fixtures/transcripts/README.md). */
export const T = join(FIXTURES, 'transcripts');
/** Claude Code 1.x: Japanese slash-command goal, inline sidechain subagent, 3 tool errors; snapshot 2025-10-14-8e1a4b37 */
export const CLAUDE_SESSION = join(T, 'claude/projects/-work-shop/7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37.jsonl');
/** Claude Code 2.1: a rewind, then a compaction; session id k2; snapshot 2025-08-12-compact */
export const CLAUDE_DAG = join(T, 'claude/projects/-work-queue/fork-and-compact.jsonl');
/** Claude Code: records a reader must survive */
export const CLAUDE_ODD = join(T, 'claude/projects/-tmp/odd-records.jsonl');
/** Claude Code 2.1: subagents in <sessionId>/subagents/agent-*.jsonl */
export const CLAUDE_SUBAGENTS = join(T, 'claude/projects/-work-atlas/3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115.jsonl');
/** Codex 0.58 shapes, ends mid-task; snapshot 2025-10-03-2b6d9f01 */
export const CODEX_OLD = join(T, 'codex/sessions/2025/10/03/rollout-2025-10-03T09-12-44-0199a1c2-7b3e-7d10-a4f5-3c8e2b6d9f01.jsonl');
/** Codex current shapes; snapshot 2026-02-11-00001111 */
export const CODEX_CURRENT = join(T, 'codex/sessions/2026/02/11/rollout-2026-02-11T16-20-00-aaaabbbb-cccc-4ddd-8eee-ffff00001111.jsonl');

/** Runs one hook with `payload` (an object is JSON-encoded; a string or Buffer is sent as is). */
export function hook(
  event: string,
  payload: unknown,
  opts: { cwd: string; env: Record<string, string>; harness?: string; timeoutMs?: number; bin?: boolean },
): Promise<RunResult> {
  const input = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
  return (opts.bin ? runBin : runCli)(['hook', event, ...(opts.harness ? ['--harness', opts.harness] : [])], {
    cwd: opts.cwd,
    env: opts.env,
    input,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
}

/** The sessions folder of a test environment. */
export function sessionsDirOf(env: Record<string, string>): string {
  return env.ECC_SESSIONS_DIR ?? join(env.HOME!, '.ecc', 'sessions');
}

/** Names of the snapshot files in the sessions folder. */
export function snapshotNames(env: Record<string, string>): string[] {
  const dir = sessionsDirOf(env);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith('-session.tmp'))
        .sort()
    : [];
}

/** Every file under a folder (recursive), relative paths. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name).slice(dir.length + 1))
    .sort();
}

/** The additionalContext of a session-start answer (asserting its exact shape). */
export function contextOf(stdout: string): string {
  const doc = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  if (Object.keys(doc).join() !== 'hookSpecificOutput' || doc.hookSpecificOutput.hookEventName !== 'SessionStart')
    throw new Error(`unexpected answer: ${stdout}`);
  return doc.hookSpecificOutput.additionalContext;
}
