/**
 * The resident index engine: a scope's opened index (its documents table and the decoded term
 * buckets) is kept between requests (search, similar check and read answer from it), and opened again only after the scope was
 * marked changed. It knows nothing of watchers or sockets: whoever runs it (the index server,
 * src/server/) marks a scope changed whenever anything in its folders may have changed, and
 * marks everything changed when it cannot tell. Answers are those of the on-disk path
 * ({@link searchMemories}, the index-backed read) over the same files.
 */
import { SCOPES, type Scope } from '../../document/contract.js';
import type { VaultRoots } from '../../store/roots.js';
import type { ScopeIndex } from '../index/index-freshness.js';
import { liveCount } from '../query/query-ranking.js';
import { findSimilarMemoriesWith, type SimilarMemory, type SimilarProbe } from '../query/similar-memories.js';
import { openIndexes, searchMemoriesWith, type SearchDiagnostics, type SearchOptions, type SearchResponse } from '../query/search-memories.js';

interface KeptIndex {
  index: ScopeIndex;
  diagnostics: SearchDiagnostics;
}

/** Counters for `vault watch --status`. */
export interface EngineStats {
  /** live memories in the kept indexes, per scope */
  memories: Partial<Record<Scope, number>>;
  /** indexes opened from disk (each a full freshness check of one scope) */
  indexOpens: number;
}

/** One vault's kept indexes and scans. Not safe for overlapping calls: the server runs requests one at a time. */
export class ResidentEngine {
  private readonly indexes = new Map<Scope, KeptIndex>();
  private readonly changed = new Set<Scope>();
  /** scopes where only these memory files (vault-relative) changed since their index was kept */
  private readonly changedFiles = new Map<Scope, Set<string>>();
  private opens = 0;
  /**
   * The indexes array last answered per list of scopes, handed out again while its members are
   * the same kept indexes: the ranking keeps what it derives from an array (the corpus numbering,
   * decoded postings of query terms; query-ranking.ts) by that array's identity, so requests in a
   * row reuse it instead of deriving it again.
   */
  private readonly answered = new Map<string, ScopeIndex[]>();

  constructor(readonly roots: VaultRoots) {}

  /** Something in these scopes' folders may have changed (or, without scopes, anywhere). */
  markChanged(scopes?: readonly Scope[]): void {
    for (const s of scopes ?? SCOPES) {
      this.changed.add(s);
      this.changedFiles.delete(s);
      this.indexes.delete(s);
    }
  }

  /**
   * Only this memory file of a kept scope changed (created, written, removed: a watcher reported
   * its name): the scope is opened again with the folder check plus this file's own check, not
   * the per-file check of every file (at 100,000 memories a save's one new file cost the server a
   * walk of the whole scope). A scope not kept, or already marked changed, is checked in full.
   *
   * @param path vault-relative (`team/notes/mem_x.md`)
   */
  markFileChanged(scope: Scope, path: string): void {
    if (this.changed.has(scope)) return;
    if (!this.indexes.has(scope) && !this.changedFiles.has(scope)) {
      this.markChanged([scope]);
      return;
    }
    let files = this.changedFiles.get(scope);
    if (!files) this.changedFiles.set(scope, (files = new Set()));
    files.add(path);
    this.indexes.delete(scope);
  }

  /** Scopes marked changed and not opened since. */
  pending(): Scope[] {
    return [...new Set([...this.changed, ...this.changedFiles.keys()])];
  }

  /**
   * Opens the changed (or never opened) scopes' indexes again, through the same freshness check
   * as a search without the server (which also brings the on-disk index up to date).
   */
  refresh(scopes: readonly Scope[]): SearchDiagnostics {
    return this.open(this.roots, scopes);
  }

  /** {@link searchMemories} over the kept indexes. @throws VaultError `invalid-input` as searchMemories */
  search(query: string, options: SearchOptions): Promise<SearchResponse> {
    return searchMemoriesWith((roots, scopes, rebuild) => this.openWith(roots, scopes, rebuild), this.roots, query, options);
  }

  /** {@link findSimilarMemories} with the candidates from the kept indexes (the files decide, as without the server). */
  similar(memory: SimilarProbe): Promise<SimilarMemory[]> {
    return findSimilarMemoriesWith((roots, scopes, rebuild) => this.openWith(roots, scopes, rebuild), this.roots, memory);
  }

