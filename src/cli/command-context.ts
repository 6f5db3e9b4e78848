/**
 * What every CLI command receives: the process's streams and environment as values, so the
 * CLI runs the same in-process (tests) and as a binary.
 */
import { EXIT, VaultError, isVaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import type { VaultRoots } from '../store/roots.js';
import type { SaveResult } from '../operations/save.js';
import { sanitizeTerminalText } from '../unicode/terminal-text.js';

/** The process seen by the CLI. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** reads standard input completely, at most `maxBytes` (more → error) */
  readStdin(maxBytes: number): Promise<Buffer>;
  /** true when stdout is a terminal (colour, progress bars) */
  stdoutIsTTY: boolean;
  /** true when stderr is a terminal (the progress of a long index build is drawn there) */
  stderrIsTTY?: boolean;
  /**
   * one key pressed on the terminal (stdin and stdout both terminals), as the characters it
   * sends; absent when stdin is not a terminal (`vault review`'s one-key loop needs it)
   */
  readKey?: () => Promise<string>;
  runtime: Runtime;
}

/** Shared state of one CLI invocation. */
export interface CliContext {
  io: CliIo;
  /** set by a command handler */
  exitCode: number;
}

/** Flags every command accepts. */
export interface GlobalArgs {
  json?: boolean;
  root?: string;
  'user-root'?: string;
}

/**
 * Resolves the vault roots from global flags and the environment.
 *
 * @param options `here`: the working directory is the vault's folder (`vault init --here`)
 */
export async function rootsFor(ctx: CliContext, argv: GlobalArgs, options: { here?: boolean } = {}): Promise<VaultRoots> {
  // yargs turns a repeated string flag into an array
  for (const flag of ['root', 'user-root'] as const) {
    if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
  }
  const { resolveRoots } = await import('../store/roots.js');
  return resolveRoots(ctx.io.runtime, { root: argv.root, userRoot: argv['user-root'], ...(options.here ? { here: true } : {}) });
}

/** Prints a value as 2-space JSON on stdout. */
export function printJson(ctx: CliContext, value: unknown): void {
  ctx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints human text on stdout, with terminal control and bidi characters removed. */
export function printText(ctx: CliContext, text: string): void {
  ctx.io.stdout(`${sanitizeTerminalText(text)}\n`);
}

/**
 * Prints what a save wrote (save, new, handoff): `Saved unreviewed <kind> <id>`, its vault path
 * (`<scope>/<kind>s/<id>.md`), for the user scope the file itself (that vault has no scope
 * folder: `~/.ecc/memory/<kind>s/`), and for the team scope the `git add` to commit it.
 */
export function printSaved(ctx: CliContext, result: SaveResult, roots: VaultRoots): void {
  const m = result.memory;
  printText(ctx, `${result.written ? 'Saved' : 'Dry run: would save'} unreviewed ${m.kind} ${m.id}`);
  printText(ctx, `  path: ${result.path}`);
  if (m.scope === 'user') printText(ctx, `  file: ${result.absPath}`);
  if (m.scope === 'team' && result.written)
    printText(
      ctx,
      `  commit it: git add ${result.absPath.startsWith(`${roots.worktreeRoot}/`) ? result.absPath.slice(roots.worktreeRoot.length + 1) : result.absPath}`,
    );
}

/**
 * Reports an error the way every command does: with `--json`, `{"error":{code,message,...}}` on
 * stdout; otherwise `error: <message>` and `hint: <hint>` on stderr. Returns the exit code.
 */
export function reportError(ctx: CliContext, err: unknown, json: boolean): number {
  if (isVaultError(err)) {
    if (json) printJson(ctx, { error: err.toJSON() });
    else {
      ctx.io.stderr(`error: ${sanitizeTerminalText(err.message)}\n`);
      if (err.hint) ctx.io.stderr(`hint: ${sanitizeTerminalText(err.hint)}\n`);
    }
    return err.exitCode;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  if (json) printJson(ctx, { error: { code: 'internal', message: e.message } });
  ctx.io.stderr(`internal error: ${sanitizeTerminalText(e.message)}\n${e.stack ?? ''}\nThis is a bug; please report it with the command you ran.\n`);
  return EXIT.internal;
}

/** Throws a usage error (exit 2). */
export function usageError(message: string, hint?: string): never {
  throw new VaultError('usage', message, hint ? { hint } : {});
}

/**
 * Runs a command body and records its exit code; errors are reported here, once.
 *
 * @param fn returns the exit code (default 0)
 */
export async function runCommand(ctx: CliContext, argv: GlobalArgs, fn: () => Promise<number | void>): Promise<void> {
  try {
    ctx.exitCode = (await fn()) ?? 0;
  } catch (err) {
    ctx.exitCode = reportError(ctx, err, Boolean(argv.json));
  }
}

/**
 * The stream a cli-progress bar draws on: this invocation's stderr (process.stderr for the
 * binary), seen as an 80-column terminal. Callers draw only when `ctx.io.stderrIsTTY`.
 */
export function progressStream(ctx: CliContext): NodeJS.WritableStream {
  return {
    isTTY: true,
    columns: 80,
    write: (text: string) => {
      ctx.io.stderr(text);
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
  } as unknown as NodeJS.WritableStream;
}
