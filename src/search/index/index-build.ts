/**
 * Full build of one scope's index generation from the Markdown files (the only source of truth).
 * Used when there is no usable index, on `vault index --rebuild`, and to compact an overlay that
 * has grown large.
 *
 * The build streams: each file is read, its row appended to the documents table's typed columns
 * (generation-docs.ts) and its terms to the current batch's postings; a batch is encoded into one
 * compact run per bucket once it holds {@link BATCH_POSTINGS} numbers, and each bucket file is the
 * merge of its runs (postings.ts). No record or term list of the whole corpus is kept.
 */
import type { Scope } from '../../document/contract.js';
import type { WalkedFile } from '../../scanner/scan-vault.js';
import { openScopeReader, type ScopeReader } from '../../store/read-scope-file.js';
import type { VaultRoots } from '../../store/roots.js';
import { BUCKET_COUNT, FIELDS, RACY_WINDOW_MS, bucketOf, type InvalidRecord } from './index-format.js';
import { mergeRuns, type MergeScratch, type PostingsRun } from './postings.js';
import { memoryFieldTerms, readIndexableMemory } from './memory-terms.js';
import { ownString } from '../analysis/tokenizer.js';
import { DocTableBuilder, type DocTablePart } from './generation-docs.js';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A walked file with its scope-relative path and stat fingerprint. */
export interface StatFile {
  file: WalkedFile;
  rel: string;
  size: number;
  mtime: number;
}

/** A built generation, in memory. */
export interface BuiltGeneration {
  /** the documents table, ready to encode (docs.bin) */
  table: DocTableBuilder;
  invalid: InvalidRecord[];
  /** one bucket file's bytes (merged on demand) */
  bucket(b: number): Buffer;
}

/** Progress callback: files read so far, of total. */
export type ProgressFn = (done: number, total: number) => void;

/** Postings numbers (3 per posting) a batch collects before it is encoded: about 16 MB of them. */
export const BATCH_POSTINGS = 1 << 21;

/**
 * True when `term` is a canonical array index (`0`, `42`, not `042`): a JavaScript object lists
 * such keys first, in increasing order, and the index has always ordered each document's terms
 * as the object of its term counts lists them (see {@link PostingsBuilder.addFields}).
 */
