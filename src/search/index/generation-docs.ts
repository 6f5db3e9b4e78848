/**
 * A generation's documents table (`docs.bin`): typed columns read straight from the file's bytes,
 * strings decoded on demand. A search needs every document's fingerprint, field lengths and filter
 * columns, but the title-side strings (id, path, links) and the full record of only the few it
 * returns, so nothing per document is built when a generation is opened (100,000 records per cold
 * search otherwise; the JSON table it replaces took 176 ms to parse at 100,000 memories).
 *
 * Layout (the prefix little-endian; the sections typed arrays in the host's byte order, which is
 * little-endian wherever Node runs but s390x; an index never leaves the machine that built it):
 *
 *   0    4 bytes  magic `vdoc`
 *   4    u32      {@link INDEX_FORMAT_VERSION}
 *   8    u32      H, the header's length in bytes
 *   12   H bytes  UTF-8 JSON header {@link DocsHeader}: schema, scope, generation, bucket sizes,
 *                 invalid-file records, the section counts, `values`: the distinct tags,
 *                 target harnesses and source harnesses (few; decoded when the file is opened),
 *                 `lenSum`: the terms per field summed over the documents, and `common`:
 *                 the terms more than a share of the documents hold
 *   then zero bytes up to a multiple of 8, then the sections, each n = header.count entries
 *   unless said otherwise, in this order:
 *     f64 updated[n]      updated_at, ms since the epoch
 *     f64 size[n]         file size in bytes
 *     f64 mtime[n]        file mtime in ms (-1: re-read on the next check)
 *     u32 len[n × F]      terms per field, F = FIELDS.length
 *     u32 source[n]       index into values
 *     u32 tagStart[n+1]   document i's tags are tags[tagStart[i] .. tagStart[i+1])
 *     u32 tags[T]         indexes into values
 *     u32 targetStart[n+1], u32 targets[G]    the same for target_harnesses
 *     u32 idEnd[n]        end of document i's id in the id heap (start: idEnd[i-1], or 0)
 *     u32 pathEnd[n]      the same in the path heap; an empty path is the canonical `<kind>s/<id>.md`
 *     u32 linkStart[n+1], u32 linkEnd[L]      document i's links are link strings linkStart[i] ..
 *                                             linkStart[i+1]), each ending at linkEnd in the link heap
 *     u8  kind[n]         index into KINDS
 *     u8  status[n]       index into STATUSES
 *     id heap, path heap, link heap (UTF-8)
 *
 * The file's length must be exactly what the header's counts make it, every start/end column must
 * never go back and end at its heap's or list's length, every value index must be inside `values`,
 * and every kind and status code known: anything else is {@link IndexUnusable} (rebuilt from the
 * files), checked once on open so no later read can go out of bounds.
 */
import { isDiagnosticCode, SEVERITIES } from '../../diagnostics.js';
import { KINDS, SCHEMA_VERSION, STATUSES, kindFolder, type Scope } from '../../document/contract.js';
import { BUCKET_COUNT, FIELDS, INDEX_FORMAT_VERSION, IndexUnusable, type DocRecord, type InvalidRecord } from './index-format.js';

/** File name of the documents table inside a generation folder. */
export const DOCS_FILE = 'docs.bin';
const MAGIC = 0x636f6476; // "vdoc" read as u32 LE
const PREFIX = 12;

/** The JSON header of docs.bin (see the module comment). */
export interface DocsHeader {
  schema: string;
  scope: Scope | '';
  generation: string;
  bucketCount: number;
  /** byte length of each bucket file (0 = no file); empty for a table only in memory */
  buckets: number[];
  /** true when the documents are in walk order (every build writes them so): lookups by path binary-search */
  ordered: boolean;
  invalid: InvalidRecord[];
  count: number;
  /** distinct tags, target harnesses and source harnesses */
  values: string[];
  tagItems: number;
  targetItems: number;
  links: number;
  idBytes: number;
  pathBytes: number;
  linkBytes: number;
  /**
   * `len` summed per field over every document (F numbers): BM25's average field lengths without
   * a pass over `len` on every search (~500,000 additions of cold code at 100,000 memories).
   * Absent in a table written before it was added, which is summed on open instead. Not checked
   * against `len` (that would be the pass it saves): a wrong sum skews scores, never a read.
   */
  lenSum?: number[];
  /**
   * The terms held by more than `share` of the documents ({@link COMMON_SHARE}), from the bucket
   * headers when the generation was written: the search's feedback leaves such words out, and
   * knowing them spares it a bucket read per word (~1 ms each). Absent in a table written before
   * it was added, or only in memory (the buckets are then read). Not checked against the buckets:
   * a wrong list skews which words feedback adds, never a read.
   */
  common?: { share: number; terms: string[] };
}

