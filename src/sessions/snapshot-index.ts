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
const INDEX_VERSION = 1;
const HEADER_BYTES = 4096;

/** The cached facts of one snapshot file. */
interface IndexEntry {
  /** worktree realpath */
  w: string;
  /** common git dir realpath */
  r?: string;
}

/** The index file's content. */
export interface SnapshotIndex {
  v: number;
  /** ms since epoch of the last full prune */
  prunedAt: number;
  names: Record<string, IndexEntry>;
}

/** Reads the index; an absent, unreadable or foreign-version index is empty. */
export function readSnapshotIndex(dir: string): SnapshotIndex {
  const text = readSnapshotText(join(dir, INDEX_FILE), 16 * 1024 * 1024);
  if (text) {
    try {
      const v = JSON.parse(text) as SnapshotIndex;
      if (v && v.v === INDEX_VERSION && typeof v.names === 'object' && v.names !== null) return { v: INDEX_VERSION, prunedAt: Number(v.prunedAt) || 0, names: v.names };
    } catch {
      /* rebuilt below */
    }
  }
  return { v: INDEX_VERSION, prunedAt: 0, names: {} };
}

/** Writes the index atomically; failures are ignored (it is a cache). */
export function writeSnapshotIndex(dir: string, index: SnapshotIndex, rt: Runtime): void {
  try {
    writeAtomic(dir, INDEX_FILE, JSON.stringify(index), 'index', rt);
  } catch {
    /* a cache that cannot be written is rebuilt next time */
  }
}

/** Records one snapshot's worktree in the index (after a write). */
export function indexSnapshot(dir: string, name: string, key: WorktreeKey, rt: Runtime): void {
  const index = readSnapshotIndex(dir);
  const entry: IndexEntry = key.repo ? { w: key.worktree, r: key.repo } : { w: key.worktree };
  const old = index.names[name];
  if (old && old.w === entry.w && old.r === entry.r) return;
  index.names[name] = entry;
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
  let dirty = false;
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
  const present = new Set(names);
  for (const n of Object.keys(index.names)) {
    if (!present.has(n)) {
      delete index.names[n];
      dirty = true;
    }
  }
  let found: Discovery['found'];
  if (options.find) {
    const buf = Buffer.allocUnsafe(HEADER_BYTES);
    const candidates: SnapshotFile[] = [];
    for (const name of names) {
      let entry = index.names[name];
      if (!entry) {
        const h = readHeader(join(dir, name), buf);
        if (!h?.Worktree) continue; // not a snapshot (yet): never indexed, never injected
        entry = h.Repo ? { w: h.Worktree, r: h.Repo } : { w: h.Worktree };
        index.names[name] = entry;
        dirty = true;
      }
      if (!matches(entry, key)) continue;
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
      if (!matches(snapshot.repo ? { w: snapshot.worktree, r: snapshot.repo } : { w: snapshot.worktree }, key)) {
        index.names[file.name] = snapshot.repo ? { w: snapshot.worktree, r: snapshot.repo } : { w: snapshot.worktree }; // stale cache entry
        dirty = true;
        continue;
      }
      found = { file, snapshot };
      break;
    }
  }
  if (dirty) writeSnapshotIndex(dir, index, rt);
  return { found, count: names.length, pruned };
}
