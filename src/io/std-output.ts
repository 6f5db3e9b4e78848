/**
 * The process's standard output and error, written synchronously to descriptors 1 and 2 without
 * building `process.stdout` / `process.stderr`: for a pipe or a socket those streams load
 * node:net and node:stream, and asking `isTTY` loads node:tty (which loads node:net), together
 * ~5 ms of a one-shot command's start-up on the 2-core machine (CPU profile of `vault search`).
 * The CLI's lean path and the hooks write through here.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

/** A writer of one standard descriptor. */
export interface StdWriter {
  /** Writes `text` (UTF-8) in full, synchronously when the descriptor takes it (see {@link stdWriter}). */
  write(text: string): void;
  /** Settles once text handed to the stream fallback has been flushed (at once when there was none). */
  flushed(): Promise<void>;
  /**
   * The error code of a write that failed for another reason than a reader that went away
   * (`ENOSPC` on a full disk, `EIO`, `EBADF` for a closed descriptor), or undefined: output was
   * lost, which a command must not report as success.
   */
  failure(): string | undefined;
}

/**
 * A synchronous writer of descriptor `fd`. A reader that went away (EPIPE) ends the output
 * quietly: later writes are dropped (a caller piping into `head -1` is not an error of ours). Any
 * other failure (a full disk, EIO, a closed descriptor) drops later writes too and is kept for
 * {@link StdWriter.failure}, so the command can say so and exit non-zero. A non-blocking descriptor that is full (EAGAIN) gets
 * the rest, and everything after it in order, through the Node.js stream `stream()`.
 *
 * @param fd 1 (stdout) or 2 (stderr)
 * @param stream the descriptor's Node.js stream, built only for the EAGAIN fallback
 * @param write the synchronous write (fs.writeSync; tests pass one that fails)
 */
export function stdWriter(fd: 1 | 2, stream: () => NodeJS.WritableStream, write: typeof writeSync = writeSync): StdWriter {
  let closed = false;
  let failed: string | undefined;
  const fail = (err: unknown) => {
    closed = true;
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'EPIPE') failed ??= code ?? 'EIO';
  };
  let fallback: NodeJS.WritableStream | undefined;
  let flushed: Promise<void> = Promise.resolve();
  const viaStream = (buf: Buffer) => {
    if (!fallback) {
      fallback = stream();
      fallback.on('error', fail);
    }
    const s = fallback;
    const before = flushed;
    flushed = new Promise<void>((resolve) => {
      s.write(buf, () => resolve());
    }).then(() => before);
  };
  return {
    write(text) {
      if (closed || text === '') return;
      const buf = Buffer.from(text, 'utf8');
      if (fallback) return viaStream(buf);
      let off = 0;
      try {
        while (off < buf.length) off += write(fd, buf, off, buf.length - off);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') viaStream(buf.subarray(off));
        else fail(err);
      }
    },
    flushed: () => flushed,
    failure: () => failed,
  };
}

/**
 * Whether descriptor `fd` is a terminal. A descriptor that is not a character device (a pipe, a
 * file, a socket: how agents and scripts run the CLI) or is /dev/null (`> /dev/null`) is answered
 * from one or two stats; only another character device (a terminal) loads node:tty to ask (the
 * start-up bundles load node:tty on first call: scripts/build.mjs).
 */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice() || st.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false;
  } catch {
    return false;
  }
  return isatty(fd);
}
