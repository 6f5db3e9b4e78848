/**
 * The one safe read of a vault file (memories, the project .gitignore, a body file, a template):
 * never through a symbolic link (O_NOFOLLOW), never from a FIFO or device (the regular-file check
 * is made on the opened handle, opened with O_NONBLOCK), and bounded.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Reads one file safely: no symlink (O_NOFOLLOW), no FIFO or device (regular-file check after
 * open with O_NONBLOCK), at most `maxBytes` (a larger file is reported by size, never read).
 *
 * @returns the bytes and stat info, or an error code
 */
export function readFileSafe(
  absPath: string,
  maxBytes: number,
): { ok: true; bytes: Buffer; size: number; mtimeMs: number } | { ok: false; code: string; size?: number } {
  let fd: number | undefined;
  try {
    fd = openSync(absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, code: 'not-a-regular-file' };
    if (st.size > maxBytes) return { ok: false, code: 'too-large', size: st.size };
    const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
    let off = 0;
    for (;;) {
      const n = readSync(fd, buf, off, buf.length - off, null);
      if (n === 0) break;
      off += n;
      if (off > maxBytes) return { ok: false, code: 'too-large', size: off };
      if (off === buf.length) break;
    }
    return { ok: true, bytes: buf.subarray(0, off), size: off, mtimeMs: st.mtimeMs };
  } catch (err) {
    return { ok: false, code: (err as NodeJS.ErrnoException).code ?? 'read-error' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
