/**
 * Keeps one scope's index fresh. Two checks, both compared with what the index recorded:
 *
 * - The folder check (the default for search and read): one lstat per folder of the scope. A
 *   folder whose mtime and inode are unchanged (and was outside the racy window when recorded)
 *   lists the same names, so its files are trusted without a stat; a changed folder is listed
 *   again and its files checked one lstat each (new names read, missing ones dropped, a name
 *   replaced by another file, as git checkout does, re-read). A new subfolder, a symbolic
 *   link, a vanished folder or an unknown entry type falls back to the full check. What this
 *   cannot see is an in-place write (same name, same folder); docs/concepts.md says for how long.
 * - The full check: a directory listing plus one lstat per file (through the scanner's walk, so
 *   symlinks and hidden folders are treated exactly as the scanner treats them). It runs when
 *   asked (`vault index`, `vault search --fresh`), when the folder check cannot decide, and when
 *   the last one is older than the full-check interval.
 *
 * Only the files that differ are re-read: they go into the overlay in state.bin, which is rewritten
 * atomically. A missing, unreadable, old-format or foreign index is rebuilt from the files; when the
 * overlay grows past a few percent of the vault the generation is rebuilt (compaction). When the
 * index folder cannot be written, the fresh index is kept in memory and the search still answers.
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import type { Scope } from '../../document/contract.js';
import { processIds, systemClock, type ProcessIds } from '../../io/runtime.js';
import { DEFAULT_SCAN_LIMITS, isEditorFile, walkVault, type WalkedFile } from '../../scanner/scan-vault.js';
import { openScopeReader } from '../../store/read-scope-file.js';
import { guardedDirs, scopeRoot, type VaultRoots } from '../../store/roots.js';
import { buildGeneration, type BuiltGeneration, type ProgressFn, type StatFile } from './index-build.js';
import { FULL_CHECK_INTERVAL_S, RACY_WINDOW_MS, type FolderRecord, type IndexState, type OverlayEntry } from './index-format.js';
import { BucketReader } from './postings.js';
import { DocTableBuilder, GenerationDocs, compareWalkOrder, emptyDocTable } from './generation-docs.js';
import { indexDirFor } from '../../store/layout.js';
import {
  cleanIndexDir,
  ensureIndexDir,
  fileSystemNow,
  IndexUnusable,
  newGeneration,
  readBaseDocs,
  readBucket,
  readState,
  STATE_FILE,
  writeGeneration,
  writeState,
  type BaseDocs,
} from './index-store.js';
import { INDEX_FORMAT_VERSION, fullCheckIntervalFrom } from './index-format.js';

export { fullCheckIntervalFrom };
import { SCHEMA_VERSION } from '../../document/contract.js';
import { overlayEntryOf, readIndexableFile } from './memory-terms.js';

/** A scope's index, fresh as of the check that produced it. */
export interface ScopeIndex {
  scope: Scope;
  /** index folder */
  dir: string;
  generation: string;
  base: BaseDocs;
  /** files changed since the generation was built */
  overlay: Record<string, OverlayEntry>;
  /** one term bucket of the generation (its header; postings are decoded on demand) */
  loadBucket(bucket: number): BucketReader;
  /** false when the index folder could not be written and the index lives only in this process */
  persisted: boolean;
  /** when state.bin was last written (file system clock, ms), if it exists */
  refreshedAt: number | undefined;
}

/** What the freshness check found and did. */
export interface FreshnessReport {
  scope: Scope;
  /** fresh: nothing changed; refreshed: changed files re-read; rebuilt: generation built from scratch */
  action: 'fresh' | 'refreshed' | 'rebuilt';
  /** why it was rebuilt (missing, corrupt, old format, compaction, requested) */
  reason?: string | undefined;
  added: number;
  changed: number;
  removed: number;
  persisted: boolean;
  /** symbolic links skipped by the walk (vault-relative) */
  symlinks: string[];
  complete: boolean;
  incompleteReasons: string[];
  /** which check ran: every file's fingerprint, or only the folders' */
  check: 'full' | 'folders';
}

