/**
 * The sessions folder: where session snapshots live, outside every vault and repository
 * (default `<home>/.ecc/sessions/`, override `ECC_SESSIONS_DIR`), never indexed as memory.
 *
 * Writes are atomic and serialized per session: a hook takes an exclusive lock file
 * (`.lock-<shortid>`, O_EXCL), reads the current snapshot, merges, and writes it with the atomic
 * writer (a hidden work file `.wip-…`, fsynced, renamed over the snapshot). A reader sees the
 * old or the new snapshot, never a mix. A process killed half-way leaves at most a hidden work
 * file or a lock that names a dead process; neither matches the snapshot name pattern, and the
 * next hook removes both.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  opendirSync,
  readdirSync,
  realpathSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { VaultError } from '../../errors.js';
import type { Runtime } from '../../io/runtime.js';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { homeDir } from '../../store/roots.js';
import { DirHandle } from '../../store/dir-handle.js';
import { parseSnapshot, parseSnapshotHeader, renderSnapshot, type SessionSnapshot } from './snapshot.js';
import { quoteInput } from '../../document/echo-input.js';
import { redactSecretShapes } from '../../secrets/scan-secrets.js';

/**
 * The subfolder of the sessions folder that holds what session start caches: start records
 * (start-cache.ts) and the memory title cache (memory-titles.ts). Writing there does not change
 * the sessions folder's own mtime.
 */
export const START_DIR = '.start';

/**
 * How a sessions folder (or its {@link START_DIR}) is reached without following a link: the
 * default `~/.ecc/sessions` from the home folder (`.ecc` and `sessions` both checked, a linked
 * `~/.ecc` redirects nothing); an override folder from its parent. Its `.start` subfolder from
 * there on.
 */
function sessionsChain(dir: string): { anchor: string; names: string[] } {
  const parts = dir.split(sep);
  const ecc = parts.lastIndexOf('.ecc');
  if (ecc > 0) return { anchor: parts.slice(0, ecc).join(sep) || sep, names: parts.slice(ecc) };
  if (basename(dir) === START_DIR) return { anchor: dirname(dirname(dir)), names: [basename(dirname(dir)), START_DIR] };
  return { anchor: dirname(dir), names: [basename(dir)] };
}

/**
 * Opens a sessions folder (or its `.start`) through {@link DirHandle}: no link on the way, and
 * every use through the handle (the same no-follow rule as the vault).
 *
 * @throws the file system's error (`ELOOP`/`ENOTDIR` for a link, `ENOENT` for a missing folder)
 */
export function openSessionsFolder(dir: string, create?: { mode: number; created?: string[] }): DirHandle {
  const { anchor, names } = sessionsChain(dir);
  return DirHandle.open(anchor, names, create);
}

/**
 * Creates {@link START_DIR} (0700) if needed; its path, or undefined when it or the sessions
 * folder is not a real folder (a link or a file is never written through) or is missing.
 */
export function ensureStartDir(dir: string): string | undefined {
  let handle: DirHandle | undefined;
  try {
    handle = openSessionsFolder(dir);
    handle.openDir(START_DIR, { mode: 0o700 }).close();
  } catch {
    return undefined;
  } finally {
    handle?.close();
  }
  return join(dir, START_DIR);
}
/**
 * The subfolder of the sessions folder that holds proposed memories (sessions/proposal-store.ts):
 * one `<shortid>.json` per session, pruned with the snapshots, and `decided.json`, the
 * fingerprints a person accepted or rejected.
 */
export const PROPOSALS_DIR = '.proposals';

/**
 * The subfolder of the sessions folder that holds the per-session records of injected memories
 * (sessions/recall-record.ts): one `<8 hex>.json` per session id, pruned with the snapshots.
 */
export const RECALL_DIR = '.recall';

/** File name of a snapshot: `<YYYY-MM-DD>-<shortid>-session.tmp`. */
export const SNAPSHOT_FILE = /^(\d{4}-\d{2}-\d{2})-([a-z0-9_][a-z0-9_-]{0,63})-session\.tmp$/;
/** Largest snapshot file read back (a rendered snapshot is a few KB). */
const MAX_SNAPSHOT_BYTES = 512 * 1024;
/** A lock older than this is stale whatever its process (hooks finish in seconds). */
const LOCK_STALE_MS = 30_000;
/** A work file older than this is left over from a killed process. */
const WIP_STALE_MS = 60_000;

