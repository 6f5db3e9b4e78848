/**
 * The one way into a folder of the vault (or of the sessions folder) that a second process cannot
 * redirect: each folder on the way is opened from the handle of its parent, never through a
 * symbolic link, and every later use goes through the handle.
 *
 * Node has no openat(2). On Linux, `/proc/self/fd/<fd>/<name>` resolves `<name>` inside the very
 * folder the handle holds (the magic link does not re-read a path), so swapping a folder for a link
 * between a check and a use changes nothing: the use either lands in the folder that was opened or
 * fails. Elsewhere (no procfs) the handle falls back to paths and {@link DirHandle.stillThere}
 * compares the opened folders' dev/ino with what the paths name now, so a caller can undo or
 * refuse work that may have landed elsewhere.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

let procFdWorks: boolean | undefined;
let procFdForcedOff = false;

/**
 * Forces the fallback without procfs (paths, checked by dev/ino) even where procfs works, for the
 * whole process: `ECC_VAULT_NO_PROCFD=1`, read from the runtime's environment by `resolveRoots`
 * (store/roots.ts), so that the fallback can be tested on Linux.
 */
export function forceProcFdFallback(forced: boolean): void {
  procFdForcedOff = forced;
}

/** True when folder handles are used through `/proc/self/fd/<fd>/` (else by path, see the module comment). */
export function usesProcFd(): boolean {
  return !procFdForcedOff && hasProcFd();
}

/** True when `/proc/self/fd/<fd>/` names the folder of an open handle (Linux procfs). */
function hasProcFd(): boolean {
  if (procFdWorks !== undefined) return procFdWorks;
  let fd: number | undefined;
  try {
    fd = openSync('/', constants.O_RDONLY);
    const a = fstatSync(fd);
    const b = statSync(`/proc/self/fd/${fd}/.`);
    procFdWorks = a.ino === b.ino && a.dev === b.dev;
  } catch {
    procFdWorks = false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return procFdWorks;
}

/** An open folder. Close it when done (`close`); paths from `child` are valid while it is open. */
export class DirHandle {
  private readonly chain: Array<{ path: string; dev: number; ino: number }>;

  private constructor(
    /** the open descriptor of the folder */
    readonly fd: number,
    /** the folder's ordinary absolute path, for messages and shown paths only */
    readonly path: string,
    chain: Array<{ path: string; dev: number; ino: number }>,
  ) {
    this.chain = chain;
  }

  /**
   * Opens `anchor` (an ordinary path: the worktree, the home folder; links above the vault are
   * the user's business) and then each of `names` inside the previous one, refusing links.
   *
   * @param create when given, a missing folder is created with this mode (and reported in `created`)
   * @throws the file system's error: `ELOOP` (or `ENOTDIR`) when a folder on the way is a link or
   *   not a folder, `ENOENT` when one is missing and `create` was not given
   */
  static open(anchor: string, names: readonly string[], create?: { mode: number; created?: string[] }): DirHandle {
    const first = openSync(anchor, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    let h = new DirHandle(first, anchor, [{ path: anchor, ...devIno(first) }]);
    try {
      for (const name of names) {
        const next = h.openDir(name, create);
        h.close();
        h = next;
      }
      return h;
    } catch (err) {
      h.close();
      throw err;
    }
  }

  /**
   * The path to hand to a file-system call for the entry `name` of this folder: it resolves in
   * this very folder on Linux (see the module comment), else it is the ordinary path.
   */
  child(name: string): string {
    return usesProcFd() ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** The path that lists this folder (readdir). */
  get listPath(): string {
    return usesProcFd() ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /**
   * Opens the subfolder `name`, never through a link.
   *
   * @throws as {@link DirHandle.open}
   */
  openDir(name: string, create?: { mode: number; created?: string[] }): DirHandle {
    const path = join(this.path, name);
    let fd: number;
    try {
      fd = openSync(this.child(name), DIR_FLAGS);
    } catch (err) {
      if (!create || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      try {
        mkdirSync(this.child(name), { mode: create.mode });
        create.created?.push(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      fd = openSync(this.child(name), DIR_FLAGS);
    }
    const handle = new DirHandle(fd, path, [...this.chain, { path, ...devIno(fd) }]);
    if (!fstatSync(fd).isDirectory()) {
      handle.close();
      throw Object.assign(new Error(`not a directory: ${name}`), { code: 'ENOTDIR' });
    }
    return handle;
  }

  /**
   * True when every folder on the way still is, under its path, the folder that was opened
   * (same dev/ino, no link). Always true in substance on Linux, where uses never go by path; the
   * check is what the fallback without procfs relies on.
   */
  stillThere(): boolean {
    for (const step of this.chain.slice(1)) {
      const st = lstatSync(step.path, { throwIfNoEntry: false });
      if (!st || st.isSymbolicLink() || st.ino !== step.ino || (st.dev !== step.dev && st.dev !== 0 && step.dev !== 0)) return false;
    }
    return true;
  }

  /** Closes the descriptor (twice is harmless). */
  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

function devIno(fd: number): { dev: number; ino: number } {
  const st = fstatSync(fd);
  return { dev: st.dev, ino: st.ino };
}

/** True for the errors that mean "a folder on the way is a symbolic link (or not a folder)". */
export function isLinkRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK';
}