/** Options of {@link openScopeIndex}. */
export interface OpenOptions {
  /** build a new generation even if the index is usable (a string: the reason to report) */
  rebuild?: boolean | string | undefined;
  onProgress?: ProgressFn | undefined;
  /** names of temporary files and generations (default: this process) */
  ids?: ProcessIds | undefined;
  /** check every file's fingerprint (default: only the folders', see the module comment) */
  full?: boolean | undefined;
  /** run the full check when the last one is older than this many seconds (default 60; 0 = always) */
  fullCheckIntervalS?: number | undefined;
  /** the current time in ms since the epoch, for the interval (default: the system clock) */
  now?: number | undefined;
  /**
   * with the folder check: files (paths below the scope folder) checked one lstat each even when
   * their folder is unchanged, for writes in place that a watcher reported (the index server)
   */
  recheck?: readonly string[] | undefined;
}

/** What each index folder's state.bin held when this process last read or wrote it, and its mtime then. */
const lastSeen = new Map<string, { state: IndexState; mtime: number; at: number }>();

/**
 * The state this process saw in `dir` a moment ago (its last {@link openScopeIndex}, at most
 * `maxAgeMs` before `nowMs`), when state.bin still has the mtime it had then: a save's overlay
 * update right after its similar check need not read and parse the state a second time. A write
 * by another process in the same mtime tick goes unseen, as it would be lost by a read just
 * before it: the state read then was valid, and what it lacks the next check finds again.
 */
export function stateAsLastSeen(dir: string, nowMs: number = systemClock.nowMs(), maxAgeMs = 2000): IndexState | undefined {
  const seen = lastSeen.get(dir);
  if (!seen || nowMs < seen.at || nowMs - seen.at > maxAgeMs) return undefined;
  const st = lstatSync(`${dir}${sep}${STATE_FILE}`, { throwIfNoEntry: false });
  return st?.isFile() && st.mtimeMs === seen.mtime ? seen.state : undefined;
}

interface CacheEntry {
  generation: string;
  base: BaseDocs;
  built?: BuiltGeneration;
  buckets: Map<number, BucketReader>;
}

/** Generations are immutable, so a process may keep what it loaded (watch, MCP server). */
const cache = new Map<string, CacheEntry>();
const MAX_CACHED_BUCKETS = 48;

function cached(dir: string, generation: string, load: () => CacheEntry): CacheEntry {
  const hit = cache.get(dir);
  if (hit && hit.generation === generation) return hit;
  const entry = load();
  cache.set(dir, entry);
  return entry;
}

function bucketLoader(dir: string, entry: CacheEntry): (b: number) => BucketReader {
  return (b) => {
    let v = entry.buckets.get(b);
    if (!v) {
      v = entry.built ? new BucketReader(entry.built.bucket(b), entry.base.count) : readBucket(dir, entry.base, b);
      if (entry.buckets.size >= MAX_CACHED_BUCKETS) entry.buckets.clear();
      entry.buckets.set(b, v);
    }
    return v;
  };
}

/** What {@link listScopeFiles} found. */
export interface ScopeListing {
  files: StatFile[];
  symlinks: string[];
  complete: boolean;
  incompleteReasons: string[];
  /** every folder listed (`""` = the scope folder), with its lstat taken before it was listed */
  folders: Map<string, Stats>;
  /** the vault listed: its files are read through its folder handles (store/read-scope-file.ts) */
  roots: VaultRoots;
}

