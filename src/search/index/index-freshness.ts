/**
 * Keeps one scope's index fresh. Every use starts with a cheap check, a directory listing plus one
 * lstat per file (through the scanner's walk, so symlinks and hidden folders are treated exactly
 * as the scanner treats them), compared with the fingerprints (size, mtime) in the index. Only the
 * files that differ are re-read: they go into the overlay in state.json, which is rewritten
 * atomically. A missing, unreadable, old-format or foreign index is rebuilt from the files; when the
 * overlay grows past a few percent of the vault the generation is rebuilt (compaction). When the
 * index folder cannot be written, the fresh index is kept in memory and the search still answers.
 */
import { lstatSync } from 'node:fs';
import type { Scope } from '../../document/contract.js';
import { processIds, type ProcessIds } from '../../io/runtime.js';
import { DEFAULT_SCAN_LIMITS, walkVault, type WalkedFile } from '../../scanner/scan-vault.js';
import { scopeRoot, type VaultRoots } from '../../store/roots.js';
import { buildGeneration, type BuiltGeneration, type ProgressFn, type StatFile } from './index-build.js';
import { RACY_WINDOW_MS, type IndexState, type OverlayEntry } from './index-format.js';
import { BucketReader } from './postings.js';
import { GenerationDocs, compareWalkOrder, toColumns } from './generation-docs.js';
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
  writeGeneration,
  writeState,
  type BaseDocs,
} from './index-store.js';
import { INDEX_FORMAT_VERSION } from './index-format.js';
import { SCHEMA_VERSION } from '../../document/contract.js';
import { readIndexableFile } from './memory-terms.js';

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
  /** when state.json was last written (file system clock, ms), if it exists */
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
}

