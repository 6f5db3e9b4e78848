/**
 * Snapshot discovery by worktree, fast with thousands of snapshots.
 *
 * The worktree a snapshot file belongs to never changes (a file name is tied to one session
 * and one worktree), so it is cached in `<sessions>/.snapshot-index.json` (name → worktree,
 * repo). Session start then reads one small file instead of a thousand headers, and stats only
 * the candidates of its own worktree. The index is only a cache: missing or unreadable, it is
 * rebuilt from the headers; names it does not know are read and added; every candidate is
 * verified against its own header before use; a lost concurrent update only costs a re-read.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../io/runtime.js';
import { parseSnapshot, parseSnapshotHeader, type SessionSnapshot } from './snapshot.js';
import { readSnapshotText, SNAPSHOT_FILE, writeAtomic, type SnapshotFile, type WorktreeKey } from './snapshot-store.js';

const INDEX_FILE = '.snapshot-index.json';
const INDEX_VERSION = 2;
const HEADER_BYTES = 4096;

/** The cached facts of one snapshot file: its worktree. */
interface IndexEntry {
  /** worktree realpath */
  w: string;
  /** common git dir realpath */
  r?: string;
}

/**
 * The index file's content. Each worktree is stored once and names point at it by position, so
 * the file stays small and session start parses a few dozen KB, not one object per snapshot.
 * (Version 1, `names: {name: {w, r}}`, is read and converted.)
 */
export interface SnapshotIndex {
  v: number;
  /** ms since epoch of the last full prune */
  prunedAt: number;
  /** the worktrees, referenced by position from `names` */
  trees: IndexEntry[];
  /** snapshot file name → position in `trees` */
  names: Record<string, number>;
}

function emptyIndex(): SnapshotIndex {
  return { v: INDEX_VERSION, prunedAt: 0, trees: [], names: {} };
}

function isEntry(e: unknown): e is IndexEntry {
  const x = e as IndexEntry | null;
  return typeof x === 'object' && x !== null && typeof x.w === 'string' && (x.r === undefined || typeof x.r === 'string');
}

/** Position of `entry` in `index.trees`, added when new. */
function treeOf(index: SnapshotIndex, entry: IndexEntry): number {
  const i = index.trees.findIndex((t) => t.w === entry.w && t.r === entry.r);
  if (i !== -1) return i;
  index.trees.push(entry.r ? { w: entry.w, r: entry.r } : { w: entry.w });
  return index.trees.length - 1;
}

/** Reads the index; an absent, unreadable or foreign-version index is empty. */
export function readSnapshotIndex(dir: string): SnapshotIndex {
  const text = readSnapshotText(join(dir, INDEX_FILE), 16 * 1024 * 1024);
  if (!text) return emptyIndex();
  let v: { v?: unknown; prunedAt?: unknown; trees?: unknown; names?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    return emptyIndex(); // rebuilt from the headers
  }
  if (typeof v !== 'object' || v === null || typeof v.names !== 'object' || v.names === null) return emptyIndex();
  const prunedAt = Number(v.prunedAt) || 0;
  if (v.v === INDEX_VERSION && Array.isArray(v.trees) && v.trees.every(isEntry)) {
    return { v: INDEX_VERSION, prunedAt, trees: v.trees, names: v.names as Record<string, number> };
  }
  if (v.v === 1) {
    const index: SnapshotIndex = { ...emptyIndex(), v: 1, prunedAt }; // v 1: rewritten in the current format
    for (const [name, entry] of Object.entries(v.names as Record<string, unknown>)) if (isEntry(entry)) index.names[name] = treeOf(index, entry);
    return index;
  }
  return emptyIndex();
}

/**
 * Writes the index atomically, keeping only the given names (the snapshots present) and the
 * worktrees they use; failures are ignored (it is a cache).
 */
export function writeSnapshotIndex(dir: string, index: SnapshotIndex, rt: Runtime, present?: readonly string[]): void {
  const out = { ...emptyIndex(), prunedAt: index.prunedAt };
  for (const name of present ?? Object.keys(index.names)) {
    const entry = entryOf(index, name);
    if (entry) out.names[name] = treeOf(out, entry);
  }
  try {
    writeAtomic(dir, INDEX_FILE, JSON.stringify(out), 'index', rt);
  } catch {
    /* a cache that cannot be written is rebuilt next time */
  }
}

/** The worktree recorded for one name, if any. */
function entryOf(index: SnapshotIndex, name: string): IndexEntry | undefined {
  const i = Object.hasOwn(index.names, name) ? index.names[name] : undefined;
  return typeof i === 'number' ? index.trees[i] : undefined;
}

