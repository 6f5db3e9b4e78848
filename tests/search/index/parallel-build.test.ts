// A large full build reads its second half of the files in a worker thread (index-build.ts,
// build-worker.ts) and appends that part to its own: the documents table and the bucket files
// must be exactly those of reading every file in one go. Also: the postings a build counts from
// the tokenizer's terms (addFields) are those of the term-count object (add).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS, STATUSES, kindFolder } from '../../../src/document/contract.js';
import { DocTableBuilder } from '../../../src/search/index/generation-docs.js';
import { PostingsBuilder } from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT, type DocRecord } from '../../../src/search/index/index-format.js';
import { countTerms } from '../../../src/search/index/memory-terms.js';

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
});