/** The share of documents above which a term is listed in {@link DocsHeader.common}. */
export const COMMON_SHARE = 0.05;

/** A decoded documents table: its header and the typed views of its sections. */
export interface DocTable {
  header: DocsHeader;
  updated: Float64Array;
  size: Float64Array;
  mtime: Float64Array;
  len: Uint32Array;
  source: Uint32Array;
  tagStart: Uint32Array;
  tags: Uint32Array;
  targetStart: Uint32Array;
  targets: Uint32Array;
  idEnd: Uint32Array;
  pathEnd: Uint32Array;
  linkStart: Uint32Array;
  linkEnd: Uint32Array;
  kind: Uint8Array;
  status: Uint8Array;
  ids: Buffer;
  paths: Buffer;
  linkHeap: Buffer;
  /** the whole file's length in bytes */
  bytes: number;
}

/**
 * Orders two scope-relative paths as the walk visits them: folder by folder, names in UTF-16
 * code-unit order. A generation lists its documents (and, apart, its invalid files) in this order.
 * That is the paths' code-unit order with `/` below every other unit (a name that is a prefix of
 * another ends first), compared in place without splitting (a property test holds it equal to
 * comparing the split names).
 *
 * @returns negative, 0 or positive (only the sign has a meaning)
 */
export function compareWalkOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x === SLASH ? -1 : y === SLASH ? 1 : x < y ? -1 : 1;
  }
  return a.length - b.length;
}

const SLASH = 0x2f;

/** True when `r` has the fields of an {@link InvalidRecord} that the index code reads (path, size, mtime, code, severity, message, hint). */
export function isInvalidRecord(r: unknown): r is InvalidRecord {
  if (typeof r !== 'object' || r === null) return false;
  const v = r as Record<string, unknown>;
  return (
    typeof v.path === 'string' &&
    typeof v.size === 'number' &&
    typeof v.mtime === 'number' &&
    isDiagnosticCode(v.code) &&
    (SEVERITIES as readonly unknown[]).includes(v.severity) &&
    typeof v.message === 'string' &&
    typeof v.hint === 'string' &&
    (v.line === undefined || typeof v.line === 'number')
  );
}

