/**
 * The worker thread of a large full build (index-build.ts): claims chunks of the files from the
 * back (the build's own thread claims them from the front, until they meet), reads, checks and
 * tokenizes each chunk into a documents table and postings of its own, numbered from 0, and posts
 * it as plain data, its buffers handed over, not copied; then an end message. The build waits for
 * it synchronously: the messages are posted on a port, then the end is flagged in a shared array.
 */
import { workerData } from 'node:worker_threads';
import { openScopeReader } from '../../store/read-scope-file.js';
import { CLAIMS_AT, buildPart, chunkRange, claimChunk, type HelperData, type HelperMessage, type StatFile } from './index-build.js';

const data = workerData as HelperData;
const state = new Int32Array(data.shared);
const post = (msg: HelperMessage, transfer: ArrayBuffer[] = []) => data.port.postMessage(msg, transfer);
try {
  const reader = openScopeReader(data.roots, data.scope);
  try {
    for (let c = claimChunk(state, CLAIMS_AT, false); c !== -1; c = claimChunk(state, CLAIMS_AT, false)) {
      // each file's record made when it is read, not all of them first
      const files = function* (): Generator<StatFile> {
        const [from, to] = chunkRange(data.rels.length, data.plan, c);
        for (let i = from; i < to; i++) {
          const rel = data.rels[i]!;
          // size and mtime are the read's own (the walk's are not used by the build)
          yield { rel, size: -1, mtime: -1, file: { scope: data.scope, path: `${data.scope}/${rel}`, absPath: data.absPaths[i]!, segments: rel.split('/') } };
        }
      };
      const built = buildPart(reader, files(), () => Atomics.add(state, 1, 1));
      const part = { table: built.table.part(), invalid: built.invalid, runs: built.postings.part() };
      // the runs' bytes are handed over, not copied (each fills an ArrayBuffer of its own)
      const transfer: ArrayBuffer[] = [];
      for (const rs of part.runs) for (const r of rs) transfer.push(r.bytes.buffer as ArrayBuffer, r.lasts.buffer as ArrayBuffer);
      post({ chunk: c, part }, transfer);
    }
  } finally {
    reader.close();
  }
  post({ end: true });
} catch (err) {
  post({ error: (err as Error).message });
}
Atomics.store(state, 0, 1);
Atomics.notify(state, 0);
