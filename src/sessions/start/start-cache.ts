/**
 * The start record of a worktree: what its next session start needs, written by the hook that
 * last wrote one of its snapshots (stop, session-end, pre-compact), so that session start reads
 * one small file instead of listing every snapshot and every memory folder.
 *
 * File: `<sessions>/.start/<fnv1a32 of worktree and repo>.json`, JSON
 * `{"v":1,"worktree","repo","snapshot","sessionsMtime","memories"}`. It is a cache and is
 * trusted only while what it was made from is unchanged ({@link startFromRecord}):
 * - the snapshot: the sessions folder's mtime (ms) is still the one read right after the
 *   snapshot was written. Any snapshot written, renamed or removed since (by any session, any
 *   worktree), a prune or a rewritten snapshot index change it, and session start then takes
 *   the full path (snapshot-index.ts). Records and the title cache live in a subfolder, so
 *   writing them does not change the sessions folder. The snapshot named is read, checked
 *   complete and checked to be of this worktree, like any candidate. Known limit: a snapshot
 *   of the same worktree written by another session within the same timestamp tick (a few ms
 *   on Linux; file systems with whole-second times get no records), by a process then killed
 *   before it wrote its own record, goes unseen until the next change;
 * - the memory list: the vault folders and listed files are unchanged (memory-titles.ts
 *   {@link ListProof}), the vault roots are the same and so is the snapshot text it was ranked by.
 * A missing, damaged, foreign or stale record costs the full path, never a wrong answer: the
 * worktree and repo are in the record and compared, so a name collision is harmless.
 */
import { lstatSync } from 'node:fs';
import { basename, isAbsolute, join, sep } from 'node:path';
import { ID_PATTERN, KINDS } from '../../document/contract.js';
import type { Runtime } from '../../io/runtime.js';
import type { MemoryPointer } from './injection-text.js';
import type { ListProof } from './memory-titles.js';
import { parseSnapshot, type SessionSnapshot } from '../snapshots/snapshot.js';
import {
  ensureStartDir,
  readSnapshotShown,
  readSnapshotText,
  removeStaleWorkFiles,
  sameRepoInstance,
  SNAPSHOT_FILE,
  START_DIR,
  writeSessionFile,
  type SnapshotFile,
  type WorktreeKey,
} from '../snapshots/snapshot-store.js';

const RECORD_VERSION = 1;
const RECORD_MAX_BYTES = 64 * 1024;

/** The memory list of a start record and what it was made from. */
export interface StartMemories {
  /** the project and team roots it was listed from */
  roots: [project: string, team: string];
  /** fnv1a32 of the ranking context ({@link snapshotContext}) */
  context: string;
  proof: ListProof;
  list: MemoryPointer[];
}

/** A start record as stored. */
export interface StartRecord {
  v: number;
  worktree: string;
  repo: string | null;
  /** file name of the snapshot in the sessions folder */
  snapshot: string;
  /** the sessions folder's mtime (ms) after the snapshot was written; 0: unknown */
  sessionsMtime: number;
  memories: StartMemories | null;
}

/** FNV-1a (32 bits) of a string's UTF-16 code units, as 8 hex digits: a name, not a secret. */
export function fnv1a32(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

function recordName(key: WorktreeKey): string {
  return `${fnv1a32(`${key.worktree}\u0000${key.repo ?? ''}`)}.json`;
}

/** The text the memory list of a snapshot is ranked by: goal, requests, files, branch. */
export function snapshotContext(s: SessionSnapshot): string {
  return [s.goal, ...s.requests, ...s.files, s.branch].filter(Boolean).join(' ');
}

/**
 * Writes the start record of a worktree (atomically, in {@link START_DIR}, created 0700 and
 * never through a link). Failures are ignored: it is a cache. Nothing is written when:
 * - `sessionsMtime` is a whole second: the file system keeps coarse timestamps (HFS+, ext3,
 *   FAT), where another snapshot written within the same second would not change the folder's
 *   mtime, so a record could not tell it was stale;
 * - the worktree's current record names another snapshot of it that is newer (a concurrent
 *   session wrote it): the newest stays recorded.
 *
 * @param snapshotName the snapshot this hook just wrote
 * @param sessionsMtime the sessions folder's mtime (ms) read right after that write, before the
 *   hook's slower work (listing memories): any later change of the folder makes the record stale
 */
export function writeStartRecord(
  dir: string,
  key: WorktreeKey,
  snapshotName: string,
  sessionsMtime: number,
  memories: StartMemories | null,
  rt: Runtime,
): void {
  if (!(sessionsMtime > 0) || sessionsMtime % 1000 === 0) return;
  const current = readStartRecord(dir, key);
  if (current && current.snapshot !== snapshotName) {
    const theirs = lstatSync(join(dir, current.snapshot), { throwIfNoEntry: false });
    const ours = lstatSync(join(dir, snapshotName), { throwIfNoEntry: false });
    if (theirs?.isFile() && ours && theirs.mtimeMs > ours.mtimeMs) return;
  }
  try {
    const sub = ensureStartDir(dir);
    if (!sub) return; // a link or a file: never written through
    const record: StartRecord = { v: RECORD_VERSION, worktree: key.worktree, repo: key.repo ?? null, snapshot: snapshotName, sessionsMtime, memories };
    writeSessionFile(sub, recordName(key), JSON.stringify(record), 'start', rt, true);
    removeStaleWorkFiles(sub, rt);
  } catch {
    /* a cache that cannot be written costs the next start the full path */
  }
}

/** True when `path` is `root` or lies under it. */
function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function isPointer(p: unknown): p is MemoryPointer {
  const m = p as MemoryPointer | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof m.id === 'string' &&
    ID_PATTERN.test(m.id) &&
    typeof m.title === 'string' &&
    (KINDS as readonly string[]).includes(m.kind) &&
    (m.scope === 'project' || m.scope === 'team')
  );
}

