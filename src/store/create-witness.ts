/**
 * Proof that a save's own create was the only change to its kind folder, so that the index may
 * record the folder as it now is instead of listing it again at the next search (at 100,000
 * memories that listing, one lstat per file of the folder, was a third of a save's time).
 *
 * A folder's mtime alone cannot give that proof: another process's change made between our stat
 * of the folder and our create leaves the same mtime as ours. So the writer watches (inotify,
 * through fs.watch) the kind folder and the scope's staging folder from before its first stat of
 * the folder until after its last: inotify reports every change to the folder's entries, in order
 * across the watched folders of one process. After the create, a probe file made in the staging
 * folder serves twice: its mtime shows the file system clock has moved past the folder's and the
 * file's mtimes (a later change gives the folder a new mtime, so the record is not racy), and its
 * event, once reported, shows every event before it has been reported too. The proof holds when
 * the kind folder reported exactly one event, the create of our file's name, and nothing failed.
 * Any doubt (not Linux, a watch that cannot start, an error, another event, a clock that did not
 * move within a few milliseconds, as on a file system with whole-second times) gives no proof, and
 * the index lists the folder again as before.
 */
import { closeSync, fstatSync, lstatSync, openSync, statSync, unlinkSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { systemClock } from '../io/runtime.js';
import { usesProcFd } from './dir-handle.js';

/** A folder's or file's fingerprint as the index records it. */
export interface Fingerprint {
  mtime: number;
  ino: number;
  size: number;
}

/** What a proof shows: the kind folder before the write (to compare with the index's record) and after, and the file. */
export interface CreateProof {
  /** the kind folder, stat taken once the watches ran and before the write */
  before: Fingerprint;
  /** the kind folder after the write */
  after: Fingerprint;
  /** the new file, unchanged since it was made (no event of its own but its create) */
  file: Fingerprint;
}

/** How long the file system clock may take to move past the write (ms): more, and the proof is given up. */
const CLOCK_WAIT_MS = 25;
/** How long the probe's event may take to be reported (ms). */
const EVENT_WAIT_MS = 250;

const fingerprint = (st: Stats): Fingerprint => ({ mtime: st.mtimeMs, ino: st.ino, size: st.size });

/** A folder as the witness uses it: a folder handle's list path and child paths (store/dir-handle.ts). */
export interface WatchedFolder {
  /** the path naming the folder itself (watched, and stat'ed following only the handle's own link) */
  listPath: string;
  child(name: string): string;
}

/** A watch on a kind folder and its scope's staging folder during one create. */
export class CreateWitness {
  private readonly events: [folder: 'kind' | 'staging', event: string, name: string | null][] = [];
  private failed = false;
  private wake: (() => void) | undefined;

  private constructor(
    private readonly folder: WatchedFolder,
    private readonly staging: WatchedFolder,
    private readonly watchers: FSWatcher[],
    readonly before: Fingerprint,
  ) {}

  /**
   * Starts watching `folder` (the kind folder) and `staging`, then takes the folder's stat (the
   * paths are those of folder handles: a folder swapped for a link is not what is watched).
   *
   * @returns undefined when either cannot be watched or the folder is not a real folder
   */
  static start(folder: WatchedFolder, staging: WatchedFolder): CreateWitness | undefined {
    // Linux only (procfs there): inotify reports at once and in order; elsewhere fs.watch may
    // coalesce or delay events, and waiting for them would cost every save
    if (!usesProcFd()) return undefined;
    const watchers: FSWatcher[] = [];
    // events come from the event loop, so never before `witness` is set
    let witness!: CreateWitness;
    const on = (which: 'kind' | 'staging') => (event: string, name: string | Buffer | null) => {
      witness.events.push([which, event, name === null ? null : String(name)]);
      witness.wake?.();
    };
    const fail = () => {
      witness.failed = true;
      witness.wake?.();
    };
    try {
      for (const [which, path] of [
        ['kind', folder],
        ['staging', staging],
      ] as const) {
        const w = watch(path.listPath, { persistent: false }, on(which));
        w.on('error', fail);
        watchers.push(w);
      }
      const st = statSync(folder.listPath);
      if (!st.isDirectory()) throw new Error('not a folder');
      witness = new CreateWitness(folder, staging, watchers, fingerprint(st));
    } catch {
      for (const w of watchers) w.close();
      return undefined;
    }
    return witness;
  }

  /**
   * After the create of `name` in the folder: the proof that it was the folder's only change
   * since {@link CreateWitness.before}, or undefined. Always stops watching.
   *
   * @param probeName a fresh name for the probe file in the staging folder (a save-temp name, so
   *   a killed process's probe is cleaned up like a killed save's temporary file)
   */
  async prove(name: string, probeName: () => string): Promise<CreateProof | undefined> {
    try {
      const after = statSync(this.folder.listPath);
      const file = lstatSync(this.folder.child(name));
      if (!after.isDirectory() || after.ino !== this.before.ino || !file.isFile()) return undefined;
      const latest = Math.max(after.mtimeMs, file.mtimeMs);
      let probe: string | undefined;
      for (const start = systemClock.nowMs(); ; ) {
        probe = probeName();
        const path = this.staging.child(probe);
        const fd = openSync(path, 'wx', 0o600);
        let at: number;
        try {
          at = fstatSync(fd).mtimeMs;
        } finally {
          closeSync(fd);
          unlinkSync(path);
        }
        if (at > latest) break;
        if (systemClock.nowMs() - start > CLOCK_WAIT_MS) return undefined;
        await new Promise((r) => setTimeout(r, 1));
      }
      if (!(await this.reported(probe))) return undefined;
      const kind = this.events.filter((e) => e[0] === 'kind');
      if (this.failed || kind.length !== 1 || kind[0]![1] !== 'rename' || kind[0]![2] !== name) return undefined;
      const again = lstatSync(this.folder.child(name));
      if (!again.isFile() || again.ino !== file.ino || again.mtimeMs !== file.mtimeMs || again.size !== file.size) return undefined;
      return { before: this.before, after: fingerprint(after), file: fingerprint(file) };
    } catch {
      return undefined;
    } finally {
      for (const w of this.watchers) w.close();
    }
  }

  /** Waits until the staging folder reports `probe` (true), or fails or times out (false). */
  private async reported(probe: string): Promise<boolean> {
    const seen = () => this.events.some((e) => e[0] === 'staging' && e[2] === probe);
    const deadline = systemClock.nowMs() + EVENT_WAIT_MS;
    while (!seen() && !this.failed) {
      const left = deadline - systemClock.nowMs();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return seen() && !this.failed;
  }

  /** Stops watching without a proof (the write failed). */
  close(): void {
    for (const w of this.watchers) w.close();
  }
}
