/**
 * The binary term buckets of an index generation. A search decodes only the postings of the
 * terms it matches, so a cold process pays for a few kilobytes, not for the whole bucket.
 *
 * A bucket file (`bNNN.bin`):
 *
 *   u32 LE    H, the header's length in bytes
 *   H bytes   UTF-8 JSON header `{"t":[term…],"o":[end…],"n":[documents…]}`: the bucket's terms, the end
 *             offset of each term's postings (bytes after the header) and how many documents hold it
 *   postings  per term, per document in increasing order: varint(document index − previous index),
 *             u8 field mask (bit f = field f of FIELDS), then varint(frequency) per set bit, lowest first
 *
 * Varints are unsigned LEB128. Every read is bounds-checked: a damaged bucket throws
 * {@link IndexUnusable} and is rebuilt, never trusted.
 */
import { FIELDS, IndexUnusable } from './index-format.js';

/** One field's postings of a term: parallel arrays of document indexes and term frequencies. */
export interface FieldPostings {
  docs: Int32Array;
  freqs: Int32Array;
}

/** Postings of a term while a bucket is built: flat `[document index, field id, frequency, …]`, in document order. */
export type FlatPostings = number[];

function pushVarint(out: number[], v: number): void {
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/**
 * The terms of a bucket file that more than `minDocs` documents hold, read from its header (a
 * bucket this process just built: not checked beyond the shape it needs).
 *
 * @param bytes a whole bucket file (empty: no terms)
 */
export function termsHeldByMore(bytes: Buffer, minDocs: number): string[] {
  if (bytes.length === 0) return [];
  const h = bytes.readUInt32LE(0);
  const { t, n } = JSON.parse(bytes.toString('utf8', 4, 4 + h)) as { t: string[]; n: number[] };
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) if (n[i]! > minDocs) out.push(t[i]!);
  return out;
}

/**
 * Encodes a bucket.
 *
 * @param terms term → flat postings (documents in increasing order, fields increasing within a document)
 * @returns the file's bytes
 */
export function encodeBucket(terms: ReadonlyMap<string, FlatPostings>): Buffer {
  const t: string[] = [];
  const o: number[] = [];
  const n: number[] = [];
  const body: number[] = [];
  for (const [term, list] of terms) {
    let prev = 0;
    let docs = 0;
    for (let i = 0; i < list.length; ) {
      const doc = list[i]!;
      let mask = 0;
      const freqs: number[] = [];
      while (i < list.length && list[i] === doc) {
        mask |= 1 << list[i + 1]!;
        freqs.push(list[i + 2]!);
        i += 3;
      }
      pushVarint(body, doc - prev);
      body.push(mask);
      for (const f of freqs) pushVarint(body, f);
      prev = doc;
      docs++;
    }
    t.push(term);
    o.push(body.length);
    n.push(docs);
  }
  const header = Buffer.from(JSON.stringify({ t, o, n }), 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + body.length);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  Buffer.from(body).copy(out, 4 + header.length);
  return out;
}

/**
 * A bucket's postings for one batch of documents, encoded as {@link encodeBucket} writes a bucket
 * (so each term's first document is stored as its absolute number), with each term's last
 * document: a full build encodes a run per bucket per batch and merges the runs at the end.
 */
export interface PostingsRun {
  bytes: Uint8Array;
  /** per term, in the run's term order: its last document */
  lasts: Int32Array;
  /** added to every document number of the run (a part of a build numbers its documents from 0); default 0 */
  base?: number;
}

/** Encodes one batch's terms of a bucket as a run (see {@link PostingsRun}). */
export function encodeRun(terms: ReadonlyMap<string, FlatPostings>): PostingsRun {
  const lasts = new Int32Array(terms.size);
  let i = 0;
  for (const list of terms.values()) lasts[i++] = list[list.length - 3]!;
  return { bytes: encodeBucket(terms), lasts };
}

