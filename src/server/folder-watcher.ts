/**
 * Watches a vault's scope folders with `fs.watch`, one inotify watch per folder (not per file:
 * inotify on a folder also reports in-place writes to the files in it). Every real, non-hidden
 * folder of a scope is watched, as deep as the scanner walks; folders that appear are watched
 * when their parent reports them. A scope whose folder is missing is looked at with one lstat
 * per request (and watched once it appears); a scope that cannot be watched is "blind": the
 * server then checks it in full on every request. A watcher error (ENOSPC: the
 * inotify watch limit) makes every scope blind.
 *
 * Events inotify drops (its queue overflowed) are never reported by Node.js: the server's
 * periodic full check (server-main.ts) is what catches them.
 */
import { type Dirent, type FSWatcher, lstatSync, readdirSync, watch } from 'node:fs';
import { basename, join, sep } from 'node:path';
import type { Scope } from '../document/contract.js';
import { DEFAULT_SCAN_LIMITS } from '../scanner/scan-vault.js';

/** What the watcher tells its owner. */
export interface WatchEvents {
  /** something named `name` (may be empty: unknown) in `folder` of `scope` changed */
  change(scope: Scope, folder: string, name: string): void;
  /** a file appeared or changed in the server folder (cookie files) */
  serverFile(name: string): void;
  /** the watcher cannot be trusted any more for every scope */
  failed(reason: string): void;
}

/**
 * A fault to simulate, for tests (`ECC_VAULT_WATCH_FAULT`): an errno code (`ENOSPC`, `EMFILE`)
 * makes every watch fail with it as the inotify limit does; `drop-events` drops every event of
 * the scope folders, as an overflowed inotify queue does (the server folder's cookies still arrive).
 */
export type WatchFault = string | undefined;

/** What lstat sees at a path that is not a real folder: nothing, or a link or file and its identity. */
function pathSignature(path: string): string {
  try {
    const st = lstatSync(path);
    return `${st.mode}:${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch (err) {
    return `missing:${(err as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function realDir(path: string): boolean {
  return dirIno(path) !== undefined;
}

/** False for a listed entry that is surely not a folder (a file, a link, …); true for a folder or an entry of unknown type. */
export function mayBeFolder(d: Dirent): boolean {
  return d.isDirectory() || !(d.isFile() || d.isSymbolicLink() || d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice());
}

/** The inode of a real folder, undefined for anything else. */
function dirIno(path: string): number | undefined {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? st.ino : undefined;
  } catch {
    return undefined;
  }
}

/** fs.watch on a vault's scope folders and on the server folder. */
export class FolderWatcher {
  /** per watched folder: its scope, the watch, and the inode watched (a folder removed and made again is another one) */
  private readonly watchers = new Map<string, { scope: Scope | undefined; w: FSWatcher; ino: number | undefined }>();
  /** scopes that cannot be watched (a watch that failed) */
  readonly blind = new Set<Scope>();
  /** scopes whose folder is not a real folder (missing, a link), with what lstat saw of it */
  private readonly missing = new Map<Scope, string>();
  failure: string | undefined;

  constructor(
    private readonly scopeRoots: ReadonlyMap<Scope, string>,
    private readonly serverDir: string,
    private readonly events: WatchEvents,
    private readonly fault: WatchFault = undefined,
  ) {}

  /** Starts watching; answers false (and reports `failed`) when the server folder itself cannot be watched. */
  start(): boolean {
    if (!this.add(this.serverDir, undefined)) return false;
    for (const scope of this.scopeRoots.keys()) this.resync(scope);
    return this.failure === undefined;
  }

  /** Number of folders watched. */
  get folders(): number {
    return this.watchers.size;
  }

  /**
   * Watches every real, non-hidden folder of the scope not yet watched (after a folder appeared or
   * vanished). `renewed`: a folder an event named; it and the folders under it are watched anew,
   * as it may be a new folder under an old name (git checkout removes a folder it emptied and
   * makes it again, and the file system may give it the same inode number: the old watch, which
   * sees nothing more, cannot be told from a live one).
   */
  resync(scope: Scope, renewed?: string): void {
    const root = this.scopeRoots.get(scope)!;
    if (renewed !== undefined && !basename(renewed).startsWith('.')) {
      for (const [dir, entry] of this.watchers) {
        if (entry.scope === scope && (dir === renewed || dir.startsWith(`${renewed}${sep}`))) {
          entry.w.close();
          this.watchers.delete(dir);
        }
      }
    }
    for (const [dir, entry] of this.watchers) {
      // gone, or replaced by a new folder of the same name (git checkout removes emptied folders): the old watch sees nothing more
      if (entry.scope === scope && dirIno(dir) !== entry.ino) {
        entry.w.close();
        this.watchers.delete(dir);
      }
    }
    if (!realDir(root)) {
      this.missing.set(scope, pathSignature(root));
      return;
    }
    this.missing.delete(scope);
    const walk = (dir: string, depth: number): boolean => {
      if (!this.watchers.has(dir) && !this.add(dir, scope)) return false;
      if (depth >= DEFAULT_SCAN_LIMITS.maxDepth) return true;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return false;
      }
      for (const d of entries) {
        // the entry's type from the listing: only a folder (or an entry of unknown type) is
        // looked at again, not each of the thousands of files beside it
        if (d.name.startsWith('.') || !mayBeFolder(d)) continue;
        const p = join(dir, d.name);
        if (realDir(p) && !walk(p, depth + 1)) return false;
      }
      return true;
    };
    if (!walk(root, 0)) this.blind.add(scope);
  }

  /**
   * The scopes whose missing folder changed since it was last seen (it appeared, or a link
   * changed); they are watched from now on when they became real folders. A scope folder that is
   * still missing holds no memories, so nothing about it can have changed.
   */
  missingChanged(): Scope[] {
    const out: Scope[] = [];
    for (const [scope, seen] of [...this.missing]) {
      if (pathSignature(this.scopeRoots.get(scope)!) === seen) continue;
      out.push(scope);
      this.resync(scope);
    }
    return out;
  }

  /** Scopes whose folder is missing (not watched; checked on every request with one lstat). */
  get absent(): Scope[] {
    return [...this.missing.keys()];
  }

  close(): void {
    for (const { w } of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private add(dir: string, scope: Scope | undefined): boolean {
    const ino = dirIno(dir);
    let w: FSWatcher;
    try {
      if (this.fault !== undefined && this.fault !== 'drop-events')
        throw Object.assign(new Error(`${this.fault}: simulated by ECC_VAULT_WATCH_FAULT`), { code: this.fault });
      w = watch(dir, { persistent: true }, (_event, name) => {
        const n = name === null ? '' : String(name);
        if (scope === undefined) this.events.serverFile(n);
        else if (this.fault !== 'drop-events') this.events.change(scope, dir, n);
      });
    } catch (err) {
      this.fail(`cannot watch ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return false;
    }
    w.on('error', (err: NodeJS.ErrnoException) => {
      // a watched folder that was removed (or replaced) ends its watch; anything else is a broken watcher
      if (scope !== undefined && dirIno(dir) !== ino) {
        w.close();
        if (this.watchers.get(dir)?.w === w) this.watchers.delete(dir);
        this.events.change(scope, dir, '');
        return;
      }
      this.fail(`watch error on ${dir}: ${err.code ?? err.message}`);
    });
    this.watchers.set(dir, { scope, w, ino });
    return true;
  }

  private fail(reason: string): void {
    if (this.failure === undefined) this.failure = reason;
    for (const s of this.scopeRoots.keys()) this.blind.add(s);
    this.events.failed(reason);
  }
}