/** A growable typed column. */
class Column<T extends Float64Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(Math.max(16, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  set(i: number, v: number): void {
    this.data[i] = v;
  }
  get(i: number): number {
    return this.data[i]!;
  }
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
  /** appends every value of `values`, each plus `add` */
  pushAll(values: ArrayLike<number>, add = 0): void {
    for (let i = 0; i < values.length; i++) this.push(values[i]! + add);
  }
}

const f64 = () => new Column(new Float64Array(0), (n) => new Float64Array(n));
const u32 = () => new Column(new Uint32Array(0), (n) => new Uint32Array(n));
const u8 = () => new Column(new Uint8Array(0), (n) => new Uint8Array(n));

/** A growable byte heap of UTF-8 strings. */
class Heap {
  private data = Buffer.alloc(0);
  length = 0;
  /** appends `s`; returns the heap's new length (the string's end) */
  push(s: string): number {
    const need = Buffer.byteLength(s);
    if (this.length + need > this.data.length) {
      const next = Buffer.alloc(Math.max(1024, this.data.length * 2, this.length + need));
      this.data.copy(next, 0, 0, this.length);
      this.data = next;
    }
    this.length += this.data.write(s, this.length, 'utf8');
    return this.length;
  }
  /** appends raw bytes */
  pushBytes(b: Uint8Array): void {
    if (this.length + b.length > this.data.length) {
      const next = Buffer.alloc(Math.max(1024, this.data.length * 2, this.length + b.length));
      this.data.copy(next, 0, 0, this.length);
      this.data = next;
    }
    this.data.set(b, this.length);
    this.length += b.length;
  }
  view(): Buffer {
    return this.data.subarray(0, this.length);
  }
}

/**
 * A {@link DocTableBuilder}'s documents as plain data (typed arrays of their exact length, so a
 * worker thread can send them): one part of a build, appended to the builder of the part before
 * it with {@link DocTableBuilder.append}.
 */
export interface DocTablePart {
  count: number;
  ordered: boolean;
  firstPath: string | undefined;
  lastPath: string | undefined;
  values: string[];
  updated: Float64Array;
  size: Float64Array;
  mtime: Float64Array;
  len: Uint32Array;
  /** value indexes into {@link values} */
  source: Uint32Array;
  /** per document, how many tags, targets and links it has */
  tagCount: Uint32Array;
  tags: Uint32Array;
  targetCount: Uint32Array;
  targets: Uint32Array;
  idEnd: Uint32Array;
  pathEnd: Uint32Array;
  linkCount: Uint32Array;
  linkEnd: Uint32Array;
  kind: Uint8Array;
  status: Uint8Array;
  ids: Uint8Array;
  paths: Uint8Array;
  linkHeap: Uint8Array;
}

const counts = (starts: Uint32Array): Uint32Array => {
  const out = new Uint32Array(Math.max(0, starts.length - 1));
  for (let i = 0; i < out.length; i++) out[i] = starts[i + 1]! - starts[i]!;
  return out;
};

/**
 * Builds a documents table one document at a time (a full build streams through it: columns grow,
 * no record is kept per document), then encodes docs.bin.
 */
export class DocTableBuilder {
  private readonly updated = f64();
  private readonly size = f64();
  private readonly mtime = f64();
  private readonly len = u32();
  private readonly source = u32();
  private readonly tagStart = u32();
  private readonly tags = u32();
  private readonly targetStart = u32();
  private readonly targets = u32();
  private readonly idEnd = u32();
  private readonly pathEnd = u32();
  private readonly linkStart = u32();
  private readonly linkEnd = u32();
  private readonly kind = u8();
  private readonly status = u8();
  private readonly ids = new Heap();
  private readonly paths = new Heap();
  private readonly linkHeap = new Heap();
  private readonly values = new Map<string, number>();
  private firstPath: string | undefined;
  private lastPath: string | undefined;
  private ordered = true;
  count = 0;

  constructor() {
    this.tagStart.push(0);
    this.targetStart.push(0);
    this.linkStart.push(0);
  }

  private value(v: string): number {
    let i = this.values.get(v);
    if (i === undefined) this.values.set(v, (i = this.values.size));
    return i;
  }

  /** Appends one document (the next number). */
  add(d: DocRecord): void {
    if (this.lastPath !== undefined && compareWalkOrder(this.lastPath, d.path) >= 0) this.ordered = false;
    this.firstPath ??= d.path;
    this.lastPath = d.path;
    this.updated.push(d.updated);
    this.size.push(d.size);
    this.mtime.push(d.mtime);
    for (let f = 0; f < FIELDS.length; f++) this.len.push(d.len[f] ?? 0);
    this.source.push(this.value(d.source));
    for (const t of d.tags) this.tags.push(this.value(t));
    this.tagStart.push(this.tags.length);
    for (const t of d.targets) this.targets.push(this.value(t));
    this.targetStart.push(this.targets.length);
    this.idEnd.push(this.ids.push(d.id));
    this.pathEnd.push(this.paths.push(d.path === `${kindFolder(d.kind)}/${d.id}.md` ? '' : d.path));
    for (const l of d.links) this.linkEnd.push(this.linkHeap.push(l));
    this.linkStart.push(this.linkEnd.length);
    this.kind.push(KINDS.indexOf(d.kind));
    this.status.push(STATUSES.indexOf(d.status));
    this.count++;
  }

  /** The documents added so far, as plain data (see {@link DocTablePart}). */
  part(): DocTablePart {
    const copy = <T extends Float64Array | Uint32Array | Uint8Array>(c: { view(): T }): T => c.view().slice() as T;
    return {
      count: this.count,
      ordered: this.ordered,
      firstPath: this.firstPath,
      lastPath: this.lastPath,
      values: [...this.values.keys()],
      updated: copy(this.updated),
      size: copy(this.size),
      mtime: copy(this.mtime),
      len: copy(this.len),
      source: copy(this.source),
      tagCount: counts(this.tagStart.view()),
      tags: copy(this.tags),
      targetCount: counts(this.targetStart.view()),
      targets: copy(this.targets),
      idEnd: copy(this.idEnd),
      pathEnd: copy(this.pathEnd),
      linkCount: counts(this.linkStart.view()),
      linkEnd: copy(this.linkEnd),
      kind: copy(this.kind),
      status: copy(this.status),
      ids: this.ids.view().slice(),
      paths: this.paths.view().slice(),
      linkHeap: this.linkHeap.view().slice(),
    };
  }

  /**
   * Appends the documents of a part built apart (the files after this builder's, in walk order):
   * the table is then exactly the one of adding those documents here one by one.
   */
  append(p: DocTablePart): void {
    if (p.count === 0) return;
    if (!p.ordered || (this.lastPath !== undefined && compareWalkOrder(this.lastPath, p.firstPath!) >= 0)) this.ordered = false;
    this.firstPath ??= p.firstPath;
    this.lastPath = p.lastPath;
    // the part's value numbers, as this builder numbers them (new values in the part's order of first appearance)
    const map = p.values.map((v) => this.value(v));
    const mapped = (a: Uint32Array) => Uint32Array.from(a, (x) => map[x]!);
    this.updated.pushAll(p.updated);
    this.size.pushAll(p.size);
    this.mtime.pushAll(p.mtime);
    this.len.pushAll(p.len);
    this.source.pushAll(mapped(p.source));
    const starts = (start: Column<Uint32Array>, count: Uint32Array) => {
      let at = start.get(start.length - 1);
      for (let i = 0; i < count.length; i++) start.push((at += count[i]!));
    };
    this.tags.pushAll(mapped(p.tags));
    starts(this.tagStart, p.tagCount);
    this.targets.pushAll(mapped(p.targets));
    starts(this.targetStart, p.targetCount);
    this.idEnd.pushAll(p.idEnd, this.ids.length);
    this.ids.pushBytes(p.ids);
    this.pathEnd.pushAll(p.pathEnd, this.paths.length);
    this.paths.pushBytes(p.paths);
    this.linkEnd.pushAll(p.linkEnd, this.linkHeap.length);
    this.linkHeap.pushBytes(p.linkHeap);
    starts(this.linkStart, p.linkCount);
    this.kind.pushAll(p.kind);
    this.status.pushAll(p.status);
    this.count += p.count;
  }

  /** Marks every document modified after `since` (ms) as to be re-read on the next check (mtime -1). */
  markRacy(since: number): void {
    for (let i = 0; i < this.count; i++) if (this.mtime.get(i) > since) this.mtime.set(i, -1);
  }

  /** The table only in memory (an index that could not be written): its docs.bin bytes, decoded. */
  table(invalid: InvalidRecord[]): DocTable {
    return decodeDocTable(this.encode('', '', [], invalid));
  }

  /** The docs.bin bytes. */
  encode(scope: Scope | '', generation: string, buckets: number[], invalid: InvalidRecord[], common?: string[]): Buffer {
    const header: DocsHeader = {
      schema: SCHEMA_VERSION,
      scope,
      generation,
      bucketCount: BUCKET_COUNT,
      buckets,
      ordered: this.ordered,
      invalid,
      count: this.count,
      values: [...this.values.keys()],
      tagItems: this.tags.length,
      targetItems: this.targets.length,
      links: this.linkEnd.length,
      idBytes: this.ids.length,
      pathBytes: this.paths.length,
      linkBytes: this.linkHeap.length,
      lenSum: fieldSums(this.len.view(), this.count),
      ...(common ? { common: { share: COMMON_SHARE, terms: common } } : {}),
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const start = align8(PREFIX + json.length);
    const parts: Array<Float64Array | Uint32Array | Uint8Array | Buffer> = [
      this.updated.view(),
      this.size.view(),
      this.mtime.view(),
      this.len.view(),
      this.source.view(),
      this.tagStart.view(),
      this.tags.view(),
      this.targetStart.view(),
      this.targets.view(),
      this.idEnd.view(),
      this.pathEnd.view(),
      this.linkStart.view(),
      this.linkEnd.view(),
      this.kind.view(),
      this.status.view(),
      this.ids.view(),
      this.paths.view(),
      this.linkHeap.view(),
    ];
    const total = start + parts.reduce((a, p) => a + p.byteLength, 0);
    const out = Buffer.alloc(total);
    out.writeUInt32LE(MAGIC, 0);
    out.writeUInt32LE(INDEX_FORMAT_VERSION, 4);
    out.writeUInt32LE(json.length, 8);
    json.copy(out, PREFIX);
    let at = start;
    for (const p of parts) {
      out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
      at += p.byteLength;
    }
    return out;
  }
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * The entries of a heap of strings (entry k spans [ends[k - 1] or 0, ends[k])) whose bytes are
 * exactly `needle`, in increasing order, found with the native byte search.
 */
function entriesEqualTo(heap: Buffer, ends: Uint32Array, needle: Buffer): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let at = heap.indexOf(needle); at >= 0; at = heap.indexOf(needle, at + 1)) {
    // the first entry ending after `at` holds it
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! > at) hi = mid;
      else lo = mid + 1;
    }
    if (ends.length > 0 && (lo === 0 ? 0 : ends[lo - 1]!) === at && ends[lo] === at + needle.length) out.push(lo);
  }
  return out;
}

