/**
 * The on-disk shape of the search index, its version numbers and the term → bucket rule.
 *
 * One index per scope folder:
 *
 *   <index dir>/.gitignore           "*": the folder never enters git, wherever it sits
 *   <index dir>/state.json           format, schema, generation, and the overlay of files changed
 *                                    since that generation was built (small; rewritten on refresh)
 *   <index dir>/g-<generation>/docs.bin      per-file fingerprints and metadata: binary typed columns
 *                                            and string heaps (see generation-docs.ts)
 *   <index dir>/g-<generation>/bNNN.bin      postings of the terms that fall in bucket NNN (see postings.ts)
 *
 * A generation folder is written once and never changed; refreshes only rewrite state.json.
 * Terms are bucketed by their first two characters, so a query loads only the buckets of its
 * own terms, and every prefix and fuzzy expansion of a term is in the term's bucket (fuzzy
 * matching therefore never changes the first two characters, like Elasticsearch's
 * `prefix_length: 2`).
 */
import type { Diagnostic } from '../../diagnostics.js';
import type { Kind, Scope, Status } from '../../document/contract.js';

/** Bumped whenever the files' shape or the tokenizer changes: an index of another format is rebuilt. */
export const INDEX_FORMAT_VERSION = 11;
/** Number of term buckets in a generation. */
export const BUCKET_COUNT = 128;
/** MiniSearch fields, in field-id order. */
export const FIELDS = ['title', 'tags', 'kind', 'id', 'body'] as const;
export type FieldName = (typeof FIELDS)[number];
/** A file modified less than this long before it was read may change again within the same mtime tick. */
export const RACY_WINDOW_MS = 2000;

/** Fingerprint and filter metadata of one indexed memory (a row of docs.bin). */
export interface DocRecord {
  /** the scope folder it is in (not stored: every generation belongs to one scope) */
  scope: Scope;
  /** path below the scope folder, `/`-separated (`decisions/mem_x.md`) */
  path: string;
  id: string;
  kind: Kind;
  status: Status;
  tags: string[];
  targets: string[];
  /** source_harness: who wrote it */
  source: string;
  /** ids this memory links to (frontmatter links and body wikilinks): `vault read`'s backlinks */
  links: string[];
  /** updated_at in ms since the epoch */
  updated: number;
  /** file size in bytes */
  size: number;
  /** file mtime in ms; -1 forces a re-read on the next freshness check (racy or unknown) */
  mtime: number;
  /** number of terms per field, in {@link FIELDS} order */
  len: number[];
}

/** A memory changed since the generation was built, with its terms (term → frequency per field). */
export interface OverlayDoc extends DocRecord {
  terms: Record<string, number[]>;
}

/**
 * A file of the vault that is not a usable memory, remembered so it is not re-read on every
 * search: the scanner's diagnostic of it (FileDiagnostic) with `path` below the scope folder, its
 * fingerprint, and the id it claims when it parsed.
 */
export interface InvalidRecord extends Diagnostic {
  /** path below the scope folder, `/`-separated (`notes/mem_x.md`) */
  path: string;
  /** file size in bytes; -1 when unknown */
  size: number;
  /** file mtime in ms; -1 forces a re-read on the next freshness check */
  mtime: number;
  id?: string | undefined;
}

/** One overlay entry: the file now holds this memory, is invalid, or is gone. */
export type OverlayEntry = { doc: OverlayDoc } | { invalid: InvalidRecord } | { deleted: true };

/** A folder's fingerprint (lstat, taken before it was listed); mtime -1: re-list it on the next check. */
export interface FolderRecord {
  mtime: number;
  ino: number;
}

/** The full per-file check runs when the last one is older than this (`ECC_INDEX_FULL_CHECK_S` overrides; 0 = always). */
export const FULL_CHECK_INTERVAL_S = 60;

/** state.json */
export interface IndexState {
  format: number;
  schema: string;
  scope: Scope;
  /** absolute scope folder the index describes */
  root: string;
  generation: string;
  /** path → what changed since the generation was built */
  overlay: Record<string, OverlayEntry>;
  /**
   * Folder-level freshness: the scope folder (`""`) and every folder below it (`decisions`,
   * `notes/2026`), as of the last check. Empty when that check could not see the whole scope.
   */
  folders: Record<string, FolderRecord>;
  /** when the last full per-file check ran (ms since the epoch, the caller's clock); -1 = never trusted */
  fullCheckAt: number;
  /** symbolic links the last full check found (vault-relative), reported by every search */
  symlinks: string[];
}

/** Why an index (or one of its files) could not be used: it is then rebuilt from the files, never trusted. */
export class IndexUnusable extends Error {
  override readonly name = 'IndexUnusable';
}

/** The bucket of a term: FNV-1a of its first two UTF-16 units. */
export function bucketOf(term: string): number {
  // the first two UTF-16 code units (term.slice(0, 2)), read without making that string
  const n = Math.min(term.length, 2);
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % BUCKET_COUNT;
}

/** File name of a bucket inside a generation folder. */
export function bucketFileName(bucket: number): string {
  return `b${String(bucket).padStart(3, '0')}.bin`;
}