/** Lists the scope's files with their stat fingerprints (one lstat per entry, from the walk itself). */
export function listScopeFiles(roots: VaultRoots, scope: Scope): ScopeListing {
  const files: StatFile[] = [];
  const folders = new Map<string, Stats>();
  const prefix = scope.length + 1;
  const walk = walkVault(
    roots,
    [scope],
    DEFAULT_SCAN_LIMITS,
    (f: WalkedFile) => {
      files.push({ file: f, rel: f.path.slice(prefix), size: f.size!, mtime: f.mtimeMs! });
    },
    { stat: true, onFolder: (segments, st) => folders.set(segments.join('/'), st) },
  );
  return { files, symlinks: walk.symlinks, complete: walk.complete, incompleteReasons: walk.incompleteReasons, folders, roots };
}

/** Folder records for state.bin; a folder changed within the racy window is marked to be listed again. */
function folderRecords(folders: ReadonlyMap<string, Stats>, fsNow: number): Record<string, FolderRecord> {
  const out: Record<string, FolderRecord> = {};
  for (const [rel, st] of folders) out[rel] = { mtime: st.mtimeMs > fsNow - RACY_WINDOW_MS ? -1 : st.mtimeMs, ino: st.ino };
  return out;
}

/** What {@link checkFolders} found: the same shape as a full diff, plus the folders to record. */
interface FolderCheck extends FileDiff {
  /** folders listed again, with their new lstat */
  relisted: Map<string, Stats>;
}

/** A walked file built from a scope-relative path (the folder check has no walk). */
function walkedFile(scope: Scope, root: string, rel: string, st: Stats): StatFile {
  const segments = rel.split('/');
  const file: WalkedFile = { scope, path: `${scope}/${rel}`, absPath: root + sep + segments.join(sep), segments, size: st.size, mtimeMs: st.mtimeMs };
  return { file, rel, size: st.size, mtime: st.mtimeMs };
}

const folderOf = (rel: string): string => {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
};

/**
 * The folder check (see the module comment). Returns undefined when it cannot decide and the full
 * check must run: a recorded folder is gone or no longer a real folder, a folder above the scope
 * is a link, a listed folder holds a new subfolder, a symbolic link or an entry of unknown type.
 */