/** The last i in [0, count) with starts[i] <= k (starts increasing, starts[count] the end). */
function lastAtMost(starts: Uint32Array, k: number, count: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** {@link DocsHeader.common}'s shape: a share in (0, 1] and an array of strings. */
function isCommonList(v: unknown): boolean {
  if (!isObj(v) || typeof v.share !== 'number' || !(v.share > 0 && v.share <= 1) || !Array.isArray(v.terms)) return false;
  for (const t of v.terms) if (typeof t !== 'string') return false;
  return true;
}
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;

/** True when `a` starts at 0 (when `first0`), never goes back, ends at `last` and has `length` entries. */
/** `len` (F numbers per document, `count` documents) summed per field. */
function fieldSums(len: Uint32Array, count: number): number[] {
  const F = FIELDS.length;
  const sums = new Array<number>(F).fill(0);
  for (let i = 0; i < count; i++) for (let f = 0; f < F; f++) sums[f]! += len[i * F + f]!;
  return sums;
}

function isRunning(a: Uint32Array, last: number, first0: boolean): boolean {
  if (first0 && a[0] !== 0) return false;
  let prev = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (v < prev) return false;
    prev = v;
  }
  return a.length === 0 ? last === 0 : prev === last;
}

/**
 * Decodes and checks docs.bin (see the module comment).
 *
 * @param bytes the file's bytes
 * @param expect the scope and generation it must describe (unchecked for a table only in memory)
 * @throws IndexUnusable naming what is wrong (truncated, of another format, lengths or offsets out of range)
 */