  /**
   * The kept indexes of these scopes (a changed one opened again with the per-file check, or the
   * folder check plus the files the watcher named, see {@link ResidentEngine.markFileChanged}), with
   * their diagnostics: what `vault read` answers from, as a read without the server answers from
   * the indexes on disk. `full` is true: every kept index was checked file by file and watched since.
   */
  kept(scopes: readonly Scope[]): { indexes: ScopeIndex[]; diagnostics: SearchDiagnostics; full: boolean } {
    return this.openWith(this.roots, scopes);
  }

  stats(): EngineStats {
    const memories: Partial<Record<Scope, number>> = {};
    // in the scopes' own order (the map's follows which scope was opened last)
    for (const scope of SCOPES) {
      const kept = this.indexes.get(scope);
      if (kept) memories[scope] = liveCount([kept.index]);
    }
    return { memories, indexOpens: this.opens };
  }

  /**
   * Kept indexes count as fully checked (`full`): each was opened with the per-file check and
   * watched since (a reopen after named files checks each of them, and every folder, again).
   */
  private openWith(
    roots: VaultRoots,
    scopes: readonly Scope[],
    rebuild: boolean | string = false,
  ): { indexes: ScopeIndex[]; diagnostics: SearchDiagnostics; full: boolean } {
    if (rebuild) {
      for (const s of scopes) this.indexes.delete(s);
      const opened = openIndexes(roots, scopes, rebuild, { full: true });
      this.opens += scopes.length;
      return opened;
    }
    this.open(roots, scopes);
    const diagnostics: SearchDiagnostics = { invalidFiles: [], skippedSymlinks: [], complete: true, incompleteReasons: [], index: [] };
    const indexes: ScopeIndex[] = [];
    for (const s of scopes) {
      const kept = this.indexes.get(s)!;
      indexes.push(kept.index);
      const d = kept.diagnostics;
      diagnostics.invalidFiles.push(...d.invalidFiles);
      diagnostics.skippedSymlinks.push(...d.skippedSymlinks);
      if (!d.complete) diagnostics.complete = false;
      diagnostics.incompleteReasons.push(...d.incompleteReasons);
      diagnostics.index.push(...d.index);
    }
    const key = scopes.join(',');
    const before = this.answered.get(key);
    if (before && before.length === indexes.length && before.every((ix, i) => ix === indexes[i])) return { indexes: before, diagnostics, full: true };
    this.answered.set(key, indexes);
    return { indexes, diagnostics, full: true };
  }

  /** Opens the scopes not kept, and answers the diagnostics of those it opened. */
  private open(roots: VaultRoots, scopes: readonly Scope[]): SearchDiagnostics {
    const diagnostics: SearchDiagnostics = { invalidFiles: [], skippedSymlinks: [], complete: true, incompleteReasons: [], index: [] };
    for (const s of scopes) {
      if (this.indexes.has(s)) continue;
      // cleared before the check: a change seen while it runs marks the scope again
      const files = this.changed.has(s) ? undefined : this.changedFiles.get(s);
      this.changed.delete(s);
      this.changedFiles.delete(s);
      // the per-file check, or (only files the watcher named changed since the last check) the
      // folder check plus those files' own: a folder-level check alone would miss an in-place write
      const opened = openIndexes(roots, [s], false, files ? { recheck: [...files] } : { full: true });
      this.opens++;
      const index = opened.indexes[0]!;
      const d = opened.diagnostics;
      // later requests see the index as it now is: fresh
      const kept = { ...d, index: d.index.map((r) => ({ ...r, action: 'fresh' as const, reason: undefined, added: 0, changed: 0, removed: 0 })) };
      this.indexes.set(s, { index, diagnostics: kept });
      diagnostics.invalidFiles.push(...d.invalidFiles);
      diagnostics.skippedSymlinks.push(...d.skippedSymlinks);
      if (!d.complete) diagnostics.complete = false;
      diagnostics.incompleteReasons.push(...d.incompleteReasons);
      diagnostics.index.push(...d.index);
    }
    return diagnostics;
  }
}
