/**
 * The git port: runs `git` for the doctor's `--changed` / `--staged` selection. Arguments go as an
 * array, never through a shell; output is bounded. Core code gets a {@link GitRunner} and never
 * spawns a process itself, so tests can hand in a fake repository.
 */
import { spawnSync } from 'node:child_process';

/** What one git run gave. `error` is set when git could not be started at all. */
export interface GitRun {
  /** exit status; null when git did not exit normally */
  status: number | null;
  stdout: Buffer;
  stderr: string;
  /** why git could not be run (an errno code such as ENOENT, or a message) */
  error?: string;
}

/**
 * Runs git in `cwd` with `args`, optionally feeding `input` on stdin.
 *
 * @returns the exit status and output; never throws
 */
export type GitRunner = (cwd: string, args: readonly string[], input?: string) => GitRun;

/** Largest output read from one git run (bytes). */
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs the `git` on PATH. */
export const runGit: GitRunner = (cwd, args, input) => {
  const r = spawnSync('git', [...args], { cwd, maxBuffer: MAX_OUTPUT, ...(input !== undefined ? { input } : {}) });
  const error = r.error ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message) : undefined;
  return { status: r.status, stdout: r.stdout ?? Buffer.alloc(0), stderr: r.stderr?.toString('utf8') ?? '', ...(error !== undefined ? { error } : {}) };
};