function isArrayIndex(term: string): boolean {
  const c = term.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (term.length > 10 || (c === 48 && term.length > 1)) return false;
  for (let i = 1; i < term.length; i++) {
    const d = term.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(term) <= 0xfffffffe;
}

/** A growable Int32Array, kept from batch to batch. */
function grow(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const next = new Int32Array(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/** A growable byte buffer, kept from run to run. */
class GrowableBytes {
  private data: Buffer = Buffer.allocUnsafe(1 << 16);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.data.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.length + n, this.data.length * 2));
    this.data.copy(bigger, 0, 0, this.length);
    this.data = bigger;
  }
  byte(v: number): void {
    this.room(1);
    this.data[this.length++] = v;
  }
  /** an unsigned LEB128 varint, as postings.ts writes them */
  varint(v: number): void {
    this.room(8);
    while (v > 0x7f) {
      this.data[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.data[this.length++] = v;
  }
  copyTo(target: Buffer, at: number): void {
    this.data.copy(target, at, 0, this.length);
  }
}

/**
 * Collects the postings of a generation, bucket by bucket, as documents are added in order: the
 * current batch in typed arrays kept from batch to batch (each term's postings a chain of
 * `[document, field, frequency, next]` entries in one pool), earlier batches as encoded runs (a
 * few bytes per posting). A batch makes little garbage that outlives it, so the heap stays small.
 */
export class PostingsBuilder {
  /** the current batch's terms: term -> slot */
  private slots = new Map<string, number>();
  /** per slot: the term, its entries in {@link pool} so far (0: none yet), the document {@link freq} counts */
  private terms: string[] = [];
  private entries: Int32Array = new Int32Array(1024);
  private lastDoc: Int32Array = new Int32Array(1024);
  /** per slot, FIELDS.length frequencies in the document being added */
  private freq: Int32Array = new Int32Array(1024 * FIELDS.length);
  /** the current batch's slots in order of first appearance (bucketed when the batch is encoded) */
  private order: Int32Array = new Int32Array(1024);
  private orderLength = 0;
  /** postings entries in order of addition: document, field, frequency, slot */
  private pool: Int32Array = new Int32Array(4096);
  private poolLength = 0;
  /** while a batch is encoded: each slot's end in the entries grouped by slot (reused) */
  private ends: Int32Array = new Int32Array(1024);
  private readonly runs: PostingsRun[][] = Array.from({ length: BUCKET_COUNT }, () => []);
  private pending = 0;
  /** a run's postings bytes while it is encoded (reused) */
  private readonly body = new GrowableBytes();
  /** the merged postings of a bucket while it is made (reused from bucket to bucket) */
  private readonly scratch: MergeScratch = { bytes: Buffer.alloc(0) };
  /** one document's slots while it is added (reused) */
  private readonly named: number[] = [];
  private readonly indexed: number[] = [];

  /**
   * @param batchPostings numbers the current batch holds before it is encoded (default {@link BATCH_POSTINGS})
   */
  constructor(private readonly batchPostings = BATCH_POSTINGS) {}

  /** The slot of `term` in the current batch, made when new. */
  private slot(term: string): number {
    let s = this.slots.get(term);
    if (s === undefined) {
      s = this.slots.size;
      if (s >= this.entries.length) {
        this.entries = grow(this.entries, s + 1);
        this.lastDoc = grow(this.lastDoc, s + 1);
        this.freq = grow(this.freq, (s + 1) * FIELDS.length);
      }
      // a copy: a term cut from the file's text would keep that text alive with the batch
      const own = ownString(term);
      this.terms[s] = own;
      this.entries[s] = 0;
      this.lastDoc[s] = -1;
      this.slots.set(own, s);
    }
    return s;
  }

  /**
   * Adds one document's terms.
   *
   * @param doc the document's index in the generation (increasing from call to call)
   * @param terms term -> frequency per field, in FIELDS order
   */
  add(doc: number, terms: Readonly<Record<string, readonly number[]>>): void {
    const F = FIELDS.length;
    const named = this.named;
    for (const term in terms) {
      const s = this.slot(term);
      this.lastDoc[s] = doc;
      const freqs = terms[term]!;
      for (let f = 0; f < F; f++) this.freq[s * F + f] = freqs[f] ?? 0;
      named.push(s);
    }
    this.emit(doc, named);
    named.length = 0;
    if (this.pending >= this.batchPostings) this.flush();
  }

  /**
   * Adds one document's terms as the tokenizer gives them, field by field: the same postings as
   * {@link add} with their counts ({@link countTerms}), without building that object. A term's
   * first appearance is ordered as that object lists its keys: array indexes first, increasing,
   * then the other terms in order of first appearance.
   *
   * @param doc the document's index in the generation (increasing from call to call)
   * @param fieldTerms the terms of each field, in FIELDS order, with repetitions
   */
  addFields(doc: number, fieldTerms: readonly (readonly string[])[]): void {
    const named = this.named;
    const indexed = this.indexed;
    const F = FIELDS.length;
    for (let f = 0; f < fieldTerms.length; f++) {
      const ts = fieldTerms[f]!;
      for (let k = 0; k < ts.length; k++) {
        const term = ts[k]!;
        const s = this.slot(term);
        const freq = this.freq;
        if (this.lastDoc[s] !== doc) {
          this.lastDoc[s] = doc;
          for (let i = s * F; i < s * F + F; i++) freq[i] = 0;
          if (isArrayIndex(term)) indexed.push(s);
          else named.push(s);
        }
        freq[s * F + f]!++;
      }
    }
    if (indexed.length > 1) indexed.sort((a, b) => Number(this.terms[a]) - Number(this.terms[b]));
    this.emit(doc, indexed);
    this.emit(doc, named);
    indexed.length = 0;
    named.length = 0;
    if (this.pending >= this.batchPostings) this.flush();
  }

  private emit(doc: number, slots: readonly number[]): void {
    const F = FIELDS.length;
    // room for every entry this document can add, made once
    this.pool = grow(this.pool, this.poolLength + slots.length * F * 4);
    this.order = grow(this.order, this.orderLength + slots.length);
    const pool = this.pool;
    const freq = this.freq;
    const entries = this.entries;
    let at = this.poolLength;
    for (const s of slots) {
      for (let fid = 0; fid < F; fid++) {
        const n = freq[s * F + fid]!;
        if (n <= 0) continue;
        pool[at] = doc;
        pool[at + 1] = fid;
        pool[at + 2] = n;
        pool[at + 3] = s;
        if (entries[s]!++ === 0) this.order[this.orderLength++] = s;
        at += 4;
        this.pending += 3;
      }
    }
    this.poolLength = at;
  }

  /**
   * Encodes the current batch into one run per bucket (each bucket's terms in order of first
   * appearance): the pool's entries are grouped by term (a stable counting sort, so each term's
   * stay in order of addition), then written as bytes: the same bytes as postings.ts's `encodeRun`
   * of each term's flat postings, without making those lists.
   */
  private flush(): void {
    if (this.pending === 0) return;
    const n = this.orderLength;
    // the batch's slots grouped by bucket, each bucket's in order of first appearance (a stable counting sort)
    const bucketOfOrder = new Uint8Array(n);
    const start = new Int32Array(BUCKET_COUNT + 1);
    for (let i = 0; i < n; i++) {
      const b = bucketOf(this.terms[this.order[i]!]!);
      bucketOfOrder[i] = b;
      start[b + 1]!++;
    }
    for (let b = 0; b < BUCKET_COUNT; b++) start[b + 1]! += start[b]!;
    const next = start.slice(0, BUCKET_COUNT);
    const sorted = new Int32Array(n);
    for (let i = 0; i < n; i++) sorted[next[bucketOfOrder[i]!]!++] = this.order[i]!;
    // each slot's entries, in the order of `sorted`, copied out of the pool in order of addition
    this.ends = grow(this.ends, this.terms.length);
    const ends = this.ends;
    const entries = this.entries;
    // the entries grouped by slot, in order of addition: document, field, frequency (only while
    // the batch is encoded: the builder does not keep megabytes it no longer needs)
    const byTerm = new Int32Array((this.poolLength / 4) * 3);
    let total = 0;
    for (let k = 0; k < n; k++) {
      const s = sorted[k]!;
      ends[s] = total;
      total += entries[s]!;
    }
    const pool = this.pool;
    for (let e = 0; e < this.poolLength; e += 4) {
      const to = ends[pool[e + 3]!]!++ * 3;
      byTerm[to] = pool[e]!;
      byTerm[to + 1] = pool[e + 1]!;
      byTerm[to + 2] = pool[e + 2]!;
    }
    const body = this.body;
    for (let b = 0; b < BUCKET_COUNT; b++) {
      const from = start[b]!;
      const to = start[b + 1]!;
      if (from === to) continue;
      const t: string[] = new Array<string>(to - from);
      const o: number[] = new Array<number>(to - from);
      const counts: number[] = new Array<number>(to - from);
      const lasts = new Int32Array(to - from);
      body.length = 0;
      for (let k = from; k < to; k++) {
        const s = sorted[k]!;
        let prev = 0;
        let docs = 0;
        const end = ends[s]! * 3;
        let at = end - entries[s]! * 3;
        while (at < end) {
          const doc = byTerm[at]!;
          // this document's entries, fields increasing: the mask, then each frequency
          let mask = 0;
          let next = at;
          for (; next < end && byTerm[next] === doc; next += 3) mask |= 1 << byTerm[next + 1]!;
          body.varint(doc - prev);
          body.byte(mask);
          for (let e = at; e < next; e += 3) body.varint(byTerm[e + 2]!);
          at = next;
          prev = doc;
          docs++;
        }
        const i = k - from;
        t[i] = this.terms[s]!;
        o[i] = body.length;
        counts[i] = docs;
        lasts[i] = prev;
      }
      const header = Buffer.from(JSON.stringify({ t, o, n: counts }), 'utf8');
      // a buffer of its own (not a slice of Buffer's shared pool): a worker hands it over as it is
      const bytes = Buffer.allocUnsafeSlow(4 + header.length + body.length);
      bytes.writeUInt32LE(header.length, 0);
      header.copy(bytes, 4);
      body.copyTo(bytes, 4 + header.length);
      this.runs[b]!.push({ bytes, lasts });
    }
    this.slots = new Map();
    this.terms = [];
    this.orderLength = 0;
    this.poolLength = 0;
    this.pending = 0;
  }

  /**
   * The runs of every bucket so far (the current batch encoded first), as plain data a worker
   * thread can send: each run's bytes and lasts fill their own ArrayBuffer, so they can be
   * transferred, not copied (this builder is done with then).
   */
  part(): PostingsRun[][] {
    this.flush();
    return this.runs.map((rs) => rs.map((r) => ({ bytes: r.bytes, lasts: r.lasts })));
  }

  /**
   * Appends the runs of a part built apart ({@link part}), whose documents come after every
   * document added here: the first of them is document `base`.
   */
  append(runs: readonly PostingsRun[][], base: number): void {
    this.flush();
    runs.forEach((rs, b) => {
      for (const r of rs) this.runs[b]!.push({ ...r, base: (r.base ?? 0) + base });
    });
  }

  /** One bucket file's bytes (see postings.ts); empty for a bucket without terms (no file is written). */
  bucket(b: number): Buffer {
    this.flush();
    return mergeRuns(this.runs[b]!, this.scratch);
  }
}

/**
 * Reads every file and builds the documents table and the bucketed postings.
 *
 * @param roots the vault: each file is read through the scope's folder handles (store/read-scope-file.ts)
 * @param files the scope's `*.md` files (from the walk), in walk order
 * @param fsNow the file system's clock after the reads began: files modified within
 *   {@link RACY_WINDOW_MS} of it get mtime -1 so the next check re-reads them
 */
export function buildGeneration(roots: VaultRoots, scope: Scope, files: readonly StatFile[], fsNow: () => number, onProgress?: ProgressFn): BuiltGeneration {
  const reader = openScopeReader(roots, scope);
  try {
    return buildFrom(roots, scope, reader, files, fsNow, onProgress);
  } finally {
    reader.close();
  }
}

/** One part of a build: the files it read, as a documents table and postings numbered from 0. */
export interface BuiltPart {
  table: DocTableBuilder;
  invalid: InvalidRecord[];
  postings: PostingsBuilder;
}

/**
 * Reads `files` (in walk order) into a documents table and postings of their own, numbered from 0.
 *
 * @param files an array, or made one by one as they are read (a worker thread makes each record then)
 * @param onFile called after each file
 */
export function buildPart(reader: ScopeReader, files: Iterable<StatFile>, onFile?: () => void): BuiltPart {
  const table = new DocTableBuilder();
  const invalid: InvalidRecord[] = [];
  const postings = new PostingsBuilder();
  for (const f of files) {
    const r = readIndexableMemory(f.file, f.rel, reader);
    if ('invalid' in r) invalid.push(r.invalid);
    else {
      const fieldTerms = memoryFieldTerms(r.memory);
      postings.addFields(table.count, fieldTerms);
      table.add({ ...r.doc, len: fieldTerms.map((ts) => ts.length) });
    }
    onFile?.();
  }
  return { table, invalid, postings };
}

/** A part built apart (by a worker thread), as plain data. */
export interface SentPart {
  table: DocTablePart;
  invalid: InvalidRecord[];
  runs: PostingsRun[][];
}

/** Appends a part built apart to `into` (whose files come before the part's). */
export function appendPart(into: BuiltPart, part: SentPart): void {
  into.postings.append(part.runs, into.table.count);
  into.table.append(part.table);
  into.invalid.push(...part.invalid);
}

/**
 * How a large build shares its files with the worker thread: the files are cut into chunks of
 * consecutive files; this thread claims them from the front, the worker from the back, until the
 * two meet, so neither waits long for the other whatever their speeds (a fixed half let one
 * thread idle for seconds on a busy machine). The claims are one shared 32-bit word:
 * the next front chunk in the low 16 bits, the chunk after the last unclaimed one in the high 16.
 */
export interface ChunkPlan {
  /** files per chunk */
  size: number;
  /** chunks (at most 65,535) */
  count: number;
}

/** The chunks of a build of `files` files: about {@link CHUNKS_PER_BUILD} of them, at least {@link CHUNK_MIN_FILES} files each. */
export function chunkPlan(files: number): ChunkPlan {
  const size = Math.max(CHUNK_MIN_FILES, Math.ceil(files / CHUNKS_PER_BUILD));
  return { size, count: Math.ceil(files / size) };
}

/** Chunks a large build is cut into (a worker chunk is one part, its postings flushed at its end). */
const CHUNKS_PER_BUILD = 40;
/** Files a chunk has at least. */
const CHUNK_MIN_FILES = 250;

/** The claim word of a build of `count` chunks before any claim. */
export function initialClaims(count: number): number {
  return (count << 16) | 0;
}

/**
 * Claims the next chunk from the front (`front`: this thread) or from the back (the worker),
 * atomically.
 *
 * @param claims the shared word at index `at` (see {@link ChunkPlan})
 * @returns the chunk's number, or -1 once every chunk is claimed
 */
export function claimChunk(claims: Int32Array, at: number, front: boolean): number {
  for (;;) {
    const word = Atomics.load(claims, at);
    const lo = word & 0xffff;
    const hi = word >>> 16;
    if (lo >= hi) return -1;
    const next = front ? (hi << 16) | (lo + 1) : ((hi - 1) << 16) | lo;
    if (Atomics.compareExchange(claims, at, word, next) === word) return front ? lo : hi - 1;
  }
}

/** The files of chunk `c` of `files` files: indexes [from, to). */
export function chunkRange(files: number, plan: ChunkPlan, c: number): [number, number] {
  return [Math.min(files, c * plan.size), Math.min(files, (c + 1) * plan.size)];
}

/** Where the claim word sits in the build's shared array (see {@link HelperData}). */
export const CLAIMS_AT = 2;

function buildFrom(
  roots: VaultRoots,
  scope: Scope,
  reader: ScopeReader,
  files: readonly StatFile[],
  fsNow: () => number,
  onProgress?: ProgressFn,
): BuiltGeneration {
  let done = 0;
  let other = (): number => 0;
  const onFile = onProgress ? () => ++done % 500 === 0 && onProgress(done + other(), files.length) : undefined;
  // a large build shares its chunks of files with a worker thread, read at the same time (the
  // reading, checking and tokenizing of each file is most of a build's time)
  const helper = files.length >= PARALLEL_MIN_FILES ? startHelper(roots, scope, files) : undefined;
  let built: BuiltPart;
  if (helper) {
    other = helper.done;
    // this thread's chunks are the first ones, in order: one part of its own
    const plan = helper.plan;
    const mine = function* (): Generator<StatFile> {
      for (let c = claimChunk(helper.claims, CLAIMS_AT, true); c !== -1; c = claimChunk(helper.claims, CLAIMS_AT, true)) {
        const [from, to] = chunkRange(files.length, plan, c);
        for (let i = from; i < to; i++) yield files[i]!;
      }
    };
    built = buildPart(reader, mine(), onFile);
    const parts = helper.wait(() => onProgress?.(done + other(), files.length));
    // every chunk not read here was the worker's: the last `count - first` chunks
    const first = Atomics.load(helper.claims, CLAIMS_AT) & 0xffff;
    if (parts) for (const part of parts) appendPart(built, part);
    else {
      // the worker failed: read its chunks here
      const rest = buildPart(reader, files.slice(first * plan.size), onFile);
      appendPart(built, { table: rest.table.part(), invalid: rest.invalid, runs: rest.postings.part() });
    }
  } else built = buildPart(reader, files, onFile);
  onProgress?.(files.length, files.length);
  const { table, invalid, postings } = built;
  const now = fsNow();
  table.markRacy(now - RACY_WINDOW_MS);
  for (const d of invalid) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  return { table, invalid, bucket: (b) => postings.bucket(b) };
}

/** Files a build has before it shares them with a worker thread (starting one takes ~100 ms). */
export const PARALLEL_MIN_FILES = 4000;

/** What the worker thread (build-worker.ts) is given. */
export interface HelperData {
  roots: VaultRoots;
  scope: Scope;
  /** every file's scope-relative path, in walk order */
  rels: string[];
  /** every file's absolute path */
  absPaths: string[];
  plan: ChunkPlan;
  /** Int32 [0]: 1 once the worker posted its last message; [1]: files it read so far; [{@link CLAIMS_AT}]: the chunk claims */
  shared: SharedArrayBuffer;
  /** the worker posts `{chunk, part}` per chunk it read (in decreasing chunk order), then `{end: true}` or `{error}` */
  port: MessagePort;
}

/** A message of the worker thread (see {@link HelperData}). */
export type HelperMessage = { chunk: number; part: SentPart } | { end: true } | { error: string };

/** How long the worker may read no file before the build gives up on it and reads its files itself (ms). */
const HELPER_STALL_MS = 60_000;

/** The compiled worker script, or undefined (running from the TypeScript sources, or a bundle without it). */
function helperScript(): string | undefined {
  try {
    const here = fileURLToPath(import.meta.url);
    // from dist/search/index/index-build.js, or from a bundle in dist/<folder>/
    const candidates = [join(dirname(here), 'build-worker.js'), join(dirname(dirname(here)), 'search', 'index', 'build-worker.js')];
    return candidates.find((c) => c.endsWith('.js') && existsSync(c));
  } catch {
    return undefined;
  }
}

/**
 * Starts a worker thread that reads chunks of `files` from the back (see {@link ChunkPlan} and
 * build-worker.ts); undefined when none can run (one processor, or no compiled worker script:
 * running from the TypeScript sources).
 */
function startHelper(
  roots: VaultRoots,
  scope: Scope,
  files: readonly StatFile[],
): { plan: ChunkPlan; claims: Int32Array; done(): number; wait(tick: () => void): SentPart[] | undefined } | undefined {
  if (availableParallelism() < 2) return undefined;
  const script = helperScript();
  if (!script) return undefined;
  const plan = chunkPlan(files.length);
  const shared = new SharedArrayBuffer(4 * (CLAIMS_AT + 1));
  const state = new Int32Array(shared);
  state[CLAIMS_AT] = initialClaims(plan.count);
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    // the files as two lists of strings (a few megabytes), not one object each: the worker makes
    // each file's record when it reads it
    const data: HelperData = { roots, scope, rels: files.map((f) => f.rel), absPaths: files.map((f) => f.file.absPath), plan, shared, port: port2 };
    // a small young generation: the worker's heap stays small (its garbage is collected sooner)
    worker = new Worker(script, { workerData: data, transferList: [port2], stdout: false, stderr: false, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  } catch {
    port1.close();
    return undefined;
  }
  worker.unref();
  return {
    plan,
    claims: state,
    done: () => Atomics.load(state, 1),
    wait(tick) {
      if ((Atomics.load(state, CLAIMS_AT) & 0xffff) === plan.count) {
        // every chunk was read here (the worker claimed none, and now cannot): no need to wait for it
        port1.close();
        void worker.terminate();
        return [];
      }
      let seen = -1;
      let since = performance.now();
      while (Atomics.load(state, 0) === 0) {
        Atomics.wait(state, 0, 0, 200);
        tick();
        const now = Atomics.load(state, 1);
        if (now !== seen) {
          seen = now;
          since = performance.now();
        } else if (performance.now() - since > HELPER_STALL_MS) break;
      }
      // the worker's chunks, each once, up to the last; anything else (an error, a missing
      // chunk, no end) and its chunks are read again here
      const first = Atomics.load(state, CLAIMS_AT) & 0xffff;
      const parts: SentPart[] = new Array<SentPart>(plan.count - first);
      let got = 0;
      let ended = false;
      for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) {
        const msg = m.message as HelperMessage;
        if ('end' in msg) ended = true;
        else if ('chunk' in msg && msg.chunk >= first && msg.chunk < plan.count && !parts[msg.chunk - first]) {
          parts[msg.chunk - first] = msg.part;
          got++;
        } else break;
      }
      port1.close();
      void worker.terminate();
      return ended && got === parts.length ? parts : undefined;
    },
  };
}
