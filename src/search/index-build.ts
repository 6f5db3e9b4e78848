/**
 * Full build of one scope's index generation from the Markdown files (the only source of truth).
 * Used when there is no usable index, on `vault index --rebuild`, and to compact an overlay that
 * has grown large.
 */
import type { Scope } from '../document/contract.js';
import type { WalkedFile } from '../scanner/scan-vault.js';
import { BUCKET_COUNT, RACY_WINDOW_MS, bucketOf, type DocRecord, type IndexEntry, type InvalidRecord } from './index-format.js';
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
  /** the MiniSearch index entries of one bucket (materialised on demand, to keep memory low) */
  bucket(b: number): IndexEntry[];
}

/** Progress callback: files read so far, of total. */
export type ProgressFn = (done: number, total: number) => void;

/**
 * Reads every file and builds the documents table and the bucketed MiniSearch index entries.
 *
 * @param files the scope's `*.md` files (from the walk), in walk order
 * @param fsNow the file system's clock after the reads began: files modified within
 *   {@link RACY_WINDOW_MS} of it get mtime -1 so the next check re-reads them
 */
export function buildGeneration(scope: Scope, files: readonly StatFile[], fsNow: () => number, onProgress?: ProgressFn): BuiltGeneration {
  void scope;
  const docs: DocRecord[] = [];
  const invalid: InvalidRecord[] = [];
  // term → flat [docIndex, fieldId, frequency, ...]: compact while building 100,000 documents
  const postings: Map<string, number[]>[] = Array.from({ length: BUCKET_COUNT }, () => new Map());
  let done = 0;
  for (const f of files) {
    const r = readIndexableFile(f.file, f.rel);
    if ('invalid' in r) invalid.push(r.invalid);
    else {
      const { terms, ...doc } = r.doc;
      const di = docs.length;
      docs.push(doc);
      for (const term in terms) {
        const freqs = terms[term]!;
        const map = postings[bucketOf(term)]!;
        let list = map.get(term);
        if (!list) map.set(term, (list = []));
        for (let fid = 0; fid < freqs.length; fid++) if (freqs[fid]! > 0) list.push(di, fid, freqs[fid]!);
      }
    }
    if (onProgress && ++done % 500 === 0) onProgress(done, files.length);
  }
  onProgress?.(files.length, files.length);
  const now = fsNow();
  for (const d of docs) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  for (const d of invalid) if (d.mtime > now - RACY_WINDOW_MS) d.mtime = -1;
  const bucket = (b: number): IndexEntry[] => {
    const entries: IndexEntry[] = [];
    for (const [term, list] of postings[b]!) {
      const fields: Record<string, Record<string, number>> = {};
      for (let i = 0; i < list.length; i += 3) (fields[list[i + 1]!] ??= {})[list[i]!] = list[i + 2]!;
      entries.push([term, fields]);
    }
    return entries;
  };
  return { docs, invalid, bucket };
}
