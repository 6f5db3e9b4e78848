/**
 * The worker thread of a large full build (index-build.ts): reads, checks and tokenizes its
 * share of the files (the second half, in walk order) into a documents table and postings of its
 * own, numbered from 0, and sends them back as plain data; the build appends them to its own
 * half. The build waits for it synchronously: the answer is posted on a port, then flagged in a
 * shared array.
 */
import { workerData } from 'node:worker_threads';
import { openScopeReader } from '../../store/read-scope-file.js';
import { buildPart, type HelperData, type SentPart, type StatFile } from './index-build.js';

const data = workerData as HelperData;
const state = new Int32Array(data.shared);
let answer: { part?: SentPart; error?: string };
const transfer: ArrayBuffer[] = [];
try {
  const reader = openScopeReader(data.roots, data.scope);
  try {
    // each file's record made when it is read, not all of them first
    const files = function* (): Generator<StatFile> {
      for (let i = 0; i < data.rels.length; i++) {
        const rel = data.rels[i]!;
        // size and mtime are the read's own (the walk's are not used by the build)
        yield { rel, size: -1, mtime: -1, file: { scope: data.scope, path: `${data.scope}/${rel}`, absPath: data.absPaths[i]!, segments: rel.split('/') } };
      }
    };
    const built = buildPart(reader, files(), () => Atomics.add(state, 1, 1));
    answer = { part: { table: built.table.part(), invalid: built.invalid, runs: built.postings.part() } };
    // the runs' bytes are handed over, not copied (each fills an ArrayBuffer of its own)
    for (const rs of answer.part!.runs) for (const r of rs) transfer.push(r.bytes.buffer as ArrayBuffer, r.lasts.buffer as ArrayBuffer);
  } finally {
    reader.close();
  }
} catch (err) {
  answer = { error: (err as Error).message };
}
data.port.postMessage(answer, transfer);
Atomics.store(state, 0, 1);
Atomics.notify(state, 0);
