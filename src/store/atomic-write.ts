/**
 * The one atomic file writer, for every file the tool writes whole: memories (create-only), `vault
 * fmt` rewrites, session snapshots and the session-start caches, the hooks installer's settings
 * files, and the search index's state.
 *
 * A file appears under its final name only with its complete content: the content is written
 * and fsynced to a temporary file in the target's folder (created with O_EXCL|O_NOFOLLOW, so
 * never through a link and never over another writer's file), which is then renamed over the
 * target (`replace`) or hard-linked to it (`create`: link(2) fails when the name exists, even as
 * a dangling symlink, so nothing is ever overwritten, also when processes race); then the folder
 * is fsynced. A crash leaves the old file or the new one, never half of either. The temporary
 * file never survives a call (a killed process may leave it: see store/layout.ts, STAGING_DIR). Caches that are rebuilt when they read back torn (the search index,
 * session start's caches) skip the two fsyncs (`durable: false`); the rename stays atomic.
 */
import { closeSync, constants, fstatSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VaultError } from '../errors.js';
import { processIds } from '../io/runtime.js';
import { type DirHandle, isLinkRefusal, usesProcFd } from './dir-handle.js';
import { readFileSafe } from './read-file-safe.js';

/** How {@link writeFileAtomic} writes. */
export interface AtomicWriteOptions {
  /**
   * absolute path of the temporary file, in the target's folder; callers name it so that their
   * own clean-up recognises what a killed process left behind (`.wip-<tag>-<pid>-<hex>`, ...)
   */
  tempPath: string;
  /** `replace`: rename over the target; `create`: hard-link, failing with EEXIST when the target exists */
  commit: 'replace' | 'create';
  /** permission bits of the new file (default 0o600) */
  mode?: number;
  /**
   * fsync the file and its folder (default true). Only a cache that is rebuilt from the vault when
   * it reads back torn (the search index, session start's caches) passes false: the rename is
   * still atomic, so no reader ever sees half a file, but a power cut may leave it empty.
   */
  durable?: boolean;
  /**
   * runs once the temporary file is complete and synced, right before it becomes visible; it may
   * throw to abort (the temporary file is removed). `vault fmt` checks here that the original did
   * not change and that no folder became a link.
   */
  beforeCommit?: (temp: { path: string; ino: number }) => void;
  /**
   * the handle of the target's folder (`target` and `tempPath` are its `child` paths). Without
   * procfs (store/dir-handle.ts) those paths are ordinary paths: the folder is checked by dev/ino
   * right before the commit, and again after it, and a file that landed elsewhere because a folder
   * was swapped in between is removed again (by its path, only while it is the file this call
   * made: same inode), then the write fails with `symlink-refused`.
   */
  folder?: DirHandle;
}

function folderMoved(): VaultError {
  return new VaultError('symlink-refused', 'a folder of the vault changed while a file was being written; nothing was written', {
    rule: 'no symlinks in the vault',
    hint: 'run vault doctor',
  });
}

function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    /* not supported everywhere; the file itself is fsynced */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `content` to `target` atomically (see the module comment).
 *
 * @param target absolute final path; its folder must exist (callers check it for links)
 * @param content UTF-8 text or bytes
 * @returns the file's modification time (ms, the file system's clock)
 * @throws the file system's error (`code` EEXIST for `create` over an existing name, ...), or
 *   what `beforeCommit` threw
 */