function checkFolders(
  roots: VaultRoots,
  scope: Scope,
  root: string,
  state: IndexState,
  base: BaseDocs,
  recheck: readonly string[] = [],
): FolderCheck | undefined {
  const records = Object.entries(state.folders);
  if (records.length === 0 || !Object.hasOwn(state.folders, '')) return undefined;
  for (const dir of guardedDirs(roots, scope).slice(0, -1)) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return undefined;
  }
  const relisted = new Map<string, Stats>();
  for (const [rel, rec] of records) {
    const st = lstatSync(rel === '' ? root : root + sep + rel.split('/').join(sep), { throwIfNoEntry: false });
    if (!st?.isDirectory()) return undefined;
    if (rec.mtime === -1 || st.mtimeMs !== rec.mtime || st.ino !== rec.ino) relisted.set(rel, st);
  }
  // every file the index knows, with its fingerprint: the generation, then the overlay on top
  const known = new Map<string, { size: number; mtime: number; inBase: boolean }>();
  const racy: string[] = [];
  // whether a file is in the generation is asked only of the files kept (a binary search of the
  // generation's paths per changed file: ~3 ms a search at 300 changed files, for none kept)
  const consider = (path: string, size: number, mtime: number, inBase: () => boolean) => {
    if (relisted.size > 0 && relisted.has(folderOf(path))) known.set(path, { size, mtime, inBase: inBase() });
    else if (mtime === -1) racy.push(path);
  };
  const always = () => true;
  // only documents in a relisted folder, or racy, need their path built (~10,000 strings saved at
  // 10,000 memories when a save changed one kind folder)
  for (let i = 0; i < base.count; i++) {
    if (base.mtime[i] === -1 || (relisted.size > 0 && relisted.has(base.folderOf(i)))) {
      const p = base.path(i);
      if (!(p in state.overlay)) consider(p, base.size[i]!, base.mtime[i]!, always);
    }
  }
  for (const r of base.invalid) if (!(r.path in state.overlay)) consider(r.path, r.size, r.mtime, always);
  for (const p in state.overlay) {
    const e = state.overlay[p]!;
    const rec = 'doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined;
    if (rec) consider(p, rec.size, rec.mtime, () => base.numberOf(p) >= 0 || base.invalid.some((r) => r.path === p));
  }
  const changed: StatFile[] = [];
  const knownFlags: boolean[] = [];
  const removed: string[] = [];
  const check = (rel: string, st: Stats | undefined, cur: { size: number; mtime: number } | undefined) => {
    if (!st) {
      if (cur) removed.push(rel);
      return;
    }
    if (cur && cur.mtime !== -1 && cur.size === st.size && cur.mtime === st.mtimeMs) return;
    changed.push(walkedFile(scope, root, rel, st));
    knownFlags.push(cur !== undefined);
  };
  for (const [rel] of relisted) {
    const abs = rel === '' ? root : root + sep + rel.split('/').join(sep);
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const listed = new Set<string>();
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isSymbolicLink()) return undefined;
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) {
        if (!Object.hasOwn(state.folders, child)) return undefined;
        continue;
      }
      if (!e.isFile()) {
        // a FIFO, socket or device named like a memory makes the scope incomplete: the full check
        // (the scanner) reports it; any other one is not a memory
        if ((e.isFIFO() || e.isSocket() || e.isBlockDevice() || e.isCharacterDevice()) && !e.name.endsWith('.md')) continue;
        return undefined; // a special *.md, or the file system did not say what it is
      }
      if (!e.name.endsWith('.md') || isEditorFile(e.name)) continue;
      listed.add(child);
      // every file of a changed folder is checked: git checkout and rename-saving editors replace
      // a file under the same name, which only its own stat shows
      const cur = known.get(child);
      const st = lstatSync(abs + sep + e.name, { throwIfNoEntry: false });
      if (st && !st.isFile()) return undefined;
      check(child, st, cur);
    }
    for (const [p] of known) if (folderOf(p) === rel && !listed.has(p)) removed.push(p);
  }
  for (const p of racy) {
    const st = lstatSync(root + sep + p.split('/').join(sep), { throwIfNoEntry: false });
    if (st && !st.isFile()) return undefined;
    check(p, st, known.get(p) ?? { size: -2, mtime: -1 });
  }
  // files reported changed in folders that were not listed again: checked against their record
  const racySet = new Set(racy);
  for (const p of new Set(recheck)) {
    if (racySet.has(p) || relisted.has(folderOf(p))) continue;
    // only a memory file of a folder the walk recorded (never one of a hidden folder); any doubt: the full check
    if (!Object.hasOwn(state.folders, folderOf(p)) || p.split('/').some((s) => s === '' || s.startsWith('.'))) return undefined;
    if (!p.endsWith('.md') || isEditorFile(p.slice(p.lastIndexOf('/') + 1))) continue;
    const st = lstatSync(root + sep + p.split('/').join(sep), { throwIfNoEntry: false });
    if (st && !st.isFile()) return undefined;
    const e = Object.hasOwn(state.overlay, p) ? state.overlay[p]! : undefined;
    const n = e ? -1 : base.numberOf(p);
    const inv = e || n >= 0 ? undefined : base.invalid.find((r) => r.path === p);
    const cur = e ? ('doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined) : n >= 0 ? { size: base.size[n]!, mtime: base.mtime[n]! } : inv;
    racy.push(p);
    check(p, st, cur);
  }
  // removed paths that only the overlay knew are dropped from it; generation paths become deletions
  const inBaseSet = new Set<string>();
  for (const [p, k] of known) if (k.inBase) inBaseSet.add(p);
  for (const p of racy) if (base.numberOf(p) >= 0 || base.invalid.some((r) => r.path === p)) inBaseSet.add(p);
  return { changed, known: knownFlags, removed, inBase: inBaseSet, relisted };
}

