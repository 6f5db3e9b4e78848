/**
 * Index maintenance for people and tools: status (read-only), refresh and rebuild. `vault index`,
 * `vault watch` and doctor's "index stale or missing" check call these.
 */
import type { Scope } from '../../document/contract.js';
import { SCOPES } from '../../document/contract.js';
import type { VaultRoots } from '../../store/roots.js';
import type { ProgressFn } from './index-build.js';
import { checkScopeIndex, openScopeIndex, type FreshnessReport } from './index-freshness.js';

/** The state of one scope's index. */
export interface ScopeIndexStatus {
  scope: Scope;
  /** absolute index folder */
  location: string;
  /** a usable index exists (right format, schema and folder) */
  exists: boolean;
  /** files were added, changed or removed since the last refresh (or the index is missing) */
  stale: boolean;
  /** why the index is unusable, when it is */
  reason?: string | undefined;
  /** memories indexed */
  documents: number;
  /** invalid files remembered as diagnostics */
  invalid: number;
  /** `*.md` files in the scope folder now */
  files: number;
  added: number;
  changed: number;
  removed: number;
  /** bytes on disk */
  bytes: number;
  /** when the index was last written (ISO-8601), if ever */
  lastRefresh: string | undefined;
}

/** The state of the index over several scopes. */
export interface IndexStatus {
  exists: boolean;
  stale: boolean;
  documents: number;
  bytes: number;
  lastRefresh: string | undefined;
  /** index folder of each scope */
  location: Record<string, string>;
  scopes: ScopeIndexStatus[];
}

/**
 * Reports the index's state without changing anything (reads state and fingerprints, lists files).
 *
 * @param scopes default project and team
 */
export function indexStatus(roots: VaultRoots, scopes: readonly Scope[] = ['project', 'team']): IndexStatus {
  const per: ScopeIndexStatus[] = scopes.map((scope) => {
    const c = checkScopeIndex(roots, scope);
    return {
      scope,
      location: c.dir,
      exists: c.exists,
      stale: !c.exists || c.added + c.changed + c.removed > 0,
      ...(c.reason ? { reason: c.reason } : {}),
      documents: c.documents,
      invalid: c.invalid,
      files: c.files,
      added: c.added,
      changed: c.changed,
      removed: c.removed,
      bytes: c.bytes,
      lastRefresh: c.refreshedAt !== undefined ? new Date(c.refreshedAt).toISOString() : undefined,
    };
  });
  const times = per
    .map((p) => p.lastRefresh)
    .filter((t): t is string => t !== undefined)
    .sort();
  return {
    exists: per.every((p) => p.exists),
    stale: per.some((p) => p.stale),
    documents: per.reduce((a, p) => a + p.documents, 0),
    bytes: per.reduce((a, p) => a + p.bytes, 0),
    lastRefresh: times.at(-1),
    location: Object.fromEntries(per.map((p) => [p.scope, p.location])),
    scopes: per,
  };
}

/** Options of {@link refreshIndex} and {@link rebuildIndex}. */
export interface IndexMaintenanceOptions {
  /** default project and team */
  scopes?: readonly Scope[] | undefined;
  /** called while files are read during a build: (files read, total) per scope */
  onProgress?: ((scope: Scope, done: number, total: number) => void) | undefined;
  /**
   * which check a refresh runs: every file's fingerprint (default; `vault index`), or only the
   * folders' (after the vault wrote a file itself, whose folder is then listed again)
   */
  check?: 'full' | 'folders' | undefined;
}

function run(roots: VaultRoots, options: IndexMaintenanceOptions, rebuild: boolean): FreshnessReport[] {
  const scopes = options.scopes ?? (['project', 'team'] as Scope[]);
  return scopes.map((scope) => {
    const onProgress: ProgressFn | undefined = options.onProgress ? (d, t) => options.onProgress!(scope, d, t) : undefined;
    return openScopeIndex(roots, scope, { rebuild, onProgress, full: options.check !== 'folders' }).report;
  });
}

/** Brings the index up to date with the files: re-reads only what changed (or rebuilds an unusable index). */
export function refreshIndex(roots: VaultRoots, options: IndexMaintenanceOptions = {}): FreshnessReport[] {
  return run(roots, options, false);
}

/** Builds the index from the files from scratch. */
export function rebuildIndex(roots: VaultRoots, options: IndexMaintenanceOptions = {}): FreshnessReport[] {
  return run(roots, options, true);
}

/** Every scope, for callers that want all three. */
export const INDEX_SCOPES: readonly Scope[] = SCOPES;