/** Refuses a sessions folder with `rule` (one clear error naming the variable and the fix). */
function refuseSessionsDir(message: string, rule: string): never {
  throw new VaultError('invalid-input', message, {
    field: 'ECC_SESSIONS_DIR',
    rule,
    hint: 'unset it to use ~/.ecc/sessions, or set it to an absolute folder outside every .ecc folder and vault',
  });
}

/** True when `dir` is `root` or lies under it. */
function isWithin(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** The realpath of the deepest existing ancestor of `dir`, with the missing rest appended. */
function realPathOf(dir: string): string {
  const rest: string[] = [];
  let at = dir;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return dir;
      rest.push(basename(at));
      at = parent;
    }
  }
}

/**
 * The sessions folder for a runtime: `ECC_SESSIONS_DIR` (an absolute path) or
 * `<home>/.ecc/sessions`.
 *
 * An empty or relative HOME (without an override) or ECC_SESSIONS_DIR is refused: it would put
 * the snapshots in the hook's working directory, often a repository.
 *
 * An override is refused when it is relative (it would depend on the hook's cwd), or when it,
 * or its real path (symlinks resolved), lies inside any `.ecc` folder (a repository's `.ecc`
 * holds team memories, and the `.gitignore` of `*` written into the sessions folder would hide
 * them from git) or inside a vault root set by ECC_MEMORY_PROJECT_ROOT / ECC_MEMORY_USER_ROOT.
 * The default folder, and a folder inside it, are allowed.
 *
 * @throws VaultError `invalid-input` naming ECC_SESSIONS_DIR when the override is refused, or
 *   HOME when it is empty or relative and there is no override
 */
export function resolveSessionsDir(rt: Runtime): string {
  const raw = rt.env.ECC_SESSIONS_DIR;
  if (raw === undefined) return join(homeDir(rt, 'ECC_SESSIONS_DIR'), '.ecc', 'sessions');
  if (raw.length > 4096 || raw.includes('\u0000')) refuseSessionsDir('ECC_SESSIONS_DIR is not a usable path', 'path of at most 4096 characters');
  if (!isAbsolute(raw))
    refuseSessionsDir(`ECC_SESSIONS_DIR must be an absolute path (${raw === '' ? 'it is empty' : `got ${quoteInput(raw, 200)}`})`, 'absolute path');
  // The default folder (and one inside it) is allowed; without a usable HOME there is none.
  const defaultDir = isAbsolute(rt.home) ? join(resolve(rt.home), '.ecc', 'sessions') : undefined;
  const defaults = defaultDir ? [defaultDir, realPathOf(defaultDir)] : [];
  const dir = resolve(raw);
  const real = realPathOf(dir);
  for (const candidate of [dir, real]) {
    if (defaults.some((d) => isWithin(candidate, d))) continue;
    if (candidate.split(sep).some((part) => part.toLowerCase() === '.ecc')) {
      refuseSessionsDir(
        `ECC_SESSIONS_DIR must not point inside a .ecc folder (${candidate})`,
        'outside every .ecc folder (vaults and their team memories live there)',
      );
    }
    for (const name of ['ECC_MEMORY_PROJECT_ROOT', 'ECC_MEMORY_USER_ROOT'] as const) {
      const root = rt.env[name];
      if (!root || root.length > 4096) continue;
      const abs = resolve(rt.cwd, root);
      if (isWithin(candidate, abs) || isWithin(candidate, realPathOf(abs))) {
        refuseSessionsDir(`ECC_SESSIONS_DIR must not point inside the vault root set by ${name} (${candidate})`, 'outside the vault');
      }
    }
  }
  return dir;
}

/**
 * Creates the sessions folder (0700) if needed and checks it is a real folder. A `.gitignore`
 * of `*` is written inside it (in case it sits in a repository) only when this call created
 * the folder or the folder is empty: never into an existing folder holding other files (it
 * would hide them from git), never anywhere else.
 *
 * @throws VaultError `symlink-refused` when it is a symbolic link, `io-error` otherwise
 */
