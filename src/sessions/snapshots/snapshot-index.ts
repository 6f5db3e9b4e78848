/**
 * Snapshot discovery by worktree, fast with thousands of snapshots.
 *
 * The worktree a snapshot file belongs to never changes (a file name is tied to one session
 * and one worktree), so it is cached in `<sessions>/.snapshot-index.json` (name → worktree,
 * repo). Session start then reads one small file instead of a thousand headers, and stats only
 * the candidates of its own worktree. The index is only a cache: missing or unreadable, it is
 * rebuilt from the headers; names it does not know are read and added; every candidate is
 * verified against its own header before use; a lost concurrent update only costs a re-read.
 *
 * The file is line-oriented so a start does not parse other worktrees' entries: a header line
 * (`vault-snapshot-index 3 <prunedAt>`), a line of every name it holds (sorted, space-separated),
 * then one JSON line per worktree, `[worktree, repo or null, [names]]`. When the snapshot names in
 * the folder are exactly those of the names line, no name is unknown or gone, and session start
 * only parses the lines of its own worktree (found by searching the text). Otherwise the whole
 * index is parsed, unknown headers are read, and it is rewritten.
 * Indexes of the earlier JSON formats (v1, v2) are read and rewritten in this one.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../../io/runtime.js';
import { parseSnapshot, parseSnapshotHeader, type SessionSnapshot } from './snapshot.js';
import {
  readSnapshotShown,
  readSnapshotText,
  sameRepoInstance,
  SNAPSHOT_FILE,
  PROPOSALS_DIR,
  RECALL_DIR,
  START_DIR,
  writeSessionFile,
  type SnapshotFile,
  type WorktreeKey,
} from './snapshot-store.js';

const INDEX_FILE = '.snapshot-index.json';
const INDEX_MAGIC = 'vault-snapshot-index';
const INDEX_VERSION = 3;
const INDEX_MAX_BYTES = 16 * 1024 * 1024;
const HEADER_BYTES = 4096;

/** The cached facts of one snapshot file: its worktree. */
interface IndexEntry {
  /** worktree realpath */
  w: string;
  /** common git dir realpath */
  r?: string;
}

/** The index in memory: each worktree once, names pointing at it by position. */
export interface SnapshotIndex {
  /** format version it was read in (rewritten when not the current one) */
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

/** The header line of an index file: its prune time, or undefined when not the current format. */
function parseIndexHeader(line: string): { prunedAt: number } | undefined {
  const m = /^vault-snapshot-index (\d+) (\d+)$/.exec(line);
  if (!m || Number(m[1]) !== INDEX_VERSION) return undefined;
  return { prunedAt: Number(m[2]) };
}

/** The names line: every name the index holds, sorted, separated by spaces (names have none). */
function namesLine(names: string[]): string {
  return names.sort().join(' ');
}

/** A parsed worktree line, `[worktree, repo or null, [names]]`, checked. */
function treeOf3(v: unknown): { entry: IndexEntry; names: string[] } | undefined {
  if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== 'string' || !(v[1] === null || typeof v[1] === 'string') || !Array.isArray(v[2])) return undefined;
  const names = (v[2] as unknown[]).filter((n): n is string => typeof n === 'string');
  return { entry: v[1] ? { w: v[0], r: v[1] } : { w: v[0] }, names };
}

