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
import { BUCKET_COUNT, RACY_WINDOW_MS, bucketOf, type InvalidRecord } from './index-format.js';
import { encodeRun, mergeRuns, type FlatPostings, type PostingsRun } from './postings.js';
import { readIndexableFile } from './memory-terms.js';
import { DocTableBuilder } from './generation-docs.js';

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
 * Collects the postings of a generation, bucket by bucket, as documents are added in order: the
 * current batch flat (`[document, field, frequency, …]` per term), earlier batches as encoded
 * runs (a few bytes per posting).
 */
export class PostingsBuilder {
  /** the current batch's terms, in order of first appearance (bucketed when the batch is encoded) */
  private batch = new Map<string, FlatPostings>();
  private readonly runs: PostingsRun[][] = Array.from({ length: BUCKET_COUNT }, () => []);
  private pending = 0;

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
    const batch = this.batch;
    for (const term in terms) {
      const freqs = terms[term]!;
      let list = batch.get(term);
      if (!list) batch.set(term, (list = []));
      for (let fid = 0; fid < freqs.length; fid++)
        if (freqs[fid]! > 0) {
          list.push(doc, fid, freqs[fid]!);
          this.pending += 3;
        }
    }
    if (this.pending >= this.batchPostings) this.flush();
  }

  /** Encodes the current batch into one run per bucket (each bucket's terms in order of first appearance). */
  private flush(): void {
    if (this.pending === 0) return;
    const byBucket = new Map<number, Map<string, FlatPostings>>();
    for (const [term, list] of this.batch) {
      const b = bucketOf(term);
      let m = byBucket.get(b);
      if (!m) byBucket.set(b, (m = new Map()));
      m.set(term, list);
    }
    for (const [b, terms] of byBucket) this.runs[b]!.push(encodeRun(terms));
    this.batch = new Map();
    this.pending = 0;
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
    return buildFrom(reader, files, fsNow, onProgress);
  } finally {
    reader.close();
  }
}

function buildFrom(reader: ScopeReader, files: readonly StatFile[], fsNow: () => number, onProgress?: ProgressFn): BuiltGeneration {
  const table = new DocTableBuilder();
  const invalid: InvalidRecord[] = [];
  const postings = new PostingsBuilder();
  let done = 0;
  for (const f of files) {
    const r = readIndexableFile(f.file, f.rel, reader);
    if ('invalid' in r) invalid.push(r.invalid);
    else {
      postings.add(table.count, r.doc.terms);
      table.add(r.doc);
    }
    if (onProgress && ++done % 500 === 0) onProgress(done, files.length);
  }
  onProgress?.(files.length, files.length);
  const now = fsNow();
  table.markRacy(now - RACY_WINDOW_MS);
  for (const d of invalid) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  return { table, invalid, bucket: (b) => postings.bucket(b) };
}