/** Overlay entries beyond this many mean a rebuild is cheaper than carrying them on every search. */
function compactionThreshold(baseDocs: number): number {
  return 256 + Math.floor(baseDocs / 50);
}

/**
 * How many overlay entries a save may carry before it leaves its file to the next search (which
 * then compacts): the compaction threshold of the generation this process opened for `dir` with
 * generation `generation` (a save's similar check opened it), else that of an empty one (256).
 */
export function directOverlayLimit(dir: string, generation: string): number {
  const entry = cache.get(dir);
  return compactionThreshold(entry?.generation === generation ? entry.base.count : 0);
}

function safeNow(dir: string, ids: ProcessIds): number {
  try {
    ensureIndexDir(dir, ids);
    return fileSystemNow(dir, ids);
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

function rebuild(
  dir: string,
  scope: Scope,
  root: string,
  listing: ScopeListing,
  checkedAt: number,
  previous: string | undefined,
  onProgress: ProgressFn | undefined,
  ids: ProcessIds,
): { entry: CacheEntry; persisted: boolean; refreshedAt: number | undefined; state: IndexState } {
  const built = buildGeneration(listing.roots, scope, listing.files, () => safeNow(dir, ids), onProgress);
  const generation = newGeneration(ids);
  const state: IndexState = {
    format: INDEX_FORMAT_VERSION,
    schema: SCHEMA_VERSION,
    scope,
    root,
    generation,
    overlay: {},
    ...walkRecords(listing, checkedAt, safeNow(dir, ids)),
  };
  try {
    ensureIndexDir(dir, ids);
    writeGeneration(dir, generation, scope, built, ids);
    const refreshedAt = writeState(dir, state, ids);
    cleanIndexDir(dir, generation, previous, refreshedAt);
    // re-read from disk lazily: the built postings are dropped, keeping memory flat
    const persistedBase = readBaseDocs(dir, generation, scope);
    const entry: CacheEntry = { generation, base: persistedBase, buckets: new Map() };
    cache.set(dir, entry);
    return { entry, persisted: true, refreshedAt, state };
  } catch (err) {
    if (err instanceof IndexUnusable) throw err;
    const base: BaseDocs = new GenerationDocs(scope, generation, built.table.table(built.invalid), [], 0);
    const entry: CacheEntry = { generation, base, built, buckets: new Map() };
    cache.set(dir, entry);
    return { entry, persisted: false, refreshedAt: undefined, state };
  }
}

/** What a full check records in state.bin: the folders (only when it saw the whole scope), its time, the links. */
function walkRecords(listing: ScopeListing, checkedAt: number, fsNow: number): Pick<IndexState, 'folders' | 'fullCheckAt' | 'symlinks'> {
  return listing.complete
    ? { folders: folderRecords(listing.folders, fsNow), fullCheckAt: checkedAt, symlinks: listing.symlinks }
    : { folders: {}, fullCheckAt: -1, symlinks: listing.symlinks };
}

/**
 * Opens one scope's index, fresh: by default the folder check (see the module comment), the full
 * per-file check when asked (`full`), when the folder check cannot decide, or when the last full
 * check is older than `fullCheckIntervalS`; re-reads what changed, and rebuilds when the index is
 * missing or unusable. Never throws for a bad index or a bad file.
 *
 * @returns the index and a report of what was done (`report.check` says which check ran)
 */
export function openScopeIndex(roots: VaultRoots, scope: Scope, options: OpenOptions = {}): { index: ScopeIndex; report: FreshnessReport } {
  const dir = indexDirFor(roots, scope);
  const root = scopeRoot(roots, scope);
  const ids = options.ids ?? processIds;
  const nowMs = options.now ?? systemClock.nowMs();
  const intervalS = options.fullCheckIntervalS ?? FULL_CHECK_INTERVAL_S;
  let listing: ScopeListing | undefined;
  const list = (): ScopeListing => {
    listing ??= listScopeFiles(roots, scope);
    report.check = 'full';
    report.symlinks = listing.symlinks;
    report.complete = listing.complete;
    report.incompleteReasons = listing.incompleteReasons;
    return listing;
  };
  const report: FreshnessReport = {
    scope,
    action: 'fresh',
    added: 0,
    changed: 0,
    removed: 0,
    persisted: true,
    symlinks: [],
    complete: true,
    incompleteReasons: [],
    check: 'folders',
  };
  const finish = (entry: CacheEntry, state: IndexState, persisted: boolean, refreshedAt: number | undefined) => {
    report.persisted = persisted;
    if (persisted && refreshedAt !== undefined) lastSeen.set(dir, { state, mtime: refreshedAt, at: nowMs });
    else lastSeen.delete(dir);
    const index: ScopeIndex = {
      scope,
      dir,
      generation: entry.generation,
      base: entry.base,
      overlay: state.overlay,
      loadBucket: bucketLoader(dir, entry),
      persisted,
      refreshedAt,
    };
    return { index, report };
  };
  // A scope without its folder has nothing to index: an empty index in memory, nothing written
  // (a search in a folder without a vault must not leave .ecc/memory/.index behind there).
  if (lstatSync(root, { throwIfNoEntry: false }) === undefined && list().files.length === 0) {
    // never written, so no random name (one would load node:crypto, ~6 ms, on every search of a vault without this scope)
    const generation = 'none';
    const base: BaseDocs = new GenerationDocs(scope, generation, emptyDocTable(), [], 0);
    const entry: CacheEntry = { generation, base, built: { table: new DocTableBuilder(), invalid: [], bucket: () => Buffer.alloc(0) }, buckets: new Map() };
    const empty: IndexState = {
      format: INDEX_FORMAT_VERSION,
      schema: SCHEMA_VERSION,
      scope,
      root,
      generation,
      overlay: {},
      folders: {},
      fullCheckAt: -1,
      symlinks: [],
    };
    return finish(entry, empty, false, undefined);
  }
  const doRebuild = (reason: string, previous: string | undefined) => {
    const l = list();
    report.action = 'rebuilt';
    report.reason = reason;
    report.added = l.files.length;
    const r = rebuild(dir, scope, root, l, nowMs, previous, options.onProgress, ids);
    return finish(r.entry, r.state, r.persisted, r.refreshedAt);
  };

  if (options.rebuild) return doRebuild(typeof options.rebuild === 'string' ? options.rebuild : 'requested', cache.get(dir)?.generation);
  let state: IndexState;
  let refreshedAt: number;
  let entry: CacheEntry;
  try {
    ({ state, mtime: refreshedAt } = readState(dir, scope, root));
    entry = cached(dir, state.generation, () => ({ generation: state.generation, base: readBaseDocs(dir, state.generation, scope), buckets: new Map() }));
  } catch (err) {
    if (err instanceof IndexUnusable) return doRebuild(err.message, undefined);
    throw err;
  }

  const due = options.full === true || intervalS === 0 || state.fullCheckAt < 0 || nowMs < state.fullCheckAt || nowMs - state.fullCheckAt >= intervalS * 1000;
  const folderCheck = due ? undefined : checkFolders(roots, scope, root, state, entry.base, options.recheck);
  let diff: FileDiff;
  if (folderCheck) {
    report.symlinks = [...state.symlinks];
    diff = folderCheck;
    if (diff.changed.length === 0 && diff.removed.length === 0 && folderCheck.relisted.size === 0) return finish(entry, state, true, refreshedAt);
  } else {
    diff = diffFiles(entry.base, state.overlay, list().files);
    // with the interval at 0 every open is a full check: an unchanged vault writes nothing
    if (diff.changed.length === 0 && diff.removed.length === 0 && intervalS === 0 && sameFolders(state, listing!))
      return finish(entry, state, true, refreshedAt);
  }

  const overlay: Record<string, OverlayEntry> = { ...state.overlay };
  for (const p of diff.removed) {
    if (diff.inBase.has(p)) overlay[p] = { deleted: true };
    else delete overlay[p];
  }
  const reader = openScopeReader(roots, scope);
  try {
    diff.changed.forEach((f, i) => {
      const r = readIndexableFile(f.file, f.rel, reader);
      overlay[f.rel] = overlayEntryOf(r);
      if (diff.known[i]) report.changed++;
      else report.added++;
    });
  } finally {
    reader.close();
  }
  report.removed = diff.removed.length;
  if (Object.keys(overlay).length > compactionThreshold(entry.base.count)) {
    const r = doRebuild(`compacting ${Object.keys(overlay).length} changed files`, state.generation);
    r.report.added = report.added;
    return r;
  }
  if (diff.changed.length > 0 || diff.removed.length > 0) report.action = 'refreshed';
  const fsNow = safeNow(dir, ids);
  for (const f of diff.changed) {
    const e = overlay[f.rel]!;
    const rec = 'doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined;
    if (rec && rec.mtime > fsNow - RACY_WINDOW_MS) rec.mtime = -1;
  }
  const next: IndexState = folderCheck
    ? {
        ...state,
        overlay,
        folders: { ...state.folders, ...folderRecords(folderCheck.relisted, fsNow) },
        // a link in a listed folder sends the check to the full walk, so one recorded there is gone
        symlinks: state.symlinks.filter((l) => !folderCheck.relisted.has(folderOf(l.slice(scope.length + 1)))),
      }
    : { ...state, overlay, ...walkRecords(listing!, nowMs, fsNow) };
  try {
    refreshedAt = writeState(dir, next, ids);
    return finish(entry, next, true, refreshedAt);
  } catch {
    return finish(entry, next, false, refreshedAt);
  }
}

/** True when a full check found the folders state.bin records, none of them racy. */
function sameFolders(state: IndexState, listing: ScopeListing): boolean {
  if (!listing.complete || state.fullCheckAt < 0 || listing.folders.size !== Object.keys(state.folders).length) return false;
  for (const [rel, st] of listing.folders) {
    const rec = Object.hasOwn(state.folders, rel) ? state.folders[rel] : undefined;
    if (!rec || rec.mtime !== st.mtimeMs || rec.ino !== st.ino) return false;
  }
  return true;
}

/** What {@link diffFiles} found. */
export interface FileDiff {
  /** files whose fingerprint differs from the index, or that are new */
  changed: StatFile[];
  /** for each changed file: true when the index knew its path (an edit), false when it is new */
  known: boolean[];
  /** indexed paths that are no longer there */
  removed: string[];
  /** whether a path is in the generation (not only in the overlay) */
  inBase: { has(path: string): boolean };
}

/**
 * Files whose fingerprint differs from the index (or that are new), and indexed paths that are
 * gone. A merge of three lists in walk order (the files, the generation's documents, its invalid
 * files) with the overlay on top: no table of every path is built, so an unchanged vault costs
 * one string comparison per file.
 */
export function diffFiles(base: BaseDocs, overlay: Record<string, OverlayEntry>, files: readonly StatFile[], trustRacy = false): FileDiff {
  const overlaid = new Set(Object.keys(overlay));
  const fresh = (cur: { size: number; mtime: number }, f: StatFile) => cur.size === f.size && (cur.mtime === f.mtime || (trustRacy && cur.mtime === -1));
  const changed: StatFile[] = [];
  const known: boolean[] = [];
  const removed: string[] = [];
  const basePaths = new Set<string>();
  const seen = new Set<string>();
  // the generation's files in walk order: documents and invalid files merged
  let i = 0;
  let j = 0;
  const invalid = base.invalid;
  const nextBase = (): { path: string; size: number; mtime: number } | undefined => {
    const dp = i < base.count ? base.path(i) : undefined;
    const ip = j < invalid.length ? invalid[j]!.path : undefined;
    if (dp === undefined && ip === undefined) return undefined;
    if (ip === undefined || (dp !== undefined && compareWalkOrder(dp, ip) <= 0)) {
      const r = { path: dp!, size: base.size[i]!, mtime: base.mtime[i]! };
      i++;
      return r;
    }
    j++;
    return invalid[j - 1]!;
  };
  const gone = (b: { path: string }) => {
    basePaths.add(b.path);
    if (!(overlaid.has(b.path) && 'deleted' in overlay[b.path]!)) removed.push(b.path);
  };
  let b = nextBase();
  for (const f of files) {
    while (b && compareWalkOrder(b.path, f.rel) < 0) {
      gone(b);
      b = nextBase();
    }
    let cur: { size: number; mtime: number } | undefined;
    if (b && b.path === f.rel) {
      basePaths.add(b.path);
      cur = b;
      b = nextBase();
    }
    if (overlaid.size > 0 && overlaid.has(f.rel)) {
      seen.add(f.rel);
      const e = overlay[f.rel]!;
      cur = 'doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined;
    }
    if (cur && fresh(cur, f)) continue;
    changed.push(f);
    known.push(cur !== undefined);
  }
  for (; b; b = nextBase()) gone(b);
  // overlay files that are not in the generation and were not seen are gone too
  for (const p of overlaid) {
    if (!seen.has(p) && !('deleted' in overlay[p]!) && !removed.includes(p)) removed.push(p);
  }
  const inBase = { has: (p: string) => basePaths.has(p) || base.numberOf(p) >= 0 || invalid.some((r) => r.path === p) };
  return { changed, known, removed, inBase };
}

/**
 * Checks a scope's index without writing anything: whether it exists and how many files differ.
 */
export function checkScopeIndex(
  roots: VaultRoots,
  scope: Scope,
): {
  exists: boolean;
  reason?: string;
  generation?: string;
  documents: number;
  invalid: number;
  added: number;
  changed: number;
  removed: number;
  refreshedAt?: number;
  bytes: number;
  dir: string;
  files: number;
} {
  const dir = indexDirFor(roots, scope);
  const root = scopeRoot(roots, scope);
  const listing = listScopeFiles(roots, scope);
  try {
    const { state, mtime } = readState(dir, scope, root);
    const base = readBaseDocs(dir, state.generation, scope);
    // a file read within the racy window is re-verified by the next search; for a report it counts as indexed
    const diff = diffFiles(base, state.overlay, listing.files, true);
    let documents = base.count;
    let invalid = base.invalid.length;
    const docPaths = new Set(Array.from({ length: base.count }, (_, i) => base.path(i)));
    const invalidPaths = new Set(base.invalid.map((d) => d.path));
    for (const p in state.overlay) {
      const e = state.overlay[p]!;
      const wasDoc = docPaths.has(p);
      const wasInvalid = invalidPaths.has(p);
      if (wasDoc) documents--;
      if (wasInvalid) invalid--;
      if ('doc' in e) documents++;
      if ('invalid' in e) invalid++;
    }
    const added = diff.known.filter((k) => !k).length;
    return {
      exists: true,
      generation: state.generation,
      documents,
      invalid,
      added,
      changed: diff.changed.length - added,
      removed: diff.removed.length,
      refreshedAt: mtime,
      bytes: base.bytes + (lstatSync(join(dir, STATE_FILE), { throwIfNoEntry: false })?.size ?? 0),
      dir,
      files: listing.files.length,
    };
  } catch (err) {
    if (!(err instanceof IndexUnusable)) throw err;
    return {
      exists: false,
      reason: err.message,
      documents: 0,
      invalid: 0,
      added: listing.files.length,
      changed: 0,
      removed: 0,
      bytes: 0,
      dir,
      files: listing.files.length,
    };
  }
}