/** One worktree line. */
function parseTreeLine(line: string): { entry: IndexEntry; names: string[] } | undefined {
  try {
    return treeOf3(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** Converts an index of the earlier JSON formats (v1 `{name: {w, r}}`, v2 trees + positions). */
function fromJsonIndex(text: string): SnapshotIndex {
  let v: { v?: unknown; prunedAt?: unknown; trees?: unknown; names?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    return emptyIndex(); // rebuilt from the headers
  }
  if (typeof v !== 'object' || v === null || typeof v.names !== 'object' || v.names === null) return emptyIndex();
  const index: SnapshotIndex = { ...emptyIndex(), v: Number(v.v) || 0, prunedAt: Number(v.prunedAt) || 0 };
  const trees = Array.isArray(v.trees) ? (v.trees as unknown[]) : [];
  for (const [name, value] of Object.entries(v.names as Record<string, unknown>)) {
    const entry = v.v === 1 ? value : v.v === 2 && typeof value === 'number' ? trees[value] : undefined;
    if (isEntry(entry)) index.names[name] = treeOf(index, entry);
  }
  return index;
}

/** Parses the text of an index file; anything unreadable is an empty index. */
function parseIndex(text: string | undefined): SnapshotIndex {
  if (!text) return emptyIndex();
  if (text.startsWith('{')) return fromJsonIndex(text);
  const lines = text.split('\n');
  const header = parseIndexHeader(lines[0] ?? '');
  if (!header) return emptyIndex();
  const index: SnapshotIndex = { ...emptyIndex(), prunedAt: header.prunedAt };
  const treeLines = lines.slice(2).filter(Boolean);
  let all: unknown[] | undefined;
  try {
    all = JSON.parse(`[${treeLines.join(',')}]`) as unknown[]; // one parse for the usual, intact file
  } catch {
    all = undefined; // a damaged line: the others are kept
  }
  for (let i = 0; i < treeLines.length; i++) {
    const t = all ? treeOf3(all[i]) : parseTreeLine(treeLines[i]!);
    if (!t) continue;
    const at = treeOf(index, t.entry);
    for (const name of t.names) index.names[name] = at;
  }
  return index;
}

/** Reads the index; an absent, unreadable or foreign index is empty. */
export function readSnapshotIndex(dir: string): SnapshotIndex {
  return parseIndex(readSnapshotText(join(dir, INDEX_FILE), INDEX_MAX_BYTES));
}

/**
 * Writes the index atomically, keeping only the given names (the snapshots present) and the
 * worktrees they use; failures are ignored (it is a cache).
 */
export function writeSnapshotIndex(dir: string, index: SnapshotIndex, rt: Runtime, present?: readonly string[]): void {
  const byTree = new Map<number, string[]>();
  const kept: string[] = [];
  for (const name of present ?? Object.keys(index.names)) {
    const at = Object.hasOwn(index.names, name) ? index.names[name] : undefined;
    if (typeof at !== 'number' || !index.trees[at]) continue;
    kept.push(name);
    const list = byTree.get(at);
    if (list) list.push(name);
    else byTree.set(at, [name]);
  }
  const lines = [`${INDEX_MAGIC} ${INDEX_VERSION} ${Math.max(0, Math.floor(index.prunedAt))}`, namesLine(kept)];
  for (const [at, names] of byTree) {
    const t = index.trees[at]!;
    lines.push(JSON.stringify([t.w, t.r ?? null, names]));
  }
  try {
    writeSessionFile(dir, INDEX_FILE, `${lines.join('\n')}\n`, 'index', rt, true);
  } catch {
    /* a cache that cannot be written is rebuilt next time */
  }
}

/** Records one snapshot's worktree in the index (after a write). */
export function indexSnapshot(dir: string, name: string, key: WorktreeKey, rt: Runtime): void {
  const text = readSnapshotText(join(dir, INDEX_FILE), INDEX_MAX_BYTES);
  // Already recorded (every later update of a session): only this worktree's lines are parsed.
  const headerEnd = text === undefined ? -1 : text.indexOf('\n');
  if (headerEnd !== -1 && parseIndexHeader(text!.slice(0, headerEnd)) && namesOfWorktree(text!, key, true).includes(name)) {
    const namesEnd = text!.indexOf('\n', headerEnd + 1);
    if (` ${text!.slice(headerEnd + 1, namesEnd === -1 ? text!.length : namesEnd)} `.includes(` ${name} `)) return;
  }
  const index = parseIndex(text);
  const entry: IndexEntry = key.repo ? { w: key.worktree, r: key.repo } : { w: key.worktree };
  const at = Object.hasOwn(index.names, name) ? index.names[name] : undefined;
  const old = typeof at === 'number' ? index.trees[at] : undefined;
  if (index.v === INDEX_VERSION && old && old.w === entry.w && old.r === entry.r) return;
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

/**
 * The names the index lists for worktrees matching `key` (`exact`: recorded with exactly its
 * repo), read from the raw index text without parsing the other lines: every line that starts
 * with this worktree is parsed and checked.
 */
function namesOfWorktree(text: string, key: WorktreeKey, exact = false): string[] {
  const prefix = `\n[${JSON.stringify(key.worktree)},`;
  const out: string[] = [];
  for (let at = text.indexOf(prefix); at !== -1; at = text.indexOf(prefix, at + 1)) {
    const end = text.indexOf('\n', at + 1);
    const t = parseTreeLine(text.slice(at + 1, end === -1 ? text.length : end));
    if (t && (exact ? t.entry.r === (key.repo || undefined) : matches(t.entry, key))) out.push(...t.names);
  }
  return out;
}

/** True when the names line starting at `at` lists exactly `names` (sorted in place). */
function sameNames(text: string, at: number, names: string[]): boolean {
  const line = namesLine(names);
  return text.startsWith(line, at) && (text.length === at + line.length || text.charCodeAt(at + line.length) === 10);
}

/** True when snapshots past the retention are due to be pruned (at most once an hour). */
function pruneDue(prunedAt: number, nowMs: number, retentionDays: number | undefined): boolean {
  return retentionDays !== undefined && nowMs - prunedAt > 3_600_000;
}

/** What {@link discoverSnapshot} found and did. */
export interface Discovery {
  found: { file: SnapshotFile; snapshot: SessionSnapshot } | undefined;
  /** snapshot names present (after pruning) */
  count: number;
  pruned: number;
}

/** Stats the candidates and picks the newest complete snapshot that really is of `key`. */
function newestOf(
  dir: string,
  candidates: readonly string[],
  key: WorktreeKey,
  nowMs: number,
  maxAgeMs: number,
  onStale: (name: string, actual: IndexEntry) => void,
): Discovery['found'] {
  const files: SnapshotFile[] = [];
  for (const name of candidates) {
    try {
      const st = lstatSync(join(dir, name));
      if (!st.isFile() || nowMs - st.mtimeMs > maxAgeMs) continue;
      const m = SNAPSHOT_FILE.exec(name)!;
      files.push({ name, path: join(dir, name), date: m[1]!, shortId: m[2]!, mtimeMs: st.mtimeMs, size: st.size });
    } catch {
      /* removed meanwhile */
    }
  }
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
  for (const file of files) {
    const text = readSnapshotShown(file.path);
    const snapshot = text === undefined ? undefined : parseSnapshot(text);
    if (!snapshot) continue; // incomplete: skipped, never injected
    const actual: IndexEntry = snapshot.repo ? { w: snapshot.worktree, r: snapshot.repo } : { w: snapshot.worktree };
    if (!matches(actual, key)) {
      onStale(file.name, actual);
      continue;
    }
    if (!sameRepoInstance(snapshot, key)) continue; // an earlier repository at this path
    return { file, snapshot };
  }
  return undefined;
}

/**
 * Finds the newest complete snapshot of exactly one worktree (never another worktree's or
 * project's, however new; no recency fallback — ECC issues #1053, #3160), and prunes snapshots
 * past the retention at most once an hour (by modification time, like the reference).
 *
 * @param options `maxAgeMs` ignore older snapshots; `retentionDays` undefined = never prune
 */
export function discoverSnapshot(
  dir: string,
  key: WorktreeKey,
  rt: Runtime,
  options: { maxAgeMs: number; retentionDays: number | undefined; find: boolean },
): Discovery {
  const nowMs = rt.now().getTime();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => SNAPSHOT_FILE.test(n));
  } catch {
    return { found: undefined, count: 0, pruned: 0 };
  }
  const text = readSnapshotText(join(dir, INDEX_FILE), INDEX_MAX_BYTES);
  const headerEnd = text === undefined ? -1 : text.indexOf('\n');
  const header = headerEnd === -1 ? undefined : parseIndexHeader(text!.slice(0, headerEnd));
  const pruneDueAt = (prunedAt: number) => pruneDue(prunedAt, nowMs, options.retentionDays);
  if (header && !pruneDueAt(header.prunedAt) && sameNames(text!, headerEnd + 1, names)) {
    // The index knows exactly the names present: only this worktree's lines matter.
    if (!options.find) return { found: undefined, count: names.length, pruned: 0 };
    const stale: Array<[string, IndexEntry]> = [];
    const found = newestOf(dir, namesOfWorktree(text!, key), key, nowMs, options.maxAgeMs, (name, actual) => stale.push([name, actual]));
    if (stale.length) {
      const index = parseIndex(text);
      for (const [name, actual] of stale) index.names[name] = treeOf(index, actual);
      writeSnapshotIndex(dir, index, rt, names);
    }
    return { found, count: names.length, pruned: 0 };
  }

  // The index does not match the folder (or a prune is due): parsed whole, completed, rewritten.
  const index = parseIndex(text);
  let pruned = 0;
  if (pruneDueAt(index.prunedAt)) {
    const limit = nowMs - options.retentionDays! * 86_400_000;
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
    // start records (start-cache.ts) of worktrees without a session since the retention, the
    // proposals of sessions last recorded before it and the recall records (recall-record.ts) of
    // sessions that injected nothing since (pruned with their snapshots)
    for (const [folder, file] of [
      [START_DIR, /^[0-9a-f]{8}\.json$/],
      [PROPOSALS_DIR, /^[a-z0-9_][a-z0-9_-]{0,63}\.json$/],
      [RECALL_DIR, /^[0-9a-f]{8}\.json$/],
    ] as const) {
      const sub = join(dir, folder);
      if (!lstatSync(sub, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const n of readdirSync(sub)) {
        if (!file.test(n) || n === 'decided.json') continue;
        try {
          const st = lstatSync(join(sub, n));
          if (st.isFile() && st.mtimeMs < limit) unlinkSync(join(sub, n));
        } catch {
          /* gone meanwhile */
        }
      }
    }
  }
  const buf = Buffer.allocUnsafe(HEADER_BYTES);
  const present: string[] = [];
  const candidates: string[] = [];
  for (const name of names) {
    let at = Object.hasOwn(index.names, name) ? index.names[name] : undefined;
    if (typeof at !== 'number' || !index.trees[at]) {
      const h = readHeader(join(dir, name), buf);
      if (!h?.Worktree) continue; // not a snapshot (yet): never indexed, never injected
      at = treeOf(index, h.Repo ? { w: h.Worktree, r: h.Repo } : { w: h.Worktree });
      index.names[name] = at;
    }
    present.push(name);
    if (matches(index.trees[at]!, key)) candidates.push(name);
  }
  const found = options.find
    ? newestOf(dir, candidates, key, nowMs, options.maxAgeMs, (name, actual) => (index.names[name] = treeOf(index, actual)))
    : undefined;
  writeSnapshotIndex(dir, index, rt, present);
  return { found, count: names.length, pruned };
}
