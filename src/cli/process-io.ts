/**
 * The Node.js process adapter of the CLI: real streams, real environment. Kept apart from
 * run-cli.ts (which loads the yargs CLI) so the lean start-up path can use it without yargs.
 */
import { EXIT } from '../errors.js';
import { nodeRuntime } from '../io/runtime.js';
import { isTerminal, stdWriter } from '../io/std-output.js';
import type { CliIo } from './command-context.js';

/** Reads stdin to the end, stopping after `maxBytes` (the caller treats that many as too large). */
async function readStdin(maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    chunks.push(buf);
    total += buf.length;
    if (total >= maxBytes) break;
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/** One key from a terminal: raw mode for one chunk, then back (Ctrl-C comes back as \u0003). */
function readKey(): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    stdin.setRawMode(true);
    stdin.resume();
    stdin.once('data', (d: Buffer) => {
      stdin.setRawMode(false);
      stdin.pause();
      resolve(d.toString('utf8'));
    });
  });
}

/** This process's stdout and stderr, written synchronously (see io/std-output.ts); one pair per process, so writes stay in order. */
let std: { out: ReturnType<typeof stdWriter>; err: ReturnType<typeof stdWriter> } | undefined;

/**
 * Why this process's output was lost, or undefined: a write to stdout or stderr failed for
 * another reason than a reader that went away (see io/std-output.ts). The entry points turn it
 * into exit 7 with `error: cannot write the output (ENOSPC)` on stderr (as `ls` does).
 */
export function outputFailure(): string | undefined {
  return std?.out.failure() ?? std?.err.failure();
}

/**
 * The exit code of a command whose output may have been lost: `code`, or {@link EXIT.io} with a
 * message on stderr (when stderr still takes one) when a write failed ({@link outputFailure}).
 */
export function exitAfterOutput(code: number): number {
  const failure = outputFailure();
  if (failure === undefined) return code;
  std?.err.write(`error: cannot write the output (${failure})\n`);
  return code === EXIT.ok ? EXIT.io : code;
}

/**
 * The CLI's io for this process. Output goes to descriptors 1 and 2 synchronously, without
 * building `process.stdout` / `process.stderr` (~5 ms of the lean path's start-up); a reader that
 * went away (`vault read ID | head -1`) ends the output quietly.
 */
export function nodeCliIo(): CliIo {
  std ??= { out: stdWriter(1, () => process.stdout), err: stdWriter(2, () => process.stderr) };
  const { out, err } = std;
  const stdoutIsTTY = isTerminal(1);
  return {
    stdout: (t) => out.write(t),
    stderr: (t) => err.write(t),
    readStdin,
    stdoutIsTTY,
    stderrIsTTY: isTerminal(2),
    // stdout first: reading process.stdin builds its stream (~2 ms), needless when stdout is a pipe
    ...(stdoutIsTTY && isTerminal(0) ? { readKey } : {}),
    runtime: nodeRuntime(),
  };
}

/**
 * A reader that went away (`vault read ID | head -1`) is not an error of ours: stop writing
 * quietly instead of dying with an unhandled EPIPE stack trace.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
}