/** Records one snapshot's worktree in the index (after a write). */
export function indexSnapshot(dir: string, name: string, key: WorktreeKey, rt: Runtime): void {
  const index = readSnapshotIndex(dir);
  const entry: IndexEntry = key.repo ? { w: key.worktree, r: key.repo } : { w: key.worktree };
  const old = entryOf(index, name);
  if (old && old.w === entry.w && old.r === entry.r) return;
  index.names[name] = treeOf(index, entry);
  writeSnapshotIndex(dir, index, rt);
}

function readHeader(path: string, buf: Buffer): Record<string, string> | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n);
    const end = text.indexOf('\n## ');
    return parseSnapshotHeader(end === -1 ? text : text.slice(0, end));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function matches(entry: IndexEntry, key: WorktreeKey): boolean {
  return entry.w === key.worktree && !(entry.r && key.repo && entry.r !== key.repo);
}

/** What {@link discoverSnapshot} found and did. */
export interface Discovery {
  found: { file: SnapshotFile; snapshot: SessionSnapshot } | undefined;
  /** snapshot names present (after pruning) */
  count: number;
  pruned: number;
}

/**
 * Finds the newest complete snapshot of exactly one worktree (never another worktree's or
 * project's, however new; no recency fallback — ECC issues #1053, #3160), and prunes snapshots
 * past the retention at most once an hour (by modification time, like the reference).
 *
 * @param options `maxAgeMs` ignore older snapshots; `retentionDays` undefined = never prune
 */
export function discoverSnapshot(dir: string, key: WorktreeKey, rt: Runtime, options: { maxAgeMs: number; retentionDays: number | undefined; find: boolean }): Discovery {
  const nowMs = rt.now().getTime();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => SNAPSHOT_FILE.test(n));
  } catch {
    return { found: undefined, count: 0, pruned: 0 };
  }
  const index = readSnapshotIndex(dir);
  let dirty = index.v !== INDEX_VERSION;
  let pruned = 0;
  if (options.retentionDays !== undefined && nowMs - index.prunedAt > 3_600_000) {
    const limit = nowMs - options.retentionDays * 86_400_000;
    const kept: string[] = [];
    for (const n of names) {
      try {
        const st = lstatSync(join(dir, n));
        if (st.isFile() && st.mtimeMs < limit) {
          unlinkSync(join(dir, n));
          pruned++;
          continue;
        }
      } catch {
        continue;
      }
      kept.push(n);
    }
    names = kept;
    index.prunedAt = nowMs;
    dirty = true;
  }
  let found: Discovery['found'];
  if (options.find) {
    // Positions of the worktrees that match: each name then costs one lookup.
    const mine = new Set<number>();
    index.trees.forEach((t, i) => {
      if (matches(t, key)) mine.add(i);
    });
    const buf = Buffer.allocUnsafe(HEADER_BYTES);
    const candidates: SnapshotFile[] = [];
    for (const name of names) {
      let tree = Object.hasOwn(index.names, name) ? index.names[name] : undefined;
      if (typeof tree !== 'number' || index.trees[tree] === undefined) {
        const h = readHeader(join(dir, name), buf);
        if (!h?.Worktree) continue; // not a snapshot (yet): never indexed, never injected
        const entry: IndexEntry = h.Repo ? { w: h.Worktree, r: h.Repo } : { w: h.Worktree };
        tree = treeOf(index, entry);
        if (matches(entry, key)) mine.add(tree);
        index.names[name] = tree;
        dirty = true;
      }
      if (!mine.has(tree)) continue;
      try {
        const st = lstatSync(join(dir, name));
        if (!st.isFile() || nowMs - st.mtimeMs > options.maxAgeMs) continue;
        const m = SNAPSHOT_FILE.exec(name)!;
        candidates.push({ name, path: join(dir, name), date: m[1]!, shortId: m[2]!, mtimeMs: st.mtimeMs, size: st.size });
      } catch {
        /* removed meanwhile */
      }
    }
    candidates.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
    for (const file of candidates) {
      const text = readSnapshotText(file.path);
      const snapshot = text === undefined ? undefined : parseSnapshot(text);
      if (!snapshot) continue; // incomplete: skipped, never injected
      const actual: IndexEntry = snapshot.repo ? { w: snapshot.worktree, r: snapshot.repo } : { w: snapshot.worktree };
      if (!matches(actual, key)) {
        index.names[file.name] = treeOf(index, actual); // stale cache entry
        dirty = true;
        continue;
      }
      found = { file, snapshot };
      break;
    }
  }
  // Names of removed snapshots are dropped whenever the index is written anyway (and at the
  // hourly prune): a read-only start never pays for that.
  if (dirty) writeSnapshotIndex(dir, index, rt, names);
  return { found, count: names.length, pruned };
}
