/**
 * Process entry of `vault hook ...`, loaded by bin/vault.js without yargs so a hook starts in a
 * few tens of milliseconds. Parses only `hook <event> [--harness H]`, reads stdin through
 * {@link readStdinPayload} (capped, with a deadline, never from a terminal), and always exits 0.
 */
import { nodeRuntime } from '../io/runtime.js';
import { runHook, type HookIo, type PayloadRead } from './run-hook.js';

/**
 * Reads stdin up to `maxBytes` or until `waitMs` passed, whichever comes first. A terminal is
 * never read (a hook started by hand must not hang).
 */
export function readStdinPayload(maxBytes: number, waitMs: number): Promise<PayloadRead> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve({ bytes: Buffer.alloc(0), tooLarge: false, timedOut: false, tty: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (flags: { tooLarge?: boolean; timedOut?: boolean }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.on('error', () => {});
      stdin.destroy();
      resolve({ bytes: flags.tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge: Boolean(flags.tooLarge), timedOut: Boolean(flags.timedOut), tty: false });
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

/** The hook io of this process. */
export function processHookIo(): HookIo {
  return {
    readPayload: readStdinPayload,
    stdout: (text) => {
      process.stdout.write(text);
    },
    runtime: nodeRuntime(),
  };
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
  // Never fail the agent: a closed stdout (EPIPE) or a stray async error still exits 0, and a
  // handle that would keep the process alive cannot hold it past the budget.
  process.stdout.on('error', () => {});
  process.on('uncaughtException', () => {
    process.exitCode = 0;
  });
  setTimeout(() => process.exit(0), 15_000).unref();
  try {
    return await runHook(event ?? '', harness, processHookIo());
  } catch {
    return 0;
  }
}