export function decodeDocTable(bytes: Buffer, expect?: { scope: Scope; generation: string }): DocTable {
  const bad = (why: string) => new IndexUnusable(`docs.bin ${why}`);
  if (bytes.length < PREFIX || bytes.readUInt32LE(0) !== MAGIC) throw bad('is not a documents table (truncated or garbage)');
  if (bytes.readUInt32LE(4) !== INDEX_FORMAT_VERSION) throw bad(`is of format ${bytes.readUInt32LE(4)}, not ${INDEX_FORMAT_VERSION}`);
  const h = bytes.readUInt32LE(8);
  if (PREFIX + h > bytes.length) throw bad('is truncated (header)');
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8', PREFIX, PREFIX + h));
  } catch {
    throw bad('header is not valid JSON');
  }
  if (
    !isObj(v) ||
    v.schema !== SCHEMA_VERSION ||
    (expect && (v.scope !== expect.scope || v.generation !== expect.generation)) ||
    v.bucketCount !== BUCKET_COUNT ||
    !Array.isArray(v.buckets) ||
    (v.buckets.length !== BUCKET_COUNT && !(expect === undefined && v.buckets.length === 0)) ||
    !v.buckets.every((b) => Number.isSafeInteger(b) && b >= 0)
  )
    throw bad('is of another format or generation');
  const counts = ['count', 'tagItems', 'targetItems', 'links', 'idBytes', 'pathBytes', 'linkBytes'] as const;
  if (
    typeof v.ordered !== 'boolean' ||
    !Array.isArray(v.invalid) ||
    !Array.isArray(v.values) ||
    !v.values.every((x) => typeof x === 'string') ||
    !counts.every((k) => isCount(v[k]))
  )
    throw bad('header has an unexpected shape');
  // sums over every document can pass 2^32 in a large vault: any safe integer
  const isSum = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (v.lenSum !== undefined && !(Array.isArray(v.lenSum) && v.lenSum.length === FIELDS.length && v.lenSum.every(isSum)))
    throw bad('header has an unexpected shape');
  if (v.common !== undefined && !isCommonList(v.common)) throw bad('header has an unexpected shape');
  if (!v.invalid.every(isInvalidRecord)) throw bad('holds an invalid-file record of an unexpected shape');
  const header = v as unknown as DocsHeader;
  const n = header.count;
  const F = FIELDS.length;
  const sizes = [
    8 * n,
    8 * n,
    8 * n,
    4 * n * F,
    4 * n,
    4 * (n + 1),
    4 * header.tagItems,
    4 * (n + 1),
    4 * header.targetItems,
    4 * n,
    4 * n,
    4 * (n + 1),
    4 * header.links,
    n,
    n,
    header.idBytes,
    header.pathBytes,
    header.linkBytes,
  ];
  const start = align8(PREFIX + h);
  if (start + sizes.reduce((a, s) => a + s, 0) !== bytes.length) throw bad('does not have the length its header says (truncated or garbage)');
  // typed views need aligned offsets: a buffer from a pool may start anywhere
  let buf = bytes;
  if (bytes.byteOffset % 8 !== 0) {
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    buf = Buffer.from(copy.buffer);
  }
  let at = buf.byteOffset + start;
  const ab = buf.buffer;
  const take = <T>(make: (offset: number, length: number) => T, size: number, unit: number): T => {
    const r = make(at, size / unit);
    at += size;
    return r;
  };
  let s = 0;
  const F64 = () => take((o, l) => new Float64Array(ab, o, l), sizes[s++]!, 8);
  const U32 = () => take((o, l) => new Uint32Array(ab, o, l), sizes[s++]!, 4);
  const U8 = () => take((o, l) => new Uint8Array(ab, o, l), sizes[s++]!, 1);
  const BYTES = () => take((o, l) => Buffer.from(ab, o, l), sizes[s++]!, 1);
  const t: DocTable = {
    header,
    updated: F64(),
    size: F64(),
    mtime: F64(),
    len: U32(),
    source: U32(),
    tagStart: U32(),
    tags: U32(),
    targetStart: U32(),
    targets: U32(),
    idEnd: U32(),
    pathEnd: U32(),
    linkStart: U32(),
    linkEnd: U32(),
    kind: U8(),
    status: U8(),
    ids: BYTES(),
    paths: BYTES(),
    linkHeap: BYTES(),
    bytes: bytes.length,
  };
  const values = header.values.length;
  // plain loops, not every(callback): this runs on every cold search, over ~10 columns of n entries
  const below = (a: Uint32Array | Uint8Array, limit: number): boolean => {
    for (let i = 0; i < a.length; i++) if (a[i]! >= limit) return false;
    return true;
  };
  const inValues = (a: Uint32Array) => below(a, values);
  if (
    !isRunning(t.tagStart, header.tagItems, true) ||
    !isRunning(t.targetStart, header.targetItems, true) ||
    !isRunning(t.linkStart, header.links, true) ||
    !isRunning(t.idEnd, header.idBytes, false) ||
    !isRunning(t.pathEnd, header.pathBytes, false) ||
    !isRunning(t.linkEnd, header.linkBytes, false)
  )
    throw bad('holds offsets out of range');
  if (!inValues(t.source) || !inValues(t.tags) || !inValues(t.targets)) throw bad('holds value indexes out of range');
  if (!below(t.kind, KINDS.length) || !below(t.status, STATUSES.length)) throw bad('holds an unknown kind or status');
  return t;
}