/** Options of {@link openScopeIndex}. */
export interface OpenOptions {
  /** build a new generation even if the index is usable (a string: the reason to report) */
  rebuild?: boolean | string | undefined;
  onProgress?: ProgressFn | undefined;
  /** names of temporary files and generations (default: this process) */
  ids?: ProcessIds | undefined;
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

/** Lists the scope's files with their stat fingerprints (one lstat per entry, from the walk itself). */
export function listScopeFiles(roots: VaultRoots, scope: Scope): { files: StatFile[]; symlinks: string[]; complete: boolean; incompleteReasons: string[] } {
  const files: StatFile[] = [];
  const prefix = scope.length + 1;
  const walk = walkVault(
    roots,
    [scope],
    DEFAULT_SCAN_LIMITS,
    (f: WalkedFile) => {
      files.push({ file: f, rel: f.path.slice(prefix), size: f.size!, mtime: f.mtimeMs! });
    },
    { stat: true },
  );
  return { files, symlinks: walk.symlinks, complete: walk.complete, incompleteReasons: walk.incompleteReasons };
}

/** Overlay entries beyond this many mean a rebuild is cheaper than carrying them on every search. */
function compactionThreshold(baseDocs: number): number {
  return 256 + Math.floor(baseDocs / 50);
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
  files: StatFile[],
  previous: string | undefined,
  onProgress: ProgressFn | undefined,
  ids: ProcessIds,
): { entry: CacheEntry; persisted: boolean; refreshedAt: number | undefined; state: IndexState } {
  const built = buildGeneration(scope, files, () => safeNow(dir, ids), onProgress);
  const generation = newGeneration(ids);
  const state: IndexState = { format: INDEX_FORMAT_VERSION, schema: SCHEMA_VERSION, scope, root, generation, overlay: {} };
  try {
    ensureIndexDir(dir, ids);
    writeGeneration(dir, generation, scope, built.docs, built.invalid, built.bucket, ids);
    const refreshedAt = writeState(dir, state, ids);
    cleanIndexDir(dir, generation, previous, refreshedAt);
    // re-read from disk lazily: the built postings are dropped, keeping memory flat
    const persistedBase = readBaseDocs(dir, generation, scope);
    const entry: CacheEntry = { generation, base: persistedBase, buckets: new Map() };
    cache.set(dir, entry);
    return { entry, persisted: true, refreshedAt, state };
  } catch (err) {
    if (err instanceof IndexUnusable) throw err;
    const base: BaseDocs = new GenerationDocs(scope, generation, toColumns(built.docs, built.invalid), [], 0);
    const entry: CacheEntry = { generation, base, built, buckets: new Map() };
    cache.set(dir, entry);
    return { entry, persisted: false, refreshedAt: undefined, state };
  }
}

/**
 * Opens one scope's index, fresh: checks every file's fingerprint, re-reads what changed, and
 * rebuilds when the index is missing or unusable. Never throws for a bad index or a bad file.
 *
 * @returns the index and a report of what was done
 */
export function openScopeIndex(roots: VaultRoots, scope: Scope, options: OpenOptions = {}): { index: ScopeIndex; report: FreshnessReport } {
  const dir = indexDirFor(roots, scope);
  const root = scopeRoot(roots, scope);
  const ids = options.ids ?? processIds;
  const listing = listScopeFiles(roots, scope);
  const report: FreshnessReport = {
    scope,
    action: 'fresh',
    added: 0,
    changed: 0,
    removed: 0,
    persisted: true,
    symlinks: listing.symlinks,
    complete: listing.complete,
    incompleteReasons: listing.incompleteReasons,
  };
  const finish = (entry: CacheEntry, state: IndexState, persisted: boolean, refreshedAt: number | undefined) => {
    report.persisted = persisted;
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
  if (listing.files.length === 0 && lstatSync(root, { throwIfNoEntry: false }) === undefined) {
    const generation = newGeneration(ids);
    const base: BaseDocs = new GenerationDocs(scope, generation, toColumns([], []), [], 0);
    const entry: CacheEntry = { generation, base, built: { docs: [], invalid: [], bucket: () => Buffer.alloc(0) }, buckets: new Map() };
    return finish(entry, { format: INDEX_FORMAT_VERSION, schema: SCHEMA_VERSION, scope, root, generation, overlay: {} }, false, undefined);
  }
  const doRebuild = (reason: string, previous: string | undefined) => {
    report.action = 'rebuilt';
    report.reason = reason;
    report.added = listing.files.length;
    const r = rebuild(dir, scope, root, listing.files, previous, options.onProgress, ids);
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

  const diff = diffFiles(entry.base, state.overlay, listing.files);
  if (diff.changed.length === 0 && diff.removed.length === 0) return finish(entry, state, true, refreshedAt);

  const overlay: Record<string, OverlayEntry> = { ...state.overlay };
  for (const p of diff.removed) {
    if (diff.inBase.has(p)) overlay[p] = { deleted: true };
    else delete overlay[p];
  }
  diff.changed.forEach((f, i) => {
    const r = readIndexableFile(f.file, f.rel);
    overlay[f.rel] = 'invalid' in r ? { invalid: r.invalid } : { doc: r.doc };
    if (diff.known[i]) report.changed++;
    else report.added++;
  });
  report.removed = diff.removed.length;
  if (Object.keys(overlay).length > compactionThreshold(entry.base.count)) {
    const r = doRebuild(`compacting ${Object.keys(overlay).length} changed files`, state.generation);
    r.report.added = report.added;
    return r;
  }
  report.action = 'refreshed';
  const now = safeNow(dir, ids);
  for (const f of diff.changed) {
    const e = overlay[f.rel]!;
    const rec = 'doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined;
    if (rec && rec.mtime > now - RACY_WINDOW_MS) rec.mtime = -1;
  }
  const next: IndexState = { ...state, overlay };
  try {
    refreshedAt = writeState(dir, next, ids);
    return finish(entry, next, true, refreshedAt);
  } catch {
    return finish(entry, next, false, refreshedAt);
  }
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
      bytes: base.bytes + Buffer.byteLength(JSON.stringify(state)),
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
