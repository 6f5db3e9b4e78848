// A large full build shares chunks of its files with a worker thread (index-build.ts,
// build-worker.ts) and appends the worker's parts to its own: the documents table and the bucket files
// must be exactly those of reading every file in one go. Also: the postings a build counts from
// the tokenizer's terms (addFields) are those of the term-count object (add), and a batch encoded
// straight into runs gives the bytes of postings.ts's reference encoder (encodeBucket).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS, STATUSES, kindFolder } from '../../../src/document/contract.js';
import { DocTableBuilder } from '../../../src/search/index/generation-docs.js';
import { CLAIMS_AT, PostingsBuilder, chunkPlan, chunkRange, claimChunk, initialClaims } from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT, bucketOf, type DocRecord } from '../../../src/search/index/index-format.js';
import { countTerms } from '../../../src/search/index/memory-terms.js';
import { encodeBucket, encodeRun, mergeRuns, type FlatPostings, type MergeScratch } from '../../../src/search/index/postings.js';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';

const record = fc
  .record({
    id: fc.stringMatching(/^mem_[a-z0-9]{1,6}$/),
    kind: fc.constantFrom(...KINDS),
    status: fc.constantFrom(...STATUSES),
    tags: fc.array(fc.constantFrom('db', 'ops', 'ui', 'é', 'x'), { maxLength: 3 }),
    targets: fc.array(fc.constantFrom('all', 'claude-code', 'codex'), { maxLength: 2 }),
    source: fc.constantFrom('test', 'codex', 'claude', 'x'),
    links: fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('é', '会话')), { maxLength: 3 }),
    updated: fc.integer({ min: 0, max: 2 ** 42 }),
    size: fc.integer({ min: 0, max: 1 << 20 }),
    mtime: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 42 })),
    len: fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 5, maxLength: 5 }),
    canonical: fc.boolean(),
    folder: fc.constantFrom('a', 'b', 'notes', 'x/y'),
  })
  .map(({ canonical, folder, ...r }): DocRecord => ({ ...r, scope: 'team', path: canonical ? `${kindFolder(r.kind)}/${r.id}.md` : `${folder}/${r.id}.md` }));

/**
 * The buckets of `docs` as the first streamed build wrote them: each document's term counts
 * (countTerms: array-index terms first, then order of first appearance), every term's flat
 * postings over all documents, and postings.ts's own encoder over each bucket's terms in order of
 * first appearance.
 */
function referenceBuckets(docs: readonly (readonly (readonly string[])[])[]): Buffer[] {
  const byBucket = Array.from({ length: BUCKET_COUNT }, () => new Map<string, FlatPostings>());
  docs.forEach((f, doc) => {
    const { terms } = countTerms(f.map((ts) => [...ts]));
    for (const t in terms) {
      const map = byBucket[bucketOf(t)]!;
      let list = map.get(t);
      if (!list) map.set(t, (list = []));
      terms[t]!.forEach((n, fid) => {
        if (n > 0) list.push(doc, fid, n);
      });
    }
  });
  return byBucket.map((m) => (m.size === 0 ? Buffer.alloc(0) : encodeBucket(m)));
}

const term = fc.constantFrom('alpha', 'alps', 'beta', 'bet', 'gamma', '会话', 'x1', '0', '7', '42', '007', '4294967294', '4294967295', '1.5', 'a/b');
const fields = fc.array(fc.array(term, { maxLength: 6 }), { minLength: 5, maxLength: 5 });