/**
 * The table of no documents, made directly (no encoding and decoding: ~2 ms of cold code on every
 * search of a vault without one of its scopes' folders). Equal to `toColumns([], [])` but for
 * `bytes` (0: there is no file) and the header's empty scope and generation (a test holds it).
 */
export function emptyDocTable(): DocTable {
  const header: DocsHeader = {
    schema: SCHEMA_VERSION,
    scope: '',
    generation: '',
    bucketCount: BUCKET_COUNT,
    buckets: [],
    ordered: true,
    invalid: [],
    count: 0,
    values: [],
    tagItems: 0,
    targetItems: 0,
    links: 0,
    idBytes: 0,
    pathBytes: 0,
    linkBytes: 0,
    lenSum: new Array<number>(FIELDS.length).fill(0),
  };
  const none = () => new Uint32Array(0);
  const start = () => new Uint32Array(1);
  return {
    header,
    updated: new Float64Array(0),
    size: new Float64Array(0),
    mtime: new Float64Array(0),
    len: none(),
    source: none(),
    tagStart: start(),
    tags: none(),
    targetStart: start(),
    targets: none(),
    idEnd: none(),
    pathEnd: none(),
    linkStart: start(),
    linkEnd: none(),
    kind: new Uint8Array(0),
    status: new Uint8Array(0),
    ids: Buffer.alloc(0),
    paths: Buffer.alloc(0),
    linkHeap: Buffer.alloc(0),
    bytes: 0,
  };
}

