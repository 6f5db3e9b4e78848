/**
 * The one safe read of a vault file (memories, the project .gitignore, a body file, a template):
 * never through a symbolic link (O_NOFOLLOW), never from a FIFO or device (the regular-file check
 * is made on the opened handle, opened with O_NONBLOCK), and bounded. It reads to end of file
 * whatever size the file reports (procfs files report 0 bytes).
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
): { ok: true; bytes: Buffer; size: number; mtimeMs: number; nlink: number } | { ok: false; code: string; size?: number } {
  let fd: number | undefined;
  try {
    fd = openSync(absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, code: 'not-a-regular-file' };
    if (st.size > maxBytes) return { ok: false, code: 'too-large', size: st.size };
    // Read to EOF whatever the size says: procfs and sysfs files report 0 bytes and still hold
    // text, and a file may grow between fstat and read. Bounded: at most maxBytes + 1 bytes.
    let buf = Buffer.allocUnsafe(Math.min(st.size > 0 ? st.size + 1 : 4096, maxBytes + 1));
    let off = 0;
    for (;;) {
      if (off === buf.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(bigger, 0, 0, off);
        buf = bigger;
      }
      const n = readSync(fd, buf, off, buf.length - off, null);
      if (n === 0) break;
      off += n;
      if (off > maxBytes) return { ok: false, code: 'too-large', size: off };
    }
    return { ok: true, bytes: buf.subarray(0, off), size: off, mtimeMs: st.mtimeMs, nlink: st.nlink };
  } catch (err) {
    return { ok: false, code: (err as NodeJS.ErrnoException).code ?? 'read-error' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