export function writeFileAtomic(target: string, content: string | Uint8Array, options: AtomicWriteOptions): { mtimeMs: number } {
  const tmp = options.tempPath;
  let fd: number | undefined;
  let created = false;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, options.mode ?? 0o600);
    created = true;
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (options.durable !== false) fsyncSync(fd);
    const st = fstatSync(fd);
    closeSync(fd);
    fd = undefined;
    options.beforeCommit?.({ path: tmp, ino: st.ino });
    const checked = options.folder !== undefined && !usesProcFd() ? options.folder : undefined;
    if (checked && !checked.stillThere()) throw folderMoved();
    if (options.commit === 'create') linkSync(tmp, target);
    else renameSync(tmp, target);
    if (options.commit === 'replace') created = false; // renamed: nothing left to remove
    if (checked && !checked.stillThere()) {
      // the fallback's undo: the file went wherever the paths led; remove it if it is ours
      const landed = lstatSync(target, { throwIfNoEntry: false });
      if (landed?.isFile() && landed.ino === st.ino && landed.dev === st.dev) unlinkSync(target);
      throw folderMoved();
    }
    if (options.durable !== false) syncDir(dirname(target));
    return { mtimeMs: st.mtimeMs };
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    if (created) {
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone */
      }
    }
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Writes a new vault file create-only and atomically: a memory, a scope's .gitignore, Obsidian's
 * configuration. The temporary file is `<pid>-<suffix>.tmp` in `staging` (the scope's hidden
 * staging folder, see store/layout.ts) when given, else, or when the staging folder is on another
 * file system, `.ecc-memory-<pid>-<suffix>.tmp` beside the target (a name doctor reports).
 *
 * @param target final path (a folder handle's `child`); its folder must exist and be checked by the caller
 * @param content UTF-8 text
 * @param mode permission bits of the new file
 * @param tempName returns a unique suffix for the temporary file
 * @param staging path of a child of the staging folder, for a name (a folder handle's `child`)
 * @param folder the handle `target` belongs to (the fallback's check and undo, see {@link AtomicWriteOptions.folder})
 * @throws VaultError `already-exists` when `target` exists (file, folder or symlink);
 *   `io-error` on any other failure. The temporary file never survives.
 */
export function writeFileExclusive(
  target: string,
  content: string,
  mode: number,
  tempName: () => string,
  staging?: (name: string) => string,
  folder?: DirHandle,
): void {
  try {
    try {
      if (!staging) throw Object.assign(new Error('no staging folder'), { code: 'EXDEV' });
      writeFileAtomic(target, content, { tempPath: staging(`${processIds.pid}-${tempName()}.tmp`), commit: 'create', mode, folder });
    } catch (err) {
      if (errnoOf(err) !== 'EXDEV') throw err;
      writeFileAtomic(target, content, { tempPath: join(dirname(target), `.ecc-memory-${processIds.pid}-${tempName()}.tmp`), commit: 'create', mode, folder });
    }
  } catch (err) {
    if (err instanceof VaultError) throw err;
    if (errnoOf(err) === 'EEXIST' && (err as NodeJS.ErrnoException).syscall === 'link') {
      throw new VaultError('already-exists', `${target.split(/[\\/]/).pop()} already exists; writes are create-only`, {
        rule: 'create-only',
        hint: 'choose another id, or supersede the memory with a new one that links to it',
      });
    }
    const code = errnoOf(err) ?? 'unknown';
    throw new VaultError('io-error', `cannot write the memory file (${code})`, {
      hint: code === 'EACCES' ? 'check the folder permissions' : 'check the path and try again',
      cause: err,
    });
  }
}

/** How {@link replaceFileInFolder} names the file in its refusals. */
export interface ReplaceWording {
  /** the file as shown to the user (a vault path) */
  shown: string;
  /** what is being done to it: `formatted`, `retired` */
  doing: string;
  /** what was left undone: `nothing was written`, `nothing was changed` */
  nothing: string;
  /** the command to run again: `vault fmt` */
  again: string;
}

/**
 * The one rewrite of an existing vault file (`vault fmt`, `vault retire`): replaces the file
 * `name` of the folder `dir` (a folder handle, store/dir-handle.ts) with `content`, only if it is a
 * regular file that still holds `expected`. The temporary file is `<tempPrefix><random>.tmp` in
 * the same folder, with the file's permission bits; it is written and fsynced, then, right before
 * it is renamed over the file through the handle, the file is read again through the handle and
 * compared, and the temporary file must still be the one just made (same inode). A folder swapped
 * for a link is never followed (procfs), or the write is undone (the fallback, see
 * {@link AtomicWriteOptions.folder}).
 *
 * @param maxBytes the largest file that is compared (a larger one counts as changed)
 * @param defaultMode permission bits when the file's own are 0
 * @throws VaultError `symlink-refused` (not a regular file, a folder changed), `io-error` (the
 *   file changed, or the file system failed); the original is kept on every one of them
 */
export function replaceFileInFolder(
  dir: DirHandle,
  name: string,
  content: string,
  expected: Buffer,
  options: { tempPrefix: string; randomHex: (bytes: number) => string; maxBytes: number; defaultMode: number; wording: ReplaceWording },
): void {
  const w = options.wording;
  const target = dir.child(name);
  try {
    const st = lstatSync(target);
    if (!st.isFile())
      throw new VaultError('symlink-refused', `${w.shown} is not a regular file; ${w.nothing}`, {
        rule: 'never follow symbolic links',
        hint: 'see vault doctor',
      });
    const tempName = `${options.tempPrefix}${options.randomHex(8)}.tmp`;
    writeFileAtomic(target, content, {
      tempPath: dir.child(tempName),
      commit: 'replace',
      mode: st.mode & 0o777 || options.defaultMode,
      folder: dir,
      beforeCommit: (temp) => {
        const now = readFileSafe(target, options.maxBytes);
        if (!now.ok || !now.bytes.equals(expected))
          throw new VaultError('io-error', `${w.shown} changed while it was being ${w.doing}; ${w.nothing}`, { hint: `run ${w.again} again` });
        const tmpSt = lstatSync(dir.child(tempName), { throwIfNoEntry: false });
        if (!dir.stillThere() || !tmpSt?.isFile() || tmpSt.ino !== temp.ino)
          throw new VaultError('symlink-refused', `the folder of ${w.shown} changed while it was being ${w.doing}; ${w.nothing}`, {
            hint: 'run vault doctor',
          });
      },
    });
  } catch (err) {
    if (err instanceof VaultError) throw err;
    if (isLinkRefusal(err))
      throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${w.shown}; ${w.nothing}`, {
        rule: 'no symlinks in the vault',
        cause: err,
      });
    throw new VaultError('io-error', `cannot rewrite ${w.shown} (${errnoOf(err) ?? 'error'}); ${w.nothing}`, {
      hint: 'check the folder permissions',
      cause: err,
    });
  }
}