/** A documents table only in memory (tests, and an index that could not be written): the same bytes, decoded. */
export function toColumns(docs: readonly DocRecord[], invalid: InvalidRecord[]): DocTable {
  const b = new DocTableBuilder();
  for (const d of docs) b.add(d);
  return b.table(invalid);
}

/** Path lookups {@link GenerationDocs.numberOf} keeps per generation before it starts again. */
const MAX_KEPT_NUMBERS = 4096;

/** A generation's documents: typed columns, with strings and records decoded on demand. */
export class GenerationDocs {
  /** number of documents */
  readonly count: number;
  /** terms per field, {@link FIELDS}.length numbers per document */
  readonly len: Uint32Array;
  /** {@link len} summed per field over every document */
  readonly lenSum: readonly number[];
  /** file size in bytes, per document */
  readonly size: Float64Array;
  /** file mtime in ms (-1: re-read on the next check), per document */
  readonly mtime: Float64Array;
  /** updated_at in ms since the epoch, per document */
  readonly updated: Float64Array;
  /** index into KINDS, per document */
  readonly kindCode: Uint8Array;
  /** index into STATUSES, per document */
  readonly statusCode: Uint8Array;
  /** the distinct tags, target harnesses and source harnesses that {@link sourceOf}, {@link tagsOf} and {@link targetsOf} index */
  readonly values: readonly string[];
  readonly invalid: InvalidRecord[];
  readonly buckets: number[];
  /** total bytes of docs.bin and the bucket files (0 for a table only in memory) */
  readonly bytes: number;
  private readonly t: DocTable;
  private readonly records: Array<DocRecord | undefined>;
  private readonly ordered: boolean;
  private byPath: Map<string, number> | undefined;
  /** {@link GenerationDocs.numberOf}'s answers so far (a resident server's lookups: bounded by {@link MAX_KEPT_NUMBERS}) */
  private readonly numbers = new Map<string, number>();
  private valueIndex: Map<string, number> | undefined;
  private common: Set<string> | undefined;

  /**
   * @param table a decoded docs.bin ({@link decodeDocTable}, {@link toColumns})
   * @param buckets byte length of each bucket file (empty when the generation is only in memory)
   * @param bytes total bytes of docs.bin and the bucket files
   */
  constructor(
    readonly scope: Scope,
    readonly generation: string,
    table: DocTable,
    buckets: number[],
    bytes: number,
  ) {
    this.t = table;
    this.count = table.header.count;
    this.len = table.len;
    this.lenSum = table.header.lenSum ?? fieldSums(table.len, this.count);
    this.size = table.size;
    this.mtime = table.mtime;
    this.updated = table.updated;
    this.kindCode = table.kind;
    this.statusCode = table.status;
    this.values = table.header.values;
    this.invalid = table.header.invalid;
    this.buckets = buckets;
    this.bytes = bytes;
    this.ordered = table.header.ordered;
    this.records = new Array<DocRecord | undefined>(this.count);
  }

  /**
   * The terms more than `share` of this generation's documents hold ({@link DocsHeader.common}),
   * or undefined when the table lists none or lists them for a smaller share (each term of the set
   * is held by more than `share` of the documents).
   */
  commonTerms(share: number): ReadonlySet<string> | undefined {
    const c = this.t.header.common;
    if (!c || c.share < share) return undefined;
    this.common ??= new Set(c.terms);
    return this.common;
  }

  /** Document `i`'s id (decoded, no record built). */
  id(i: number): string {
    return this.t.ids.toString('utf8', i === 0 ? 0 : this.t.idEnd[i - 1]!, this.t.idEnd[i]!);
  }

  /** Document `i`'s source harness, as an index into {@link values}. */
  sourceOf(i: number): number {
    return this.t.source[i]!;
  }

  /** Document `i`'s tags, as indexes into {@link values}. */
  tagsOf(i: number): Uint32Array {
    return this.t.tags.subarray(this.t.tagStart[i]!, this.t.tagStart[i + 1]!);
  }

  /** Document `i`'s target harnesses, as indexes into {@link values}. */
  targetsOf(i: number): Uint32Array {
    return this.t.targets.subarray(this.t.targetStart[i]!, this.t.targetStart[i + 1]!);
  }

