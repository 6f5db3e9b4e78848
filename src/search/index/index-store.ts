/**
 * Reading and writing index files. Every file write is atomic (store/atomic-write.ts: a temp file
 * in the same folder, renamed into place), generation folders are renamed into place complete,
 * and every read is checked (version, shape, byte length), so a missing, truncated, garbage or
 * old-format index reads as "absent" and is rebuilt, never trusted.
 */
import {
  closeSync,
  constants,
  fstatSync,
  type Stats,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { KINDS, SCHEMA_VERSION, STATUSES, type Scope } from '../../document/contract.js';
import type { ProcessIds } from '../../io/runtime.js';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { BUCKET_COUNT, FIELDS, INDEX_FORMAT_VERSION, IndexUnusable, bucketFileName, isOverlayTerms, type IndexState } from './index-format.js';
import { BucketReader, termsHeldByMore } from './postings.js';
import { COMMON_SHARE, DOCS_FILE, decodeDocTable, GenerationDocs, isInvalidRecord } from './generation-docs.js';
import type { BuiltGeneration } from './index-build.js';

export { IndexUnusable };

/** A temporary name in an index folder (`.tmp-<pid>-<hex>`; cleanIndexDir removes old ones). */
function tempName(ids: ProcessIds): string {
  return `.tmp-${ids.pid}-${ids.randomHex(6)}`;
}

/**
 * Refuses an index folder reached through a symbolic link: the folder itself, its parent and
 * grandparent (`<git dir>/ecc-memory-index/<scope>`, `<vault>/.index/<scope>`,
 * `~/.ecc/memory/.index`) must be real folders or not exist yet. A linked index would let
 * index writes and clean-ups land outside the vault, and let planted index files feed search.
 *
 * @throws Error when a component is a symbolic link
 */
export function assertIndexDirUnlinked(dir: string): void {
  let p = dir;
  for (let level = 0; level < 3; level++) {
    try {
      if (lstatSync(p).isSymbolicLink()) throw new Error(`index folder path contains a symbolic link: ${p}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    p = dirname(p);
  }
}

/** Creates the index folder and its self-ignoring `.gitignore`. @throws Error for a linked path */
export function ensureIndexDir(dir: string, ids: ProcessIds): void {
  assertIndexDirUnlinked(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  assertIndexDirUnlinked(dir);
  try {
    statSync(join(dir, '.gitignore'));
  } catch {
    writeIndexFile(join(dir, '.gitignore'), '*\n', ids);
  }
}

/**
 * Writes an index file atomically (store/atomic-write.ts), never through a linked folder. Without
 * fsync: the index is disposable, and a file a power cut left empty or torn reads as unusable and
 * is rebuilt from the Markdown files (measured with fsync on the shared 2-core machine, the
 * median `vault save` was about 8% slower: it writes state.bin twice).
 *
 * @returns its mtime (the file system's clock)
 */
export function writeIndexFile(target: string, text: string | Uint8Array, ids: ProcessIds): number {
  const dir = join(target, '..');
  assertIndexDirUnlinked(dir);
  return writeFileAtomic(target, text, { tempPath: join(dir, tempName(ids)), commit: 'replace', mode: 0o600, durable: false }).mtimeMs;
}

/** The file system's current time, read from a probe file in `dir` (the clock that stamps memory files). */
export function fileSystemNow(dir: string, ids: ProcessIds): number {
  const probe = join(dir, tempName(ids));
  writeFileSync(probe, '', { mode: 0o600 });
  try {
    return statSync(probe).mtimeMs;
  } finally {
    rmSync(probe, { force: true });
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Index files above this size are not read (a JSON text this long could not be parsed anyway). */
const MAX_INDEX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Opens one index file as a regular file, without following a symbolic link (a planted link to
 * /dev/zero, a FIFO or a file outside the vault must not hang or feed the search), and runs `use`
 * on it; the file is always closed.
 *
 * @param missing the reason when it cannot be opened (absent, or a symbolic link)
 * @throws IndexUnusable `missing`, what `use` throws, or `<what> is unreadable`
 */
function withIndexFile<T>(file: string, what: string, missing: string, use: (fd: number, st: Stats) => T): T {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    throw new IndexUnusable(missing);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new IndexUnusable(`${what} is not a regular file`);
    return use(fd, st);
  } catch (err) {
    if (err instanceof IndexUnusable) throw err;
    throw new IndexUnusable(`${what} is unreadable`);
  } finally {
    closeSync(fd);
  }
}

/** Reads `length` bytes at `position`; fewer when the file ends first. */
function readAt(fd: number, length: number, position: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let off = 0;
  for (let got = 1; off < length && got > 0; off += got) got = readSync(fd, bytes, off, length - off, position + off);
  return off === length ? bytes : bytes.subarray(0, off);
}

/**
 * Reads one whole index file, at most {@link MAX_INDEX_FILE_BYTES} (see {@link withIndexFile}).
 *
 * @returns the bytes and the file's mtime (ms)
 * @throws IndexUnusable `missing`, or naming what is wrong
 */
function readIndexFile(file: string, what: string, missing = `${what} is missing`): { bytes: Buffer; mtime: number } {
  return withIndexFile(file, what, missing, (fd, st) => {
    if (st.size > MAX_INDEX_FILE_BYTES) throw new IndexUnusable(`${what} is larger than ${MAX_INDEX_FILE_BYTES} bytes`);
    return { bytes: readAt(fd, st.size, 0), mtime: st.mtimeMs };
  });
}

/** A generation's folder, which must be a real folder (not a symbolic link). @throws IndexUnusable */
function generationDir(dir: string, generation: string): string {
  const g = join(dir, `g-${generation}`);
  let isDir = false;
  try {
    isDir = lstatSync(g).isDirectory();
  } catch {
    /* missing */
  }
  if (!isDir) throw new IndexUnusable(`generation ${generation} is missing`);
  return g;
}

const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isNumbers = (v: unknown, length: number): boolean => Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'number');

/**
 * True when an overlay entry of the state file has the shape the search reads, for the file at `path`
 * of `scope`: a record's own path must be its key (the key is what the freshness check matches
 * with the files; the record's path and scope are what a search reads).
 */
function isOverlayEntry(e: unknown, path: string, scope: Scope): boolean {
  if (!isObj(e)) return false;
  if ('deleted' in e) return e.deleted === true;
  if ('invalid' in e) return isInvalidRecord(e.invalid) && e.invalid.path === path;
  const d = e.doc;
  if (!isObj(d)) return false;
  const F = FIELDS.length;
  return (
    d.path === path &&
    d.scope === scope &&
    typeof d.id === 'string' &&
    (KINDS as readonly unknown[]).includes(d.kind) &&
    (STATUSES as readonly unknown[]).includes(d.status) &&
    isStrings(d.tags) &&
    isStrings(d.targets) &&
    isStrings(d.links) &&
    typeof d.source === 'string' &&
    typeof d.updated === 'number' &&
    typeof d.size === 'number' &&
    typeof d.mtime === 'number' &&
    isNumbers(d.len, F) &&
    isOverlayTerms(d.terms)
  );
}

/** The index folder's state file: see {@link readState}. */
export const STATE_FILE = 'state.bin';
/** The state file of index format 13 and before (all JSON), removed by {@link cleanIndexDir}. */
const LEGACY_STATE_FILE = 'state.json';

/**
 * Reads the state file (`state.bin`): one line of JSON, the {@link IndexState} in which each
 * overlay document's `terms` is `[start, length]`, a byte range of what follows the line, and
 * `termBytes`, the length of what follows; then the overlay documents' terms (index-format.ts,
 * encodeOverlayTerms). Only the JSON line is parsed; the terms become views of the file's bytes,
 * read term by term where a query needs them.
 *
 * @throws IndexUnusable when it is missing, unreadable, cut, of another format or another folder,
 *   or of an unexpected shape
 */
export function readState(dir: string, scope: Scope, root: string): { state: IndexState; mtime: number } {
  let bytes: Buffer;
  let mtime: number;
  try {
    assertIndexDirUnlinked(dir);
  } catch (err) {
    throw new IndexUnusable((err as Error).message);
  }
  {
    const f = readIndexFile(join(dir, STATE_FILE), STATE_FILE, 'missing');
    bytes = f.bytes;
    mtime = f.mtime;
  }
  const lineEnd = bytes.indexOf(10);
  if (lineEnd < 0) throw new IndexUnusable(`${STATE_FILE} is cut or garbage (no line end)`);
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8', 0, lineEnd));
  } catch {
    throw new IndexUnusable(`${STATE_FILE} is cut or garbage (its first line is not valid JSON)`);
  }
  if (!isObj(v) || v.format !== INDEX_FORMAT_VERSION)
    throw new IndexUnusable(`index format ${isObj(v) ? String(v.format) : '?'} is not ${INDEX_FORMAT_VERSION}`);
  if (v.schema !== SCHEMA_VERSION) throw new IndexUnusable(`index was built for schema ${String(v.schema)}`);
  if (v.scope !== scope || v.root !== root) throw new IndexUnusable('index describes another folder');
  if (typeof v.generation !== 'string' || !/^[a-z0-9]{1,40}$/.test(v.generation) || !isObj(v.overlay))
    throw new IndexUnusable(`${STATE_FILE} has an unexpected shape`);
  const terms = bytes.subarray(lineEnd + 1);
  if (v.termBytes !== terms.length) throw new IndexUnusable(`${STATE_FILE} holds ${terms.length} bytes of terms, its line says ${String(v.termBytes)}`);
  // the documents' terms follow one another in the entries' order, as writeState puts them, and
  // fill the rest of the file: no range overlaps, skips or repeats another
  let next = 0;
  for (const p of Object.keys(v.overlay)) {
    const e = v.overlay[p];
    if (isObj(e) && isObj(e.doc)) {
      e.doc.terms = termsAt(terms, e.doc.terms, next);
      next += (e.doc.terms as Buffer | undefined)?.length ?? 0;
    }
    if (!isOverlayEntry(e, p, scope)) throw new IndexUnusable(`${STATE_FILE} holds an overlay entry of an unexpected shape`);
  }
  if (next !== terms.length) throw new IndexUnusable(`${STATE_FILE} holds terms no overlay entry points at`);
  if (
    !isObj(v.folders) ||
    typeof v.fullCheckAt !== 'number' ||
    !isStrings(v.symlinks) ||
    !Object.entries(v.folders).every(
      ([k, f]) =>
        !k.startsWith('/') && !k.split('/').some((s) => s === '..' || s === '.') && isObj(f) && typeof f.mtime === 'number' && typeof f.ino === 'number',
    )
  )
    throw new IndexUnusable(`${STATE_FILE} has an unexpected shape`);
  delete v.termBytes;
  return { state: v as unknown as IndexState, mtime };
}

/**
 * The bytes `[start, start + length)` of `terms`, a view, when `range` is `[start, length]` with
 * `start` where the previous document's terms ended and `length` > 0 (a memory always has terms:
 * its kind's); else undefined.
 */
function termsAt(terms: Buffer, range: unknown, start: number): Buffer | undefined {
  if (!Array.isArray(range) || range.length !== 2 || range[0] !== start) return undefined;
  const length = range[1] as unknown;
  if (!Number.isSafeInteger(length) || (length as number) <= 0 || start + (length as number) > terms.length) return undefined;
  return terms.subarray(start, start + (length as number));
}

/**
 * Writes the state file atomically (see {@link readState} for its layout); returns its mtime.
 * The terms are copied as bytes, never turned into JSON strings.
 */
export function writeState(dir: string, state: IndexState, ids: ProcessIds): number {
  const parts: Buffer[] = [];
  let termBytes = 0;
  const overlay: Record<string, unknown> = {};
  for (const p in state.overlay) {
    const e = state.overlay[p]!;
    if ('doc' in e) {
      parts.push(e.doc.terms);
      overlay[p] = { doc: { ...e.doc, terms: [termBytes, e.doc.terms.length] } };
      termBytes += e.doc.terms.length;
    } else overlay[p] = e;
  }
  const line = Buffer.from(`${JSON.stringify({ ...state, overlay, termBytes })}\n`, 'utf8');
  const target = join(dir, STATE_FILE);
  // a folder in its place (planted, or left by a broken tool) would refuse every rename over it,
  // and every search would rebuild: it is removed (the index folder is ours, checked unlinked)
  if (lstatSync(target, { throwIfNoEntry: false })?.isDirectory()) {
    assertIndexDirUnlinked(dir);
    rmSync(target, { recursive: true, force: true });
  }
  return writeIndexFile(target, Buffer.concat([line, ...parts], line.length + termBytes), ids);
}

/** A generation's documents (see generation-docs.ts). */
export type BaseDocs = GenerationDocs;

/** Reads and checks a generation's docs.bin (see generation-docs.ts). @throws IndexUnusable */
export function readBaseDocs(dir: string, generation: string, scope: Scope): BaseDocs {
  const bytes = readIndexFile(join(generationDir(dir, generation), DOCS_FILE), `generation ${generation}`).bytes;
  const table = decodeDocTable(bytes, { scope, generation });
  const buckets = table.header.buckets;
  return new GenerationDocs(scope, generation, table, buckets, bytes.length + buckets.reduce((a, b) => a + b, 0));
}

/** First bytes of a bucket read at once: the header of all but the largest buckets. */
const BUCKET_HEAD_BYTES = 64 * 1024;

/**
 * Reads bytes [start, end) of an index file that must be a regular file (not followed if it is a
 * link) of exactly `size` bytes: a file replaced or cut since the generation was written is
 * unusable, never half-trusted. @throws IndexUnusable
 */
function readIndexRange(file: string, what: string, size: number, start: number, end: number): Buffer {
  return withIndexFile(file, what, `${what} is missing`, (fd, st) => {
    if (st.size !== size) throw new IndexUnusable(`${what} has ${st.size} bytes, expected ${size}`);
    const bytes = readAt(fd, end - start, start);
    if (bytes.length !== end - start) throw new IndexUnusable(`${what} is cut`);
    return bytes;
  });
}

/**
 * Opens one bucket of a generation: checks its length, reads and checks its header; postings are
 * read term by term when a query needs them. @throws IndexUnusable
 */
export function readBucket(dir: string, base: BaseDocs, bucket: number): BucketReader {
  const expected = base.buckets[bucket] ?? 0;
  if (expected === 0) return new BucketReader(Buffer.alloc(0), base.count);
  const file = join(generationDir(dir, base.generation), bucketFileName(bucket));
  const what = `bucket ${bucket}`;
  const head = readIndexRange(file, what, expected, 0, Math.min(expected, BUCKET_HEAD_BYTES));
  return new BucketReader(
    { size: expected, head, read: (start, end) => (end <= head.length ? head.subarray(start, end) : readIndexRange(file, what, expected, start, end)) },
    base.count,
  );
}

/**
 * Writes a complete generation folder: bucket files, then docs.bin, all into a temp folder that
 * is renamed into place, so a reader never sees half a generation.
 *
 * @returns the bytes written
 */
export function writeGeneration(dir: string, generation: string, scope: Scope, built: BuiltGeneration, ids: ProcessIds): number {
  const tmp = join(dir, `${tempName(ids)}-g`);
  mkdirSync(tmp, { mode: 0o700 });
  try {
    // the terms more than COMMON_SHARE of the documents hold, listed in docs.bin for the search's feedback
    const common: string[] = [];
    const minDocs = COMMON_SHARE * built.table.count;
    const sizes = Array.from({ length: BUCKET_COUNT }, (_, b) => {
      const bytes = built.bucket(b);
      if (bytes.length === 0) return 0;
      writeFileSync(join(tmp, bucketFileName(b)), bytes, { mode: 0o600 });
      for (const t of termsHeldByMore(bytes, minDocs)) common.push(t);
      return bytes.length;
    });
    const docs = built.table.encode(scope, generation, sizes, built.invalid, common);
    writeFileSync(join(tmp, DOCS_FILE), docs, { mode: 0o600 });
    renameSync(tmp, join(dir, `g-${generation}`));
    return docs.length + sizes.reduce((a, b) => a + b, 0);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** A fresh generation name. */
export function newGeneration(ids: ProcessIds): string {
  return ids.randomHex(8);
}

/**
 * Removes what earlier runs left behind: generations other than `keep`, temp files and the state
 * file of index format 13 and before (`state.json`), once they are older than `graceMs` (a reader
 * that loaded the previous state may still be reading them).
 * The generation just replaced is touched so its grace period starts now.
 */
export function cleanIndexDir(dir: string, keep: string, replaced: string | undefined, now: number, graceMs = 60_000): void {
  assertIndexDirUnlinked(dir);
  if (replaced && replaced !== keep) {
    try {
      const t = new Date(now);
      utimesSync(join(dir, `g-${replaced}`), t, t);
    } catch {
      /* already gone */
    }
  }
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === `g-${keep}` || name === `g-${replaced}` || !(name.startsWith('g-') || name.startsWith('.tmp-') || name === LEGACY_STATE_FILE)) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > graceMs) rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      /* another process cleaned it */
    }
  }
}

/** Total bytes of the files in the index folder (for status). */
export function indexBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    let names;
    try {
      names = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.isFile()) {
        try {
          total += statSync(join(d, e.name)).size;
        } catch {
          /* gone */
        }
      }
    }
  };
  walk(dir);
  return total;
}
