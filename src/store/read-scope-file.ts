/**
 * The safe read of one memory file named by the index or a search hit: like
 * {@link readFileSafe}, and also never through a folder that became a link after the index or the
 * scan saw it.
 */
import { basename, dirname } from 'node:path';
import type { Scope } from '../document/contract.js';
import { DirHandle, isLinkRefusal } from './dir-handle.js';
import { readFileSafe } from './read-file-safe.js';
import { guardedDirs, type VaultRoots } from './roots.js';

/**
 * Reads one file of a scope, given by its path inside the scope folder (`notes/mem_x.md`, `/`
 * separated, as the index and search hits hold it). Each folder on the way (`.ecc`,
 * `.ecc/memory`, the scope, the kind folder) is opened from its parent's handle without following
 * a link (store/dir-handle.ts), so a folder swapped for a link after it was checked is never
 * followed: nothing outside the vault is read. Without procfs the folders are re-checked by
 * dev/ino after the read, and a change refuses the bytes.
 *
 * @param maxBytes at most this many bytes (a larger file is reported by size, never read)
 * @returns as {@link readFileSafe}; `code: 'symlink-refused'` when a folder on the way is a link
 *   or not a folder (or changed during the read), `invalid-path` for a path with an empty, `.` or
 *   `..` segment
 */
export function readScopeFile(roots: VaultRoots, scope: Scope, relPath: string, maxBytes: number): ReturnType<typeof readFileSafe> {
  const segments = relPath.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) return { ok: false, code: 'invalid-path' };
  const name = segments.pop()!;
  const guarded = guardedDirs(roots, scope);
  let dir: DirHandle;
  try {
    dir = DirHandle.open(dirname(guarded[0]!), [...guarded.map((d) => basename(d)), ...segments]);
  } catch (err) {
    return { ok: false, code: isLinkRefusal(err) ? 'symlink-refused' : ((err as NodeJS.ErrnoException).code ?? 'read-error') };
  }
  try {
    const read = readFileSafe(dir.child(name), maxBytes);
    return dir.stillThere() ? read : { ok: false, code: 'symlink-refused' };
  } finally {
    dir.close();
  }
}