/**
 * Bytes {@link mergeRuns} may reuse from call to call (a build merges its 128 buckets in turn):
 * the merged postings are written there, then copied into the bucket's own buffer.
 */
export interface MergeScratch {
  bytes: Buffer;
}

/** A byte buffer of a known most length (in a {@link MergeScratch} when given). */
class ByteWriter {
  private readonly data: Buffer;
  length = 0;
  constructor(capacity: number, scratch?: MergeScratch) {
    if (scratch && scratch.bytes.length < capacity) scratch.bytes = Buffer.allocUnsafeSlow(Math.max(capacity, scratch.bytes.length * 2));
    this.data = scratch ? scratch.bytes : Buffer.allocUnsafe(capacity);
  }
  varint(v: number): void {
    while (v > 0x7f) {
      this.data[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.data[this.length++] = v;
  }
  bytes(b: Uint8Array): void {
    this.data.set(b, this.length);
    this.length += b.length;
  }
  view(): Buffer {
    return this.data.subarray(0, this.length);
  }
}

/** A growable Int32Array. */
function grown(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const next = new Int32Array(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/**
 * Merges the runs of one bucket, in document order, into the bucket file's bytes: exactly what
 * {@link encodeBucket} writes for all their documents at once (terms in order of first
 * appearance; each run's first posting of a term re-encoded relative to the previous run's last).
 * The pieces (a term's postings in one run) are kept in typed arrays, not one object each: a
 * bucket of a large build has millions of them.
 *
 * @param runs the bucket's runs, in document order
 * @param scratch reused for the merged postings from call to call (none: a buffer of their own);
 *   the returned bytes never share its memory
 * @returns the bucket file's bytes (a buffer of their own, but for a single run without a base:
 *   a view of that run's bytes)
 */
export function mergeRuns(runs: readonly PostingsRun[], scratch?: MergeScratch): Buffer {
  if (runs.length === 0) return Buffer.alloc(0);
  if (runs.length === 1 && !runs[0]!.base) return Buffer.from(runs[0]!.bytes.buffer, runs[0]!.bytes.byteOffset, runs[0]!.bytes.length);
  const views = runs.map((r) => Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length));
  const index = new Map<string, number>();
  const terms: string[] = [];
  const docs: number[] = [];
  // per piece: its term, run, byte range in the run and last document (with the run's base)
  let pieceTerm: Int32Array = new Int32Array(1024);
  let pieceRun: Int32Array = new Int32Array(1024);
  let pieceFrom: Int32Array = new Int32Array(1024);
  let pieceTo: Int32Array = new Int32Array(1024);
  let pieceLast: Int32Array = new Int32Array(1024);
  let pieces = 0;
  let bound = 0;
  views.forEach((bytes, run) => {
    const r = runs[run]!;
    const h = bytes.readUInt32LE(0);
    const { t, o, n } = JSON.parse(bytes.toString('utf8', 4, 4 + h)) as { t: string[]; o: number[]; n: number[] };
    const base = r.base ?? 0;
    const need = pieces + t.length;
    pieceTerm = grown(pieceTerm, need);
    pieceRun = grown(pieceRun, need);
    pieceFrom = grown(pieceFrom, need);
    pieceTo = grown(pieceTo, need);
    pieceLast = grown(pieceLast, need);
    for (let i = 0; i < t.length; i++) {
      const term = t[i]!;
      let ti = index.get(term);
      if (ti === undefined) {
        ti = terms.length;
        index.set(term, ti);
        terms.push(term);
        docs.push(0);
      }
      docs[ti]! += n[i]!;
      pieceTerm[pieces] = ti;
      pieceRun[pieces] = run;
      pieceFrom[pieces] = 4 + h + (i === 0 ? 0 : o[i - 1]!);
      pieceTo[pieces] = 4 + h + o[i]!;
      pieceLast[pieces] = r.lasts[i]! + base;
      // a re-encoded first document takes at most 5 bytes more than it did
      bound += pieceTo[pieces]! - pieceFrom[pieces]! + 5;
      pieces++;
    }
  });
  // the pieces grouped by term, each term's in run order (a stable counting sort)
  const start = new Int32Array(terms.length + 1);
  for (let p = 0; p < pieces; p++) start[pieceTerm[p]! + 1]!++;
  for (let i = 0; i < terms.length; i++) start[i + 1]! += start[i]!;
  const next = start.slice(0, terms.length);
  const order = new Int32Array(pieces);
  for (let p = 0; p < pieces; p++) order[next[pieceTerm[p]!]!++] = p;
  const body = new ByteWriter(bound, scratch);
  const o: number[] = new Array<number>(terms.length);
  for (let ti = 0; ti < terms.length; ti++) {
    let prevLast = 0;
    for (let k = start[ti]!; k < start[ti + 1]!; k++) {
      const p = order[k]!;
      const bytes = views[pieceRun[p]!]!;
      // the first varint is the piece's first document, absolute in its run: make it relative
      let at = pieceFrom[p]!;
      let first = 0;
      let mul = 1;
      for (;;) {
        const b = bytes[at++]!;
        first += (b & 0x7f) * mul;
        if (b < 0x80) break;
        mul *= 128;
      }
      body.varint(first + (runs[pieceRun[p]!]!.base ?? 0) - prevLast);
      body.bytes(bytes.subarray(at, pieceTo[p]!));
      prevLast = pieceLast[p]!;
    }
    o[ti] = body.length;
  }
  const header = Buffer.from(JSON.stringify({ t: terms, o, n: docs }), 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + body.length);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  body.view().copy(out, 4 + header.length);
  return out;
}

let scratch = { docs: new Int32Array(0), freqs: new Int32Array(0), length: 0 };

/**
 * Where a bucket's bytes come from: its size, the first bytes (at least the 4-byte header length
 * when the bucket is not empty), and positioned reads of the rest. A search reads the header and
 * then only the postings of the terms it matches, not the whole (possibly large) bucket file.
 */
export interface BucketSource {
  size: number;
  head: Buffer;
  /** bytes [start, end) of the bucket @throws IndexUnusable */
  read(start: number, end: number): Buffer;
}

/** A bucket held in memory (built in this process, or in tests). */
export function bufferSource(buf: Buffer): BucketSource {
  return { size: buf.length, head: buf, read: (start, end) => buf.subarray(start, end) };
}

/** A decoded bucket header with lazy access to each term's postings. */
export class BucketReader {
  /** the bucket's terms */
  readonly terms: readonly string[];
  private readonly ends: readonly number[];
  private readonly counts: readonly number[];
  private readonly start: number;
  private readonly source: BucketSource;

  /**
   * @param data the bucket (a whole file's bytes, or a {@link BucketSource})
   * @param docCount documents in the generation (every document index must be below it)
   * @throws IndexUnusable when the header is damaged
   */
  constructor(
    data: Buffer | BucketSource,
    private readonly docCount: number,
  ) {
    const source = Buffer.isBuffer(data) ? bufferSource(data) : data;
    this.source = source;
    if (source.size === 0) {
      this.terms = [];
      this.ends = [];
      this.counts = [];
      this.start = 0;
      return;
    }
    const h = source.head.length >= 4 ? source.head.readUInt32LE(0) : -1;
    if (h < 0 || 4 + h > source.size) throw new IndexUnusable('bucket header is cut');
    const headerBytes = 4 + h <= source.head.length ? source.head.subarray(4, 4 + h) : source.read(4, 4 + h);
    let header: { t?: unknown; o?: unknown; n?: unknown };
    try {
      header = JSON.parse(headerBytes.toString('utf8')) as typeof header;
    } catch {
      throw new IndexUnusable('bucket header is not valid JSON');
    }
    const { t, o, n } = header;
    if (!Array.isArray(t) || !Array.isArray(o) || !Array.isArray(n) || o.length !== t.length || n.length !== t.length)
      throw new IndexUnusable('bucket header has an unexpected shape');
    this.start = 4 + h;
    // a planted header must not steer allocations or reads: string terms, end offsets that never
    // go back, document counts within the generation (each posting takes at least two bytes)
    let prev = 0;
    for (let i = 0; i < t.length; i++) {
      const end = o[i] as unknown;
      const count = n[i] as unknown;
      if (
        typeof t[i] !== 'string' ||
        !Number.isSafeInteger(end) ||
        (end as number) < prev ||
        !Number.isSafeInteger(count) ||
        (count as number) < 0 ||
        (count as number) > docCount ||
        (count as number) * 2 > (end as number) - prev
      ) {
        throw new IndexUnusable('bucket header has an unexpected shape');
      }
      prev = end as number;
    }
    if (t.length > 0 && this.start + (o[o.length - 1] as number) !== source.size) throw new IndexUnusable('bucket postings do not end where the header says');
    this.terms = t as string[];
    this.ends = o as number[];
    this.counts = n as number[];
  }

  /** The position of `term` in {@link terms}, or -1. */
  indexOf(term: string): number {
    return this.terms.indexOf(term);
  }

  /** How many documents of the generation hold term number `i` (in any field). */
  documentsWith(i: number): number {
    return this.counts[i] ?? 0;
  }

  /**
   * Decodes term number `i`'s postings, field by field (undefined where the term never occurs).
   *
   * @throws IndexUnusable when the postings are damaged
   */
  postings(i: number): Array<FieldPostings | undefined> {
    const bad = (why: string) => new IndexUnusable(`bucket postings of "${this.terms[i]}" are damaged (${why})`);
    const from = this.start + (i === 0 ? 0 : this.ends[i - 1]!);
    const to = this.start + this.ends[i]!;
    if (!(from <= to && to <= this.source.size)) throw bad('offsets');
    // only this term's postings are read
    const buf = this.source.read(from, to);
    let p = 0;
    const end = to - from;
    if (buf.length !== end) throw bad('cut');
    const n = this.counts[i]!;
    const F = FIELDS.length;
    // decoded into reusable scratch arrays, then copied out at the exact size of each field
    if (scratch.length < n * F) scratch = { docs: new Int32Array(n * F * 2), freqs: new Int32Array(n * F * 2), length: n * F * 2 };
    const sd = scratch.docs;
    const sf = scratch.freqs;
    const used = new Int32Array(F);
    // a varint's first byte is read inline (one byte is the common case: this loop runs cold,
    // interpreted, in a one-shot search, where a call per number cost ~2x); `rest` reads the others
    const rest = (first: number): number => {
      let v = first & 0x7f;
      for (let mul = 128; ; mul *= 128) {
        if (mul > 2 ** 35) throw bad('varint');
        if (p >= end) throw bad('cut');
        const b = buf[p++]!;
        v += (b & 0x7f) * mul;
        if (b < 0x80) return v;
      }
    };
    let doc = 0;
    for (let k = 0; k < n; k++) {
      if (p >= end) throw bad('cut');
      let delta = buf[p++]!;
      if (delta >= 0x80) delta = rest(delta);
      doc += delta;
      // documents are strictly increasing and inside the generation
      if ((k > 0 && delta === 0) || doc >= this.docCount) throw bad('document index');
      if (p >= end) throw bad('cut');
      const mask = buf[p++]!;
      if (mask === 0 || mask >= 1 << F) throw bad('field mask');
      for (let f = 0; f < F; f++) {
        if (!(mask & (1 << f))) continue;
        if (p >= end) throw bad('cut');
        let freq = buf[p++]!;
        if (freq >= 0x80) freq = rest(freq);
        const u = f * n + used[f]!++;
        sd[u] = doc;
        sf[u] = freq;
      }
    }
    if (p !== end) throw bad('length');
    return Array.from(used, (u, f) => (u > 0 ? { docs: sd.slice(f * n, f * n + u), freqs: sf.slice(f * n, f * n + u) } : undefined));
  }
}