export function ensureSessionsDir(dir: string): void {
  const { anchor } = sessionsChain(dir);
  const created: string[] = [];
  let handle: DirHandle;
  try {
    mkdirSync(anchor, { recursive: true, mode: 0o700 });
    handle = openSessionsFolder(dir, { mode: 0o700, created });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR')
      throw new VaultError('symlink-refused', 'the sessions folder, or a folder above it, is a symbolic link', {
        rule: 'no symlinks',
        hint: 'replace it with a real folder',
      });
    throw new VaultError('io-error', `cannot create the sessions folder (${code ?? 'error'})`, { cause: err });
  }
  try {
    if (created.length === 0) {
      try {
        const d = opendirSync(handle.listPath);
        const first = d.readSync();
        d.closeSync();
        if (first) return;
      } catch {
        return;
      }
    }
    try {
      const fd = openSync(handle.child('.gitignore'), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, '*\n');
      closeSync(fd);
    } catch {
      /* exists already */
    }
  } finally {
    handle.close();
  }
}

/** One snapshot file in the sessions folder. */
export interface SnapshotFile {
  name: string;
  path: string;
  /** the date in the name (UTC day the session started) */
  date: string;
  shortId: string;
  mtimeMs: number;
  size: number;
}

/**
 * Lists the snapshot files (regular files matching {@link SNAPSHOT_FILE}), newest first by
 * modification time, then by name. A missing folder has none.
 */
export function listSnapshots(dir: string): SnapshotFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SnapshotFile[] = [];
  for (const name of names) {
    const m = SNAPSHOT_FILE.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile()) continue;
      out.push({ name, path, date: m[1]!, shortId: m[2]!, mtimeMs: st.mtimeMs, size: st.size });
    } catch {
      /* removed meanwhile */
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
}

/**
 * The snapshot a user names: by its short id (`vault sessions list`), its file name, or the
 * session's full id or transcript file name (matched against the snapshot's **Session** header).
 * Only files of the listing are ever returned, so a name cannot reach outside the folder.
 *
 * @returns the file, or undefined when none matches
 */
export function findSnapshotFile(dir: string, ref: string): SnapshotFile | undefined {
  const r = ref.trim();
  if (!r || r.length > 300 || r.includes('\u0000')) return undefined;
  const files = listSnapshots(dir);
  const exact = files.find((f) => f.name === r || f.shortId === r.toLowerCase());
  if (exact) return exact;
  const stem = basename(r).replace(/\.jsonl$/, '');
  if (stem.length <= 8) return undefined;
  const short = stem.slice(-8).toLowerCase();
  for (const f of files) {
    if (f.shortId !== short && !f.shortId.startsWith(`${short}-`)) continue;
    const s = loadSnapshot(f.path);
    if (s && (s.sessionId === r || s.sessionId === stem || (s.transcript !== undefined && basename(s.transcript) === basename(r)))) return f;
  }
  return undefined;
}

/**
 * Reads up to `maxBytes` of a snapshot file without following links. The buffer is sized from
 * the file's size (snapshots and the index are replaced by rename, never grown in place), so a
 * read does not allocate the whole cap.
 */
export function readSnapshotText(path: string, maxBytes = MAX_SNAPSHOT_BYTES): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const size = Math.min(maxBytes, st.size);
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, null);
      if (n === 0) break;
      off += n;
    }
    return buf.toString('utf8', 0, off);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The text of a snapshot file as it is shown or parsed: redacted again as it is read, so that a
 * snapshot written before a credential shape was known, or edited by hand, does not bring a
 * credential back to a list, a show, a session start or a hand-off.
 */
export function readSnapshotShown(path: string): string | undefined {
  const text = readSnapshotText(path);
  return text === undefined ? undefined : redactSecretShapes(text).text;
}

/** Reads and parses a snapshot file; undefined when unreadable or incomplete. */
export function loadSnapshot(path: string): SessionSnapshot | undefined {
  const text = readSnapshotShown(path);
  return text === undefined ? undefined : parseSnapshot(text);
}

/** Where a session ran, for matching snapshots. */
export interface WorktreeKey {
  worktree: string;
  repo: string | undefined;
  /** the repository instance (worktree-identity.ts); absent: not compared */
  repoId?: string | undefined;
}

/**
 * False when a snapshot was written in another instance of the repository at the same path
 * (deleted and created again): both sides know their repository id and they differ.
 */
