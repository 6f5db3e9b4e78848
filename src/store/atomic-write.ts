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
import { closeSync, constants, fstatSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VaultError } from '../errors.js';
import { processIds } from '../io/runtime.js';

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
    if (options.commit === 'create') linkSync(tmp, target);
    else renameSync(tmp, target);
    if (options.commit === 'replace') created = false; // renamed: nothing left to remove
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
 * @throws VaultError `already-exists` when `target` exists (file, folder or symlink);
 *   `io-error` on any other failure. The temporary file never survives.
 */
export function writeFileExclusive(target: string, content: string, mode: number, tempName: () => string, staging?: (name: string) => string): void {
  try {
    try {
      if (!staging) throw Object.assign(new Error('no staging folder'), { code: 'EXDEV' });
      writeFileAtomic(target, content, { tempPath: staging(`${processIds.pid}-${tempName()}.tmp`), commit: 'create', mode });
    } catch (err) {
      if (errnoOf(err) !== 'EXDEV') throw err;
      writeFileAtomic(target, content, { tempPath: join(dirname(target), `.ecc-memory-${processIds.pid}-${tempName()}.tmp`), commit: 'create', mode });
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
