/**
 * Process entry of `vault hook ...`, loaded by bin/vault.js without yargs so a hook starts in a
 * few tens of milliseconds. Parses only `hook <event> [--harness H]`, reads stdin through
 * {@link readStdinPayload} (capped, with a deadline, never from a terminal), and always exits 0.
 *
 * Start-up matters here (session-start runs before the agent's first turn): the answer is written
 * to descriptor 1 synchronously instead of through `process.stdout` (whose stream loads node:net
 * and node:stream when stdout is a pipe or socket). The bundle loads Node.js builtins on first use
 * (scripts/build.mjs), so node:crypto is loaded only when a snapshot is written.
 */
import { fstatSync, readSync } from 'node:fs';
import { nodeRuntime, type Runtime } from '../io/runtime.js';
import { stdWriter } from '../io/std-output.js';
import { runHook, type HookIo, type PayloadRead } from './run-hook.js';

/** Bytes asked for per read of stdin. */
const STDIN_CHUNK = 64 * 1024;

/** This process's stdout, written synchronously (io/std-output.ts). */
const stdout = stdWriter(1, () => process.stdout);

type ReadFlags = { tooLarge?: boolean; timedOut?: boolean };

function payloadOf(chunks: Buffer[], flags: ReadFlags): PayloadRead {
  return { bytes: flags.tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge: Boolean(flags.tooLarge), timedOut: Boolean(flags.timedOut), tty: false };
}

/** Reads a regular file given as stdin (`< file`): it cannot block, so plain synchronous reads. */
function readStdinFile(maxBytes: number): PayloadRead {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(STDIN_CHUNK);
      const n = readSync(0, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) return payloadOf(chunks, { tooLarge: true });
      chunks.push(buf.subarray(0, n));
    }
  } catch {
    /* what was read so far is the payload, like an error on the stream */
  }
  return payloadOf(chunks, {});
}

/**
 * Reads stdin as a stream: pipes, sockets, terminals. (Reading descriptor 0 in the thread pool
 * instead would save loading node:net, but a read still blocked at the deadline keeps the
 * process from exiting: libuv joins its threads at exit.)
 */
function readStdinStream(maxBytes: number, waitMs: number): Promise<PayloadRead> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve({ bytes: Buffer.alloc(0), tooLarge: false, timedOut: false, tty: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (flags: ReadFlags) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.on('error', () => {});
      stdin.destroy();
      resolve(payloadOf(chunks, flags));
    };
    const timer = setTimeout(() => finish({ timedOut: true }), waitMs);
    stdin.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (total > maxBytes) finish({ tooLarge: true });
      else chunks.push(buf);
    });
    stdin.on('end', () => finish({}));
    stdin.on('error', () => finish({}));
  });
}

/**
 * Reads stdin up to `maxBytes` or until `waitMs` passed, whichever comes first. A terminal is
 * never read (a hook started by hand must not hang). A regular file (`< payload.json`) is read
 * synchronously; anything else as a stream.
 */
export function readStdinPayload(maxBytes: number, waitMs: number): Promise<PayloadRead> {
  let file = false;
  try {
    file = fstatSync(0).isFile();
  } catch {
    file = false;
  }
  return file ? Promise.resolve(readStdinFile(maxBytes)) : readStdinStream(maxBytes, waitMs);
}

/**
 * Writes the answer to descriptor 1 synchronously (it is one small JSON document). A reader that
 * went away (EPIPE) is ignored; a non-blocking descriptor that is full (EAGAIN) gets the rest
 * through the stdout stream (see io/std-output.ts).
 */
export function writeStdout(text: string): void {
  stdout.write(text);
}

/** The hook io of this process. */
export function processHookIo(): HookIo {
  return { readPayload: readStdinPayload, stdout: writeStdout, runtime: nodeRuntime() };
}

/**
 * Runs one hook for `vault hook` reached through the yargs CLI (in-process `main()`, `--help`
 * aside): the payload is this process's stdin, the answer goes to `stdout`.
 *
 * @returns always 0
 */
export function runHookCommand(event: string, harness: string | undefined, stdout: (text: string) => void, runtime: Runtime): Promise<number> {
  return runHook(event, harness, { readPayload: readStdinPayload, stdout, runtime });
}

/**
 * Runs `hook <event> [--harness H]` for this process.
 *
 * @param argv arguments after the program name, starting with "hook"
 * @returns 0
 */
export async function runHookProcess(argv: readonly string[]): Promise<number> {
  const rest = argv.slice(1);
  let harness: string | undefined;
  let event: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--harness') harness = rest[++i];
    else if (a.startsWith('--harness=')) harness = a.slice('--harness='.length);
    else if (!a.startsWith('-') && event === undefined) event = a;
  }
  // Never fail the agent: a closed stdout (EPIPE, see writeStdout) or a stray async error still
  // exits 0, and a handle that would keep the process alive cannot hold it past the budget.
  process.on('uncaughtException', () => {
    process.exitCode = 0;
  });
  setTimeout(() => process.exit(0), 15_000).unref();
  try {
    await runHook(event ?? '', harness, processHookIo());
  } catch {
    /* never fails the agent */
  }
  await stdout.flushed();
  return 0;
}