  /** The index of `value` in {@link values}, or -1. */
  valueNumber(value: string): number {
    this.valueIndex ??= new Map(this.values.map((v, i) => [v, i]));
    return this.valueIndex.get(value) ?? -1;
  }

  private links(i: number): string[] {
    const out: string[] = [];
    for (let k = this.t.linkStart[i]!; k < this.t.linkStart[i + 1]!; k++)
      out.push(this.t.linkHeap.toString('utf8', k === 0 ? 0 : this.t.linkEnd[k - 1]!, this.t.linkEnd[k]!));
    return out;
  }

  /** Whether document `i` links to `id` (no record built). */
  linksTo(i: number, id: string): boolean {
    return this.links(i).includes(id);
  }

  /**
   * The documents whose id is `id`, in increasing order: a byte search of the ids column (no
   * string decoded per document; a read of one memory at 100,000 decoded 100,000 ids).
   */
  numbersWithId(id: string): number[] {
    return entriesEqualTo(this.t.ids, this.t.idEnd, Buffer.from(id, 'utf8'));
  }

  /** The documents that link to `id` (frontmatter links, body wikilinks), in increasing order, found as {@link numbersWithId}. */
  numbersLinkingTo(id: string): number[] {
    const out: number[] = [];
    for (const k of entriesEqualTo(this.t.linkHeap, this.t.linkEnd, Buffer.from(id, 'utf8'))) {
      // the document whose links run [linkStart[i], linkStart[i + 1]) holds link k
      const i = lastAtMost(this.t.linkStart, k, this.count);
      if (out.at(-1) !== i) out.push(i);
    }
    return out;
  }

  /** Document `i`'s path below the scope folder. */
  path(i: number): string {
    const p = this.t.paths.toString('utf8', i === 0 ? 0 : this.t.pathEnd[i - 1]!, this.t.pathEnd[i]!);
    return p === '' ? `${kindFolder(KINDS[this.kindCode[i]!]!)}/${this.id(i)}.md` : p;
  }

  /**
   * The folder of document `i`'s path below the scope folder (`''` at the top), the same as the
   * part of {@link path} before its last `/`, without building the path: a canonical path's folder
   * is its kind's folder.
   */
  folderOf(i: number): string {
    const start = i === 0 ? 0 : this.t.pathEnd[i - 1]!;
    const end = this.t.pathEnd[i]!;
    if (start === end) return kindFolder(KINDS[this.kindCode[i]!]!);
    const p = this.t.paths.toString('utf8', start, end);
    const slash = p.lastIndexOf('/');
    return slash < 0 ? '' : p.slice(0, slash);
  }

  /** Document `i`'s record (built once). */
  doc(i: number): DocRecord {
    let d = this.records[i];
    if (!d) {
      const F = FIELDS.length;
      const v = this.values;
      d = this.records[i] = {
        scope: this.scope,
        path: this.path(i),
        id: this.id(i),
        kind: KINDS[this.kindCode[i]!]!,
        status: STATUSES[this.statusCode[i]!]!,
        tags: Array.from(this.tagsOf(i), (x) => v[x]!),
        targets: Array.from(this.targetsOf(i), (x) => v[x]!),
        source: v[this.sourceOf(i)]!,
        links: this.links(i),
        updated: this.updated[i]!,
        size: this.size[i]!,
        mtime: this.mtime[i]!,
        len: Array.from(this.len.subarray(i * F, i * F + F)),
      };
    }
    return d;
  }

  /**
   * The number of the document at `path`, or -1. A binary search when the documents are in walk
   * order (as every build writes them, and the header says so); else a table of paths, built once.
   */
  numberOf(path: string): number {
    if (!this.ordered) {
      this.byPath ??= new Map(Array.from({ length: this.count }, (_, i) => [this.path(i), i]));
      return this.byPath.get(path) ?? -1;
    }
    const known = this.numbers.get(path);
    if (known !== undefined) return known;
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compareWalkOrder(this.path(mid), path);
      if (c === 0) {
        found = mid;
        break;
      }
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    // the freshness check and the ranking look up the same overlay paths: each search once
    if (this.numbers.size >= MAX_KEPT_NUMBERS) this.numbers.clear();
    this.numbers.set(path, found);
    return found;
  }

  /** Every document's record, in generation order (builds them all: for tests and small tools, not for a search). */
  get docs(): DocRecord[] {
    return Array.from({ length: this.count }, (_, i) => this.doc(i));
  }
}
