/**
 * Helpers for hook tests: run `vault hook <event>` as a subprocess with a JSON payload, and look
 * at the sessions folder and the vault afterwards.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, SHARED, type RunResult } from '../helpers.js';

export const T = join(SHARED, 'fixtures', 'transcripts');
export const CLAUDE_REAL = join(T, 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
export const CLAUDE_DAG = join(T, 'claude/projects/-tmp/dag_compact_after_rewind.jsonl');
export const CLAUDE_EDGE = join(T, 'claude/projects/-tmp/edge_cases.jsonl');
export const CODEX_REAL = join(T, 'codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
export const CODEX_SYNTH = join(T, 'codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');

/** Runs one hook with `payload` (an object is JSON-encoded; a string or Buffer is sent as is). */
export function hook(
  event: string,
  payload: unknown,
  opts: { cwd: string; env: Record<string, string>; harness?: string; timeoutMs?: number },
): Promise<RunResult> {
  const input = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
  return runCli(['hook', event, ...(opts.harness ? ['--harness', opts.harness] : [])], {
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
