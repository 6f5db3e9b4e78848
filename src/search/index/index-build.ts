/**
 * Full build of one scope's index generation from the Markdown files (the only source of truth).
 * Used when there is no usable index, on `vault index --rebuild`, and to compact an overlay that
 * has grown large.
 */
import type { Scope } from '../../document/contract.js';
import type { WalkedFile } from '../../scanner/scan-vault.js';
import { BUCKET_COUNT, RACY_WINDOW_MS, bucketOf, type DocRecord, type InvalidRecord } from './index-format.js';
import { encodeBucket, type FlatPostings } from './postings.js';
import { readIndexableFile } from './memory-terms.js';

/** A walked file with its scope-relative path and stat fingerprint. */
export interface StatFile {
  file: WalkedFile;
  rel: string;
  size: number;
  mtime: number;
}

/** A built generation, in memory. */
export interface BuiltGeneration {
  docs: DocRecord[];
  invalid: InvalidRecord[];
  /** one bucket file's bytes (encoded on demand, to keep memory low) */
  bucket(b: number): Buffer;
}

/** Progress callback: files read so far, of total. */
export type ProgressFn = (done: number, total: number) => void;

/**
 * Collects the postings of a generation, bucket by bucket, as documents are added in order.
 * Kept flat (`[document, field, frequency, …]` per term) so 100,000 documents stay compact.
 */
export class PostingsBuilder {
  private readonly buckets: Map<string, FlatPostings>[] = Array.from({ length: BUCKET_COUNT }, () => new Map());

  /**
   * Adds one document's terms.
   *
   * @param doc the document's index in the generation (increasing from call to call)
   * @param terms term → frequency per field, in FIELDS order
   */
  add(doc: number, terms: Readonly<Record<string, readonly number[]>>): void {
    for (const term in terms) {
      const freqs = terms[term]!;
      const map = this.buckets[bucketOf(term)]!;
      let list = map.get(term);
      if (!list) map.set(term, (list = []));
      for (let fid = 0; fid < freqs.length; fid++) if (freqs[fid]! > 0) list.push(doc, fid, freqs[fid]!);
    }
  }

  /** One bucket file's bytes (see postings.ts); empty for a bucket without terms (no file is written). */
  bucket(b: number): Buffer {
    const terms = this.buckets[b]!;
    return terms.size === 0 ? Buffer.alloc(0) : encodeBucket(terms);
  }
}

/**
 * Reads every file and builds the documents table and the bucketed postings.
 *
 * @param files the scope's `*.md` files (from the walk), in walk order
 * @param fsNow the file system's clock after the reads began: files modified within
 *   {@link RACY_WINDOW_MS} of it get mtime -1 so the next check re-reads them
 */
export function buildGeneration(scope: Scope, files: readonly StatFile[], fsNow: () => number, onProgress?: ProgressFn): BuiltGeneration {
  void scope;
  const docs: DocRecord[] = [];
  const invalid: InvalidRecord[] = [];
  const postings = new PostingsBuilder();
  let done = 0;
  for (const f of files) {
    const r = readIndexableFile(f.file, f.rel);
    if ('invalid' in r) invalid.push(r.invalid);
    else {
      const { terms, ...doc } = r.doc;
      postings.add(docs.length, terms);
      docs.push(doc);
    }
    if (onProgress && ++done % 500 === 0) onProgress(done, files.length);
  }
  onProgress?.(files.length, files.length);
  const now = fsNow();
  for (const d of docs) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  for (const d of invalid) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  return { docs, invalid, bucket: (b) => postings.bucket(b) };
}