describe('a build in two parts', () => {
  it('appends a documents table part as if its records were added one by one', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 24 }), fc.nat(), (docs, at) => {
        const k = docs.length === 0 ? 0 : at % (docs.length + 1);
        const whole = new DocTableBuilder();
        for (const d of docs) whole.add(d);
        const first = new DocTableBuilder();
        const second = new DocTableBuilder();
        docs.forEach((d, i) => {
          (i < k ? first : second).add(d);
        });
        first.append(second.part());
        const buckets = new Array(BUCKET_COUNT).fill(0);
        expect(first.encode('team', 'g1', buckets, [])).toEqual(whole.encode('team', 'g1', buckets, []));
      }),
      { numRuns: 300 },
    );
  });

  it('appends a postings part as if its documents were added one by one, whatever the batch size', () => {
    fc.assert(
      fc.property(fc.array(fields, { maxLength: 30 }), fc.nat(), fc.integer({ min: 3, max: 60 }), (docs, at, batch) => {
        const k = docs.length === 0 ? 0 : at % (docs.length + 1);
        const whole = new PostingsBuilder(batch);
        const counted = new PostingsBuilder();
        docs.forEach((f, doc) => {
          whole.addFields(doc, f);
          counted.add(doc, countTerms(f).terms);
        });
        const first = new PostingsBuilder(batch);
        const second = new PostingsBuilder(batch);
        docs.forEach((f, doc) => {
          if (doc < k) first.addFields(doc, f);
          else second.addFields(doc - k, f);
        });
        first.append(second.part(), k);
        for (let b = 0; b < BUCKET_COUNT; b++) {
          const expected = counted.bucket(b);
          expect(whole.bucket(b).equals(expected)).toBe(true);
          expect(first.bucket(b).equals(expected)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('encodes each batch straight into runs: buckets byte for byte those of the reference encoder, whatever the batch size', () => {
    fc.assert(
      fc.property(fc.array(fields, { maxLength: 30 }), fc.integer({ min: 3, max: 200 }), (docs, batch) => {
        const built = new PostingsBuilder(batch);
        docs.forEach((f, doc) => {
          built.addFields(doc, f);
        });
        const expected = referenceBuckets(docs);
        for (let b = 0; b < BUCKET_COUNT; b++) expect(built.bucket(b).equals(expected[b]!)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('hands a part over as whole buffers: every run fills its own ArrayBuffer, so it transfers without a copy', () => {
    const docs = Array.from({ length: 200 }, (_, i) => [[`t${i % 7}`, 'alpha'], ['db'], ['decision'], [`mem_${i}`], ['beta', `w${i % 31}`, '会话', '42']]);
    const part = new PostingsBuilder(64);
    docs.forEach((f, doc) => {
      part.addFields(doc, f);
    });
    const runs = part.part();
    const buffers = runs.flat().flatMap((r) => [r.bytes.buffer, r.lasts.buffer]);
    expect(buffers.length).toBeGreaterThan(2 * BUCKET_COUNT);
    for (const r of runs.flat()) {
      expect(r.bytes.byteOffset).toBe(0);
      expect(r.bytes.byteLength).toBe(r.bytes.buffer.byteLength);
    }
    const { port1, port2 } = new MessageChannel();
    port2.postMessage(runs, buffers as ArrayBuffer[]);
    const sent = receiveMessageOnPort(port1)!.message as typeof runs;
    port1.close();
    port2.close();
    const whole = new PostingsBuilder();
    whole.append(sent, 0);
    const expected = referenceBuckets(docs);
    for (let b = 0; b < BUCKET_COUNT; b++) expect(whole.bucket(b).equals(expected[b]!)).toBe(true);
  });

  it('merges with a reused scratch exactly as without, and no merged bucket shares the scratch', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fields, { maxLength: 8 }), { minLength: 1, maxLength: 6 }), (batches) => {
        const scratch: MergeScratch = { bytes: Buffer.alloc(0) };
        const merged: Buffer[] = [];
        const expected: Buffer[] = [];
        for (let b = 0; b < BUCKET_COUNT; b++) {
          let doc = 0;
          const runs = batches.flatMap((batch) => {
            const m = new Map<string, FlatPostings>();
            for (const f of batch) {
              const { terms } = countTerms(f.map((ts) => [...ts]));
              for (const t in terms) {
                if (bucketOf(t) !== b) continue;
                const list = m.get(t) ?? [];
                m.set(t, list);
                terms[t]!.forEach((n, fid) => {
                  if (n > 0) list.push(doc, fid, n);
                });
              }
              doc++;
            }
            return m.size === 0 ? [] : [encodeRun(m)];
          });
          merged.push(mergeRuns(runs, scratch));
          expected.push(Buffer.from(mergeRuns(runs)));
        }
        // earlier results are unchanged by later merges into the same scratch
        for (let b = 0; b < BUCKET_COUNT; b++) expect(merged[b]!.equals(expected[b]!)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('shares chunks between the two threads: the front claims a prefix in order, the back the rest from the end, each chunk once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), fc.array(fc.boolean(), { maxLength: 80 }), (files, turns) => {
        const plan = chunkPlan(files);
        expect(plan.count).toBeLessThanOrEqual(65_535);
        // the chunks cover the files exactly, in order
        let covered = 0;
        for (let c = 0; c < plan.count; c++) {
          const [from, to] = chunkRange(files, plan, c);
          expect(from).toBe(covered);
          expect(to).toBeGreaterThan(from);
          covered = to;
        }
        expect(covered).toBe(files);
        const claims = new Int32Array(CLAIMS_AT + 1);
        claims[CLAIMS_AT] = initialClaims(plan.count);
        const front: number[] = [];
        const back: number[] = [];
        for (const f of [...turns, ...new Array<boolean>(plan.count + 1).fill(true)]) {
          const c = claimChunk(claims, CLAIMS_AT, f);
          if (c !== -1) (f ? front : back).push(c);
        }
        expect(front).toEqual(Array.from({ length: front.length }, (_, i) => i));
        expect(back).toEqual(Array.from({ length: back.length }, (_, i) => plan.count - 1 - i));
        expect(front.length + back.length).toBe(plan.count);
        expect(claimChunk(claims, CLAIMS_AT, false)).toBe(-1);
        expect(claimChunk(claims, CLAIMS_AT, true)).toBe(-1);
      }),
      { numRuns: 300 },
    );
  });

  it('appends chunk parts read back to front (as the worker reads them), in chunk order, as if every document were added in one go', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(record, fields), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        (docs, sizes, at) => {
          const wholeTable = new DocTableBuilder();
          const wholePostings = new PostingsBuilder(24);
          docs.forEach(([r, f], doc) => {
            wholeTable.add(r);
            wholePostings.addFields(doc, f);
          });
          // cut into chunks; the front thread reads the first `k` in one part, the back reads the others, last first
          const cuts: [number, number][] = [];
          for (let i = 0, from = 0; from < docs.length; i++) {
            const to = Math.min(docs.length, from + sizes[i % sizes.length]!);
            cuts.push([from, to]);
            from = to;
          }
          const k = at % (cuts.length + 1);
          const table = new DocTableBuilder();
          const postings = new PostingsBuilder(24);
          for (let c = 0; c < k; c++)
            for (let i = cuts[c]![0]; i < cuts[c]![1]; i++) {
              postings.addFields(table.count, docs[i]![1]);
              table.add(docs[i]![0]);
            }
          const parts: { table: ReturnType<DocTableBuilder['part']>; runs: ReturnType<PostingsBuilder['part']> }[] = [];
          for (let c = cuts.length - 1; c >= k; c--) {
            const t = new DocTableBuilder();
            const p = new PostingsBuilder(24);
            for (let i = cuts[c]![0]; i < cuts[c]![1]; i++) {
              p.addFields(t.count, docs[i]![1]);
              t.add(docs[i]![0]);
            }
            parts[c - k] = { table: t.part(), runs: p.part() };
          }
          for (const part of parts) {
            postings.append(part.runs, table.count);
            table.append(part.table);
          }
          const buckets = new Array(BUCKET_COUNT).fill(0);
          expect(table.encode('team', 'g1', buckets, [])).toEqual(wholeTable.encode('team', 'g1', buckets, []));
          for (let b = 0; b < BUCKET_COUNT; b++) expect(postings.bucket(b).equals(wholePostings.bucket(b))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
