/**
 * The on-disk shape of the search index, its version numbers and the term → bucket rule.
 *
 * One index per scope folder:
 *
 *   <index dir>/.gitignore           "*": the folder never enters git, wherever it sits
 *   <index dir>/state.bin            one JSON line (format, schema, generation, folder records, and
 *                                    the overlay: the files changed since that generation was
 *                                    built), then the overlay documents' terms as bytes (see
 *                                    index-store.ts, readState; rewritten on refresh)
 *   <index dir>/g-<generation>/docs.bin      per-file fingerprints and metadata: binary typed columns
 *                                            and string heaps (see generation-docs.ts)
 *   <index dir>/g-<generation>/bNNN.bin      postings of the terms that fall in bucket NNN (see postings.ts)
 *
 * A generation folder is written once and never changed; refreshes only rewrite state.bin.
 * Terms are bucketed by their first two characters, so a query loads only the buckets of its
 * own terms, and every prefix and fuzzy expansion of a term is in the term's bucket (fuzzy
 * matching therefore never changes the first two characters, like Elasticsearch's
 * `prefix_length: 2`). Except a term starting with `mem_` (a memory id, whole, from the id field
 * or a link): each memory has its own, and by their first two characters every one of them fell
 * in the bucket of the words starting with "me" (at 100,000 memories a 4.6 MB bucket header that
 * any query or feedback word such as "meeting" made a search parse). Such a term is bucketed by
 * all its characters: an id is found whole, not by a prefix or with a typo.
 */
import type { Diagnostic } from '../../diagnostics.js';
import type { Kind, Scope, Status } from '../../document/contract.js';

/** Bumped whenever the files' shape or the tokenizer changes: an index of another format is rebuilt. */
export const INDEX_FORMAT_VERSION = 14;
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

/** A memory changed since the generation was built, with its terms (see {@link encodeOverlayTerms}). */
export interface OverlayDoc extends DocRecord {
  /** term → frequency per field, encoded by {@link encodeOverlayTerms} (UTF-8 bytes) */
  terms: Buffer;
}

/**
 * The text of an overlay document's terms ({@link encodeOverlayTerms}), decoded once per document
 * and kept while the document is: a search decodes the ~3.5 KB of each changed memory when it
 * first scans it, not the whole state file, and a memory in Chinese or Japanese makes only its own
 * text two-byte. Callers decode once per document, outside their loops over query terms.
 */
export function overlayTermsText(encoded: Buffer): string {
  let text = decodedTerms.get(encoded);
  if (text === undefined) decodedTerms.set(encoded, (text = encoded.toString('utf8')));
  return text;
}

const decodedTerms = new WeakMap<Buffer, string>();

/**
 * The terms of an overlay document as UTF-8 bytes, `\nterm\tf,f,f,f,f` per term (frequency per
 * field in {@link FIELDS} order). They sit after the state file's JSON line, never parsed as JSON
 * or decoded as one text: a query decodes each document's terms when it first scans them and looks
 * up only the terms it needs ({@link overlayTermsStartingWith}, {@link overlayHasTerm}); at 300
 * changed memories, parsing them as JSON strings cost every search ~7 ms more. Terms hold no
 * tab or line feed (the tokenizer's words are letters, digits, marks and code separators).
 */
export function encodeOverlayTerms(terms: Readonly<Record<string, readonly number[]>>): Buffer {
  let out = '';
  for (const t in terms) out += `\n${t}\t${terms[t]!.join(',')}`;
  const encoded = Buffer.from(out, 'utf8');
  decodedTerms.set(encoded, out);
  return encoded;
}

/**
 * One term of {@link encodeOverlayTerms}: a term of at most 64 UTF-16 units (the tokenizer's
 * MAX_TERM_CHARS), none a control character (no tokenizer term holds one), and FIELDS.length frequencies of at most 6 digits (a 64 KiB body holds at most
 * 65,536 words).
 */
const OVERLAY_TERM_LINE = /^[^\x00-\x1f]{1,64}\t\d{1,6},\d{1,6},\d{1,6},\d{1,6},\d{1,6}$/;

/** Terms one overlay document may hold: a 64 KiB memory has fewer distinct terms (each takes 2+ bytes). */
export const MAX_OVERLAY_TERMS = 40_000;

/**
 * True when `v` has the outer shape {@link encodeOverlayTerms} writes for one memory: bytes
 * starting with a line feed (a memory always has terms: its kind's), no longer than {@link MAX_OVERLAY_TERMS} of the longest
 * lines. The state file is checked before it is used; the lines themselves are checked where
 * they are read ({@link overlayTermsStartingWith}): checking every line of every entry on load
 * cost a search ~5-10 ms cold at 30 changed memories (~0.2 ms each), for lines no query reads.
 */
export function isOverlayTerms(v: unknown): v is Buffer {
  return Buffer.isBuffer(v) && v.length > 0 && v[0] === 10 && v.length <= MAX_OVERLAY_TERMS * MAX_OVERLAY_LINE_BYTES;
}

/**
 * The longest line of {@link encodeOverlayTerms} in bytes: a line feed, 64 UTF-16 units of term
 * (up to 3 bytes each in UTF-8), a tab, five 6-digit frequencies and four commas.
 */
const MAX_OVERLAY_LINE_BYTES = 1 + 64 * 3 + 1 + 5 * 6 + 4;

/**
 * The terms of an overlay document ({@link overlayTermsText}) that start with `prefix`, with their
 * frequencies per field. Every index term a query term can match (itself, a longer term it prefixes, a term one
 * edit away sharing its first two characters) starts with the query term's first two characters.
 * Each line is checked as it is read (see {@link isOverlayTerms}).
 *
 * @throws IndexUnusable for a line {@link encodeOverlayTerms} cannot have written, or more than
 *   {@link MAX_OVERLAY_TERMS} of them (a planted state file: the caller rebuilds the index)
 */
export function* overlayTermsStartingWith(text: string, prefix: string): Generator<[string, number[]]> {
  const needle = `\n${prefix}`;
  let count = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
    let end = text.indexOf('\n', i + 1);
    if (end < 0) end = text.length;
    const line = text.slice(i + 1, end);
    if (++count > MAX_OVERLAY_TERMS || !OVERLAY_TERM_LINE.test(line)) throw new IndexUnusable('the state file holds overlay terms of an unexpected shape');
    const tab = line.indexOf('\t');
    yield [
      line.slice(0, tab),
      line
        .slice(tab + 1)
        .split(',')
        .map(Number),
    ];
  }
}

/** Whether an overlay document's terms ({@link overlayTermsText}) hold `term`. */
export function overlayHasTerm(text: string, term: string): boolean {
  return text.includes(`\n${term}\t`);
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

/** Reads a full-check interval as `ECC_INDEX_FULL_CHECK_S` gives it: whole seconds ≥ 0, else the default. */
export function fullCheckIntervalFrom(value: string | undefined): number {
  return value !== undefined && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : FULL_CHECK_INTERVAL_S;
}

/** The state file (state.bin), as read: the overlay documents' terms are views of its bytes. */
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

/** The bucket of a term: FNV-1a of its first two UTF-16 units, or of all of them for a memory id (`mem_…`; see the module comment). */
export function bucketOf(term: string): number {
  // the first two UTF-16 code units (term.slice(0, 2)), read without making that string
  const n = term.startsWith('mem_') ? term.length : Math.min(term.length, 2);
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
