/**
 * The safe read of memory files named by the index, a search hit or an earlier walk: like
 * {@link readFileSafe}, and also never through a folder that became a link after the index or the
 * scan saw it. Every read of a vault file by its scope path goes through here.
 */
import { basename, dirname } from 'node:path';
import type { Scope } from '../document/contract.js';
import { DirHandle, isLinkRefusal, usesProcFd } from './dir-handle.js';
import { readFileSafe } from './read-file-safe.js';
import { guardedDirs, type VaultRoots } from './roots.js';

type ReadResult = ReturnType<typeof readFileSafe>;

/** Reads files of one scope in turn (see {@link openScopeReader}); close it when done. */
export interface ScopeReader {
  /** as {@link readScopeFile} */
  read(relPath: string, maxBytes: number): ReadResult;
  close(): void;
}

/** Folders a reader keeps open at most (the kind folders and a few subfolders); more closes them all first. */
const HELD_MAX = 32;

/**
 * A reader of one scope's files that keeps the folders it opened open until it is closed, so that
 * reading a whole folder (the index build, a refresh) or the hits of a search (spread over the
 * kind folders) opens each folder once, not once per file. The scope folder is opened with each
 * folder on the way (`.ecc`, `.ecc/memory`, the scope) from its parent's handle without following
 * a link (store/dir-handle.ts), and each kind folder and subfolder from the scope's handle the same
 * way, so a folder swapped for a link after it was checked is never followed: nothing outside the
 * vault is read. Without procfs the folders are re-checked by dev/ino after each read, and a
 * change refuses the bytes (and drops the folder, so the next read opens it again).
 */
export function openScopeReader(roots: VaultRoots, scope: Scope): ScopeReader {
  const guarded = guardedDirs(roots, scope);
  let base: DirHandle | undefined;
  const held = new Map<string, DirHandle>();
  const close = () => {
    for (const h of held.values()) h.close();
    held.clear();
    base?.close();
    base = undefined;
  };
  const folder = (segments: readonly string[]): DirHandle => {
    const key = segments.join('/');
    const known = key === '' ? base : held.get(key);
    if (known) return known;
    if (held.size >= HELD_MAX) close();
    base ??= DirHandle.open(
      dirname(guarded[0]!),
      guarded.map((d) => basename(d)),
    );
    if (key === '') return base;
    let h = base;
    try {
      for (const s of segments) {
        const next = h.openDir(s);
        if (h !== base) h.close();
        h = next;
      }
    } catch (err) {
      if (h !== base) h.close();
      throw err;
    }
    held.set(key, h);
    return h;
  };
  const drop = (segments: readonly string[]) => {
    const key = segments.join('/');
    if (key === '') close();
    else {
      held.get(key)?.close();
      held.delete(key);
    }
  };
  return {
    read(relPath, maxBytes) {
      const segments = relPath.split('/');
      if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) return { ok: false, code: 'invalid-path' };
      const name = segments.pop()!;
      let dir: DirHandle;
      try {
        dir = folder(segments);
      } catch (err) {
        return { ok: false, code: isLinkRefusal(err) ? 'symlink-refused' : ((err as NodeJS.ErrnoException).code ?? 'read-error') };
      }
      const read = readFileSafe(dir.child(name), maxBytes);
      if (!usesProcFd() && !dir.stillThere()) {
        drop(segments);
        return { ok: false, code: 'symlink-refused' };
      }
      return read;
    },
    close,
  };
}

/**
 * Reads one file of a scope, given by its path inside the scope folder (`notes/mem_x.md`, `/`
 * separated, as the index and search hits hold it), through folder handles (see
 * {@link openScopeReader}).
 *
 * @param maxBytes at most this many bytes (a larger file is reported by size, never read)
 * @returns as {@link readFileSafe}; `code: 'symlink-refused'` when a folder on the way is a link
 *   or not a folder (or changed during the read), `invalid-path` for a path with an empty, `.` or
 *   `..` segment
 */
export function readScopeFile(roots: VaultRoots, scope: Scope, relPath: string, maxBytes: number): ReadResult {
  const reader = openScopeReader(roots, scope);
  try {
    return reader.read(relPath, maxBytes);
  } finally {
    reader.close();
  }
}