export function sameRepoInstance(snapshot: { repoId?: string | undefined }, key: WorktreeKey): boolean {
  return !snapshot.repoId || !key.repoId || snapshot.repoId === key.repoId;
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes leftovers of killed processes: work files (`.wip-*`) and locks (`.lock-*`) whose
 * process is gone or which are older than their limit, in the sessions folder and in its
 * start-record folder (`.start`, start-cache.ts; entered only when it is a real folder).
 *
 * @param rt the clock's time (`nowMs`) and which processes are alive
 * @returns how many files were removed
 */
export function removeStaleFiles(dir: string, nowMs: number, rt: Pick<Runtime, 'isProcessAlive'>): number {
  let removed = removeStaleIn(dir, nowMs, rt);
  const sub = join(dir, START_DIR);
  if (lstatSync(sub, { throwIfNoEntry: false })?.isDirectory()) removed += removeStaleIn(sub, nowMs, rt);
  return removed;
}

/**
 * Removes the leftovers of killed writers in one folder of the sessions folder (`.recall`,
 * `.start`): work files (`.wip-*`) whose process is gone or that are older than a minute, and
 * stale locks. The writers of those folders call it after each write, so a kill between the work
 * file and the rename costs one file until the next write.
 *
 * @param rt the clock and which processes are alive
 * @returns how many files were removed
 */
export function removeStaleWorkFiles(dir: string, rt: Pick<Runtime, 'isProcessAlive' | 'now'>): number {
  return removeStaleIn(dir, rt.now().getTime(), rt);
}

function removeStaleIn(dir: string, nowMs: number, rt: Pick<Runtime, 'isProcessAlive'>): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const wip = /^\.wip-[a-z0-9_-]+-(\d+)-[0-9a-f]+$/.exec(name);
    const lock = /^\.lock-[a-z0-9_-]+$/.test(name);
    if (!wip && !lock) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      const age = nowMs - st.mtimeMs;
      let stale: boolean;
      if (wip) stale = !rt.isProcessAlive(Number(wip[1])) || age > WIP_STALE_MS;
      else stale = lockIsStale(path, nowMs, rt);
      if (stale) {
        unlinkSync(path);
        removed++;
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return removed;
}

function lockIsStale(path: string, nowMs: number, rt: Pick<Runtime, 'isProcessAlive'>): boolean {
  try {
    const st = lstatSync(path);
    if (nowMs - st.mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number(readFileSync(path, 'utf8').slice(0, 64).split(' ')[0]);
    return !rt.isProcessAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Runs `fn` while holding the lock of one short id.
 *
 * @param waitMs how long to wait for another process's lock
 * @throws VaultError `io-error` when the lock could not be taken in time
 */
export function withSnapshotLock<T>(dir: string, shortId: string, rt: Runtime, waitMs: number, fn: () => T): T {
  const path = join(dir, `.lock-${shortId}`);
  const token = `${rt.pid} ${rt.randomHex(8)}`;
  const until = rt.now().getTime() + waitMs;
  // The lock appears with its content in one step (written to a work file, then hard-linked),
  // so no process ever sees an empty lock and mistakes it for a dead one.
  const draft = join(dir, `.wip-lock-${rt.pid}-${rt.randomHex(6)}`);
  const fd = openSync(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  try {
    for (;;) {
      try {
        linkSync(draft, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
          throw new VaultError('io-error', `cannot lock the session snapshot (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
        if (lockIsStale(path, rt.now().getTime(), rt)) {
          try {
            unlinkSync(path);
          } catch {
            /* another process broke it first */
          }
          continue;
        }
        if (rt.now().getTime() > until)
          throw new VaultError('io-error', 'timed out waiting for the session snapshot lock', { hint: 'another hook of this session is still running' });
        sleepMs(15);
      }
    }
  } finally {
    try {
      unlinkSync(draft);
    } catch {
      /* gone */
    }
  }
  try {
    return fn();
  } finally {
    try {
      if (readFileSync(path, 'utf8') === token) unlinkSync(path);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Writes `content` to `dir/name` atomically (store/atomic-write.ts) through a hidden work file
 * `.wip-<tag>-<pid>-<hex>`, which {@link removeStaleFiles} recognises when a process was killed
 * half-way.
 *
 * @param cache true for a cache that is rebuilt when it reads back missing or damaged (the
 *   snapshot index, start records, the title cache): written without fsync, which costs a hook
 *   several milliseconds per file; a snapshot itself is always synced
 * @throws VaultError `io-error`
 */
export function writeSessionFile(dir: string, name: string, content: string, tag: string, rt: Pick<Runtime, 'pid' | 'randomHex'>, cache = false): void {
  let handle: DirHandle | undefined;
  try {
    handle = openSessionsFolder(dir);
    // A cache's temp name is made without node:crypto (~5 ms to load in a prompt hook): it is
    // created exclusively in a 0700 folder only this user writes, so a clash only fails the write
    // (advisory); hex, as removeStaleFiles recognises work files
    const unique = cache ? `${Math.floor(Math.random() * 0x100000000).toString(16)}${(tempSerial++).toString(16)}` : rt.randomHex(6);
    writeFileAtomic(handle.child(name), content, {
      tempPath: handle.child(`.wip-${tag}-${rt.pid}-${unique}`),
      commit: 'replace',
      mode: 0o600,
      durable: !cache,
      folder: handle, // without procfs: checked before, undone after when the folder moved
    });
  } catch (err) {
    throw new VaultError('io-error', `cannot write the session snapshot (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  } finally {
    handle?.close();
  }
}

/** Temp names of cache writes made by this process so far (see {@link writeSessionFile}). */
let tempSerial = 0;

/** Result of {@link updateSnapshot}. */
export interface UpdateResult {
  /** absolute path of the snapshot, when one was written */
  path: string | undefined;
  written: boolean;
  snapshot: SessionSnapshot | undefined;
}

/**
 * Creates or updates the snapshot of one session under its lock.
 *
 * The file is the existing `*-<shortid>-session.tmp` when there is one for this session and
 * worktree; a file of the same short id that belongs to another session or worktree is never
 * touched (the short id gets a hash suffix instead).
 *
 * @param build gets the current snapshot (undefined when none) and returns the next one, or
 *   undefined to write nothing
 * @param options `lockWaitMs` (default 5000)
 * @throws VaultError `io-error` (folder, lock, write)
 */
export function updateSnapshot(
  dir: string,
  identity: { shortId: string; sessionId: string; worktree: string },
  rt: Runtime,
  build: (existing: SessionSnapshot | undefined, shortId: string) => SessionSnapshot | undefined,
  options: { lockWaitMs?: number } = {},
): UpdateResult {
  ensureSessionsDir(dir);
  removeStaleFiles(dir, rt.now().getTime(), rt);
  const attempt = (shortId: string, final: boolean): UpdateResult | 'conflict' =>
    withSnapshotLock(dir, shortId, rt, options.lockWaitMs ?? 5000, () => {
      const mine = listSnapshots(dir).filter((f) => f.shortId === shortId);
      let existing: SessionSnapshot | undefined;
      let name: string | undefined;
      for (const f of mine) {
        const text = readSnapshotText(f.path);
        const header: Record<string, string> = text === undefined ? {} : parseSnapshotHeader(text);
        if (header.Session !== identity.sessionId || header.Worktree !== identity.worktree) {
          // another session's or worktree's file (or not a snapshot at all): never touched
          if (!final) return 'conflict';
          continue;
        }
        existing = text === undefined ? undefined : parseSnapshot(text); // a damaged file of ours is rewritten whole
        name = f.name;
        break;
      }
      const next = build(existing, shortId);
      if (!next) return { path: undefined, written: false, snapshot: undefined };
      const date = (next.startedAt && /^\d{4}-\d{2}-\d{2}/.test(next.startedAt) ? next.startedAt : rt.now().toISOString()).slice(0, 10);
      if (!name) {
        name = `${date}-${shortId}-session.tmp`;
        if (mine.some((f) => f.name === name))
          throw new VaultError('io-error', 'a snapshot file of another session has this name', { hint: 'remove or rename the other file' });
      }
      writeSessionFile(dir, name, renderSnapshot({ ...next, shortId }), shortId, rt);
      return { path: join(dir, name), written: true, snapshot: { ...next, shortId } };
    });
  const first = attempt(identity.shortId, false);
  if (first !== 'conflict') return first;
  const suffix = createHash('sha256').update(`${identity.sessionId}\u0000${identity.worktree}`).digest('hex').slice(0, 6);
  const alt = `${identity.shortId.slice(0, 57)}-${suffix}`;
  return attempt(alt, true) as UpdateResult;
}