function isProof(p: unknown): p is ListProof {
  const x = p as ListProof | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    x.complete === true &&
    Array.isArray(x.folders) &&
    x.folders.every((f) => Array.isArray(f) && f.length === 2 && typeof f[0] === 'string' && typeof f[1] === 'number') &&
    Array.isArray(x.files) &&
    x.files.every((f) => Array.isArray(f) && f.length === 3 && typeof f[0] === 'string' && typeof f[1] === 'number' && typeof f[2] === 'number')
  );
}

/**
 * The memory list of a record, when it is whole: every listed memory has its own file in the
 * proof (`<id>.md`, as `vault save` names it), both scope roots were visited, and every path
 * lies under one of them. A list that does not say what it was made from is never reused.
 */
function memoriesOf(m: unknown): StartMemories | null {
  const x = m as StartMemories | null;
  if (typeof x !== 'object' || x === null || !Array.isArray(x.roots) || x.roots.length !== 2 || !x.roots.every((r) => typeof r === 'string' && isAbsolute(r)))
    return null;
  if (typeof x.context !== 'string' || !isProof(x.proof) || !Array.isArray(x.list) || !x.list.every(isPointer)) return null;
  const { folders, files } = x.proof;
  const inVault = (p: string) => !p.split(sep).includes('..') && x.roots.some((r) => isUnder(p, r));
  if (!x.roots.every((r) => folders.some(([p]) => p === r)) || !folders.every(([p]) => inVault(p)) || !files.every(([p]) => inVault(p))) return null;
  if (
    files.length !== x.list.length ||
    !x.list.every((ptr, i) => basename(files[i]![0]) === `${ptr.id}.md` && isUnder(files[i]![0], x.roots[ptr.scope === 'project' ? 0 : 1]))
  )
    return null;
  return x;
}

/** Reads the start record of a worktree; undefined when absent, damaged or of another worktree. */
export function readStartRecord(dir: string, key: WorktreeKey): StartRecord | undefined {
  const text = readSnapshotText(join(dir, START_DIR, recordName(key)), RECORD_MAX_BYTES);
  if (text === undefined) return undefined;
  let v: Partial<StartRecord>;
  try {
    v = JSON.parse(text) as Partial<StartRecord>;
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || v.v !== RECORD_VERSION || v.worktree !== key.worktree || v.repo !== (key.repo ?? null)) return undefined;
  if (typeof v.snapshot !== 'string' || !SNAPSHOT_FILE.test(v.snapshot) || typeof v.sessionsMtime !== 'number' || v.sessionsMtime <= 0) return undefined;
  return { v: v.v, worktree: v.worktree, repo: v.repo, snapshot: v.snapshot, sessionsMtime: v.sessionsMtime, memories: memoriesOf(v.memories) };
}

/** The sessions folder's mtime (ms), or 0 when it cannot be read. */
export function sessionsMtime(dir: string): number {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  return st?.isDirectory() ? st.mtimeMs : 0;
}

/**
 * The snapshot a start record names, when the record can be trusted: the sessions folder is
 * unchanged since it was written, and the snapshot is a regular file, complete, of this
 * worktree and not older than `maxAgeMs`. Undefined means: take the full path.
 */
export function startFromRecord(
  dir: string,
  record: StartRecord,
  key: WorktreeKey,
  nowMs: number,
  maxAgeMs: number,
): { file: SnapshotFile; snapshot: SessionSnapshot } | undefined {
  if (sessionsMtime(dir) !== record.sessionsMtime) return undefined;
  const path = join(dir, record.snapshot);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile() || nowMs - st.mtimeMs > maxAgeMs) return undefined;
  const text = readSnapshotShown(path);
  const snapshot = text === undefined ? undefined : parseSnapshot(text);
  if (!snapshot || snapshot.worktree !== key.worktree || (snapshot.repo && key.repo && snapshot.repo !== key.repo) || !sameRepoInstance(snapshot, key))
    return undefined;
  const m = SNAPSHOT_FILE.exec(record.snapshot)!;
  return { file: { name: record.snapshot, path, date: m[1]!, shortId: m[2]!, mtimeMs: st.mtimeMs, size: st.size }, snapshot };
}
