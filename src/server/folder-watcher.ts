/**
 * Watches a vault's scope folders with `fs.watch`, one inotify watch per folder (not per file:
 * inotify on a folder also reports in-place writes to the files in it). Every real, non-hidden
 * folder of a scope is watched, as deep as the scanner walks; folders that appear are watched
 * when their parent reports them. A scope whose folder is missing or cannot be watched is
 * "blind": the server then checks it in full on every request. A watcher error (ENOSPC: the
 * inotify watch limit) makes every scope blind.
 */
import { type FSWatcher, lstatSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
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

function realDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** fs.watch on a vault's scope folders and on the server folder. */
export class FolderWatcher {
  private readonly watchers = new Map<string, { scope: Scope | undefined; w: FSWatcher }>();
  /** scopes that cannot be watched (missing folder, a watch that failed) */
  readonly blind = new Set<Scope>();
  failure: string | undefined;

  constructor(
    private readonly scopeRoots: ReadonlyMap<Scope, string>,
    private readonly serverDir: string,
    private readonly events: WatchEvents,
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

  /** Watches every real, non-hidden folder of the scope not yet watched (after a folder appeared or vanished). */
  resync(scope: Scope): void {
    const root = this.scopeRoots.get(scope)!;
    if (!realDir(root)) {
      this.blind.add(scope);
      return;
    }
    const walk = (dir: string, depth: number): boolean => {
      if (!this.watchers.has(dir) && !this.add(dir, scope)) return false;
      if (depth >= DEFAULT_SCAN_LIMITS.maxDepth) return true;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return false;
      }
      for (const n of names) {
        if (n.startsWith('.')) continue;
        const p = join(dir, n);
        if (realDir(p) && !walk(p, depth + 1)) return false;
      }
      return true;
    };
    if (!walk(root, 0)) this.blind.add(scope);
    for (const [dir, entry] of this.watchers) {
      if (entry.scope === scope && !realDir(dir)) {
        entry.w.close();
        this.watchers.delete(dir);
      }
    }
  }

  close(): void {
    for (const { w } of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private add(dir: string, scope: Scope | undefined): boolean {
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: true }, (_event, name) => {
        const n = name === null ? '' : String(name);
        if (scope === undefined) this.events.serverFile(n);
        else this.events.change(scope, dir, n);
      });
    } catch (err) {
      this.fail(`cannot watch ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return false;
    }
    w.on('error', (err: NodeJS.ErrnoException) => {
      // a watched folder that was removed ends its watch; anything else is a broken watcher
      if (scope !== undefined && !realDir(dir)) {
        w.close();
        this.watchers.delete(dir);
        this.events.change(scope, dir, '');
        return;
      }
      this.fail(`watch error on ${dir}: ${err.code ?? err.message}`);
    });
    this.watchers.set(dir, { scope, w });
    return true;
  }

  private fail(reason: string): void {
    if (this.failure === undefined) this.failure = reason;
    for (const s of this.scopeRoots.keys()) this.blind.add(s);
    this.events.failed(reason);
  }
}
