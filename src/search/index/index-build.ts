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
import { encodeRun, mergeRuns, type FlatPostings, type PostingsRun } from './postings.js';
import { memoryFieldTerms, readIndexableMemory } from './memory-terms.js';
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

/** A term of the current batch: its flat postings, and its frequencies in the document being added. */
interface BatchTerm {
  term: string;
  list: FlatPostings;
  /** the document {@link freqs} count (-1: none yet) */
  doc: number;
  freqs: number[];
}

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

/**
 * Collects the postings of a generation, bucket by bucket, as documents are added in order: the
 * current batch flat (`[document, field, frequency, …]` per term), earlier batches as encoded
 * runs (a few bytes per posting).
 */
export class PostingsBuilder {
  /** the current batch's terms */
  private batch = new Map<string, BatchTerm>();
  /** the current batch's terms in order of first appearance (bucketed when the batch is encoded) */
  private order: BatchTerm[] = [];
  private readonly runs: PostingsRun[][] = Array.from({ length: BUCKET_COUNT }, () => []);
  private pending = 0;
  /** one document's terms while it is added (reused) */
  private readonly named: BatchTerm[] = [];
  private readonly indexed: BatchTerm[] = [];

  /**
   * @param batchPostings numbers the current batch holds before it is encoded (default {@link BATCH_POSTINGS})
   */
  constructor(private readonly batchPostings = BATCH_POSTINGS) {}

  /**
   * Adds one document's terms.
   *
   * @param doc the document's index in the generation (increasing from call to call)
   * @param terms term → frequency per field, in FIELDS order
   */
  add(doc: number, terms: Readonly<Record<string, readonly number[]>>): void {
    const named = this.named;
    for (const term in terms) {
      const e = this.entry(term);
      e.doc = doc;
      const freqs = terms[term]!;
      for (let f = 0; f < e.freqs.length; f++) e.freqs[f] = freqs[f] ?? 0;
      named.push(e);
    }
    this.emit(doc, named);
    named.length = 0;
    if (this.pending >= this.batchPostings) this.flush();
  }

  private entry(term: string): BatchTerm {
    let e = this.batch.get(term);
    if (!e) {
      e = { term, list: [], doc: -1, freqs: new Array<number>(FIELDS.length).fill(0) };
      this.batch.set(term, e);
    }
    return e;
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
    const batch = this.batch;
    const named = this.named;
    const indexed = this.indexed;
    const F = FIELDS.length;
    for (let f = 0; f < fieldTerms.length; f++) {
      const ts = fieldTerms[f]!;
      for (let k = 0; k < ts.length; k++) {
        const term = ts[k]!;
        let e = batch.get(term);
        if (!e) {
          e = { term, list: [], doc: -1, freqs: new Array<number>(F).fill(0) };
          batch.set(term, e);
        }
        if (e.doc !== doc) {
          e.doc = doc;
          e.freqs.fill(0);
          if (isArrayIndex(term)) indexed.push(e);
          else named.push(e);
        }
        e.freqs[f]!++;
      }
    }
    if (indexed.length > 1) indexed.sort((a, b) => Number(a.term) - Number(b.term));
    this.emit(doc, indexed);
    this.emit(doc, named);
    indexed.length = 0;
    named.length = 0;
    if (this.pending >= this.batchPostings) this.flush();
  }

  private emit(doc: number, entries: readonly BatchTerm[]): void {
    const order = this.order;
    for (const e of entries) {
      const list = e.list;
      if (list.length === 0) order.push(e);
      const freqs = e.freqs;
      for (let fid = 0; fid < freqs.length; fid++)
        if (freqs[fid]! > 0) {
          list.push(doc, fid, freqs[fid]!);
          this.pending += 3;
        }
    }
  }

  /** Encodes the current batch into one run per bucket (each bucket's terms in order of first appearance). */
  private flush(): void {
    if (this.pending === 0) return;
    const byBucket = new Map<number, Map<string, FlatPostings>>();
    for (const { term, list } of this.order) {
      const b = bucketOf(term);
      let m = byBucket.get(b);
      if (!m) byBucket.set(b, (m = new Map()));
      m.set(term, list);
    }
    for (const [b, terms] of byBucket) this.runs[b]!.push(encodeRun(terms));
    this.batch = new Map();
    this.order = [];
    this.pending = 0;
  }

  /** The runs of every bucket so far (the current batch encoded first), as plain data a worker thread can send. */
  part(): PostingsRun[][] {
    this.flush();
    return this.runs.map((rs) => rs.map((r) => ({ bytes: new Uint8Array(r.bytes), lasts: r.lasts })));
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
    return mergeRuns(this.runs[b]!);
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
 * @param onFile called after each file
 */
export function buildPart(reader: ScopeReader, files: readonly StatFile[], onFile?: () => void): BuiltPart {
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
  // a large build reads its second half in a worker thread, at the same time (the reading,
  // checking and tokenizing of each file is most of a build's time)
  const helper = files.length >= PARALLEL_MIN_FILES ? startHelper(roots, scope, files.slice(files.length >> 1)) : undefined;
  let built: BuiltPart;
  if (helper) {
    other = helper.done;
    built = buildPart(reader, files.slice(0, files.length >> 1), onFile);
    const part = helper.wait(() => onProgress?.(done + other(), files.length));
    if (part) appendPart(built, part);
    else {
      // the worker failed: read its half here
      const rest = buildPart(reader, files.slice(files.length >> 1), onFile);
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

/** Files a build has before it reads half of them in a worker thread (starting one takes ~100 ms). */
export const PARALLEL_MIN_FILES = 4000;

/** What the worker thread (build-worker.ts) is given. */
export interface HelperData {
  roots: VaultRoots;
  scope: Scope;
  files: StatFile[];
  /** [0]: 1 once the answer was posted; [1]: files read so far */
  shared: SharedArrayBuffer;
  port: MessagePort;
}

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
 * Starts a worker thread reading `files` (see build-worker.ts); undefined when none can run
 * (one processor, or no compiled worker script: running from the TypeScript sources).
 */
function startHelper(
  roots: VaultRoots,
  scope: Scope,
  files: readonly StatFile[],
): { done(): number; wait(tick: () => void): SentPart | undefined } | undefined {
  if (availableParallelism() < 2) return undefined;
  const script = helperScript();
  if (!script) return undefined;
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    const plain = files.map((f) => ({
      rel: f.rel,
      size: f.size,
      mtime: f.mtime,
      file: { scope: f.file.scope, path: f.file.path, absPath: f.file.absPath, segments: f.file.segments },
    }));
    const data: HelperData = { roots, scope, files: plain as StatFile[], shared, port: port2 };
    worker = new Worker(script, { workerData: data, transferList: [port2], stdout: false, stderr: false });
  } catch {
    port1.close();
    return undefined;
  }
  worker.unref();
  return {
    done: () => Atomics.load(state, 1),
    wait(tick) {
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
      const answer = receiveMessageOnPort(port1)?.message as { part?: SentPart } | undefined;
      port1.close();
      void worker.terminate();
      return answer?.part;
    },
  };
}
