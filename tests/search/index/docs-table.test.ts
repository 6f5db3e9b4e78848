// docs.bin (src/search/index/generation-docs.ts) and the streamed build's postings runs: records
// survive the binary table exactly; damaged bytes are refused as IndexUnusable, never a crash or an
// out-of-bounds read; bucket files merged from runs equal the ones encoded in one go.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS, STATUSES, kindFolder } from '../../../src/document/contract.js';
import { DocTableBuilder, GenerationDocs, decodeDocTable, emptyDocTable, toColumns } from '../../../src/search/index/generation-docs.js';
import { PostingsBuilder } from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT, IndexUnusable, bucketOf, type DocRecord } from '../../../src/search/index/index-format.js';
import { encodeBucket, type FlatPostings } from '../../../src/search/index/postings.js';
import { withDocsHeader } from '../../helpers/docs-header.js';

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('é', '会话', 'a/b', '🙂x'));
const record = fc
  .record({
    id: fc.stringMatching(/^mem_[a-z0-9]{1,6}$/),
    kind: fc.constantFrom(...KINDS),
    status: fc.constantFrom(...STATUSES),
    tags: fc.array(fc.constantFrom('db', 'ops', 'ui', 'é'), { maxLength: 3 }),
    targets: fc.array(fc.constantFrom('all', 'claude-code', 'codex'), { maxLength: 2 }),
    source: fc.constantFrom('test', 'codex', 'claude'),
    links: fc.array(text, { maxLength: 3 }),
    updated: fc.integer({ min: 0, max: 2 ** 42 }),
    size: fc.integer({ min: 0, max: 1 << 20 }),
    mtime: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 42 })),
    len: fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 5, maxLength: 5 }),
    canonical: fc.boolean(),
    folder: text,
  })
  .map(({ canonical, folder, ...r }): DocRecord => ({ ...r, scope: 'team', path: canonical ? `${kindFolder(r.kind)}/${r.id}.md` : `${folder}/${r.id}.md` }));

const encode = (docs: DocRecord[]) => {
  const b = new DocTableBuilder();
  for (const d of docs) b.add(d);
  return b.encode('team', 'g1', new Array(BUCKET_COUNT).fill(0), []);
};

describe('bucketOf', () => {
  it('words by their first two characters; memory ids by all of theirs, so ids do not pile up in the bucket of "me" words', () => {
    expect(bucketOf('meeting')).toBe(bucketOf('me'));
    expect(bucketOf('memory')).toBe(bucketOf('meadow'));
    const ids = Array.from({ length: 2000 }, (_, i) => `mem_20260101_${i.toString(16).padStart(20, '0')}`);
    const perBucket = new Map<number, number>();
    for (const id of ids) perBucket.set(bucketOf(id), (perBucket.get(bucketOf(id)) ?? 0) + 1);
    expect(perBucket.size).toBeGreaterThan(BUCKET_COUNT * 0.9);
    expect(Math.max(...perBucket.values())).toBeLessThan(60); // ~16 per bucket on average
    for (const id of ids.slice(0, 50)) expect(bucketOf(id)).toBe(bucketOf(id.slice(0))); // a function of the term
  });
});

describe('docs.bin', () => {
  it('the empty table made directly equals the encoded and decoded one (but for its file length: there is none)', () => {
    const plain = (t: ReturnType<typeof emptyDocTable>) => {
      const { bytes: _, ...rest } = t;
      return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v]));
    };
    expect(plain(emptyDocTable())).toEqual(plain(toColumns([], [])));
    const docs = new GenerationDocs('team', 'none', emptyDocTable(), [], 0);
    expect(docs.count).toBe(0);
    expect(docs.numberOf('notes/a.md')).toBe(-1);
    expect(docs.numbersWithId('mem_x')).toEqual([]);
  });

  it('gives back every record exactly, and finds each by path', () => {
    fc.assert(
      fc.property(fc.uniqueArray(record, { maxLength: 20, selector: (d) => d.path }), (docs) => {
        const base = new GenerationDocs('team', 'g1', decodeDocTable(encode(docs), { scope: 'team', generation: 'g1' }), [], 0);
        expect(base.count).toBe(docs.length);
        // the header's per-field sums (BM25's average lengths) are those of the records
        expect(base.lenSum).toEqual([0, 1, 2, 3, 4].map((f) => docs.reduce((a, d) => a + d.len[f]!, 0)));
        docs.forEach((d, i) => {
          expect(base.doc(i)).toEqual(d);
          expect(base.id(i)).toBe(d.id);
          for (const l of d.links) expect(base.linksTo(i, l)).toBe(true);
          expect(base.numberOf(d.path)).toBe(i);
          // the folder check's shortcut: the folder without building the path
          expect(base.folderOf(i)).toBe(d.path.includes('/') ? d.path.slice(0, d.path.lastIndexOf('/')) : '');
        });
      }),
    );
  });

  it('finds the documents with an id, and those linking to one, exactly as decoding every id and link would', () => {
    // ids and links drawn from a few overlapping strings, so that one is often a part of another
    const small = fc.constantFrom('mem_a', 'mem_ab', 'mem_b', 'mem_ba', 'a', 'mem_a/x', 'é');
    const rec = record.chain((r) =>
      fc.record({ id: fc.constantFrom('mem_a', 'mem_ab', 'mem_b', 'mem_ba'), links: fc.array(small, { maxLength: 4 }) }).map((x) => ({ ...r, ...x })),
    );
    fc.assert(
      fc.property(fc.array(rec, { maxLength: 25 }), small, (docs, probe) => {
        const unique = docs.map((d, i) => ({ ...d, path: `notes/${i}-${d.id}.md` }));
        const base = new GenerationDocs('team', 'g1', decodeDocTable(encode(unique), { scope: 'team', generation: 'g1' }), [], 0);
        const all = unique.map((_, i) => i);
        expect(base.numbersWithId(probe)).toEqual(all.filter((i) => base.id(i) === probe));
        expect(base.numbersLinkingTo(probe)).toEqual(all.filter((i) => base.linksTo(i, probe)));
      }),
      { numRuns: 500 },
    );
  });

  it('a table whose header has no field sums (written before they were added) is summed on open; sums of another shape are refused', () => {
    const docs = fc.sample(record, { numRuns: 6, seed: 3 });
    const withHeader = (edit: (h: Record<string, unknown>) => void) => withDocsHeader(encode(docs), edit);
    const sums = [0, 1, 2, 3, 4].map((f) => docs.reduce((a, d) => a + d.len[f]!, 0));
    const g1 = { scope: 'team', generation: 'g1' } as const;
    const old = new GenerationDocs(
      'team',
      'g1',
      decodeDocTable(
        withHeader((h) => delete h.lenSum),
        g1,
      ),
      [],
      0,
    );
    expect(old.lenSum).toEqual(sums);
    for (const bad of [[1, 2], [1, 2, 3, 4, -5], [1, 2, 3, 4, 0.5], 'many', [1, 2, 3, 4, '5']])
      expect(() =>
        decodeDocTable(
          withHeader((h) => (h.lenSum = bad)),
          g1,
        ),
      ).toThrow(IndexUnusable);
  });

  it('lists the common terms it was given for its share; a table without them lists none; lists of another shape are refused', () => {
    const docs = fc.sample(record, { numRuns: 6, seed: 5 });
    const b = new DocTableBuilder();
    for (const d of docs) b.add(d);
    const g1 = { scope: 'team', generation: 'g1' } as const;
    const open = (bytes: Buffer) => new GenerationDocs('team', 'g1', decodeDocTable(bytes, g1), [], 0);
    const listed = open(b.encode('team', 'g1', new Array(BUCKET_COUNT).fill(0), [], ['standup', '会议']));
    // listed for a share of 0.05: known above 0.05 and anything less, not above more
    expect([...(listed.commonTerms(0.05) ?? [])]).toEqual(['standup', '会议']);
    expect(listed.commonTerms(0.01)?.has('standup')).toBe(true);
    expect(listed.commonTerms(0.1)).toBeUndefined();
    expect(open(b.encode('team', 'g1', new Array(BUCKET_COUNT).fill(0), [])).commonTerms(0.05)).toBeUndefined();
    const good = b.encode('team', 'g1', new Array(BUCKET_COUNT).fill(0), [], ['standup']);
    for (const bad of [
      { share: 0, terms: [] },
      { share: 1.5, terms: [] },
      { share: '0.05', terms: [] },
      { share: 0.05, terms: ['a', 2] },
      { share: 0.05 },
      ['standup'],
      'standup',
    ]) {
      const out = withDocsHeader(good, (header) => (header.common = bad));
      expect(() => decodeDocTable(out, g1), JSON.stringify(bad)).toThrow(IndexUnusable);
    }
  });

  it('refuses damaged bytes as IndexUnusable: truncated, wrong lengths, offsets or codes out of range', () => {
    const docs = fc.sample(record, { numRuns: 12, seed: 7 });
    const good = encode(docs);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record({ cut: fc.integer({ min: 0, max: good.length - 1 }) }),
          fc.record({ at: fc.integer({ min: 0, max: good.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) }),
          fc.record({ extra: fc.integer({ min: 1, max: 16 }) }),
        ),
        (damage) => {
          let bytes: Buffer;
          if ('cut' in damage) bytes = good.subarray(0, damage.cut);
          else if ('extra' in damage) bytes = Buffer.concat([good, Buffer.alloc(damage.extra)]);
          else {
            bytes = Buffer.from(good);
            bytes[damage.at] = damage.byte;
          }
          let base: GenerationDocs;
          try {
            base = new GenerationDocs('team', 'g1', decodeDocTable(bytes, { scope: 'team', generation: 'g1' }), [], 0);
          } catch (err) {
            expect(err).toBeInstanceOf(IndexUnusable);
            return;
          }
          // a change the checks let through (a string's bytes, a number) still reads within bounds
          expect('cut' in damage || 'extra' in damage).toBe(false);
          for (let i = 0; i < base.count; i++) {
            const d = base.doc(i);
            expect(KINDS).toContain(d.kind);
            expect(STATUSES).toContain(d.status);
            expect(d.tags.every((t) => typeof t === 'string')).toBe(true);
            expect(typeof base.path(i)).toBe('string');
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('streamed postings', () => {
  it('bucket files merged from small batches equal the ones encoded in one go', () => {
    const terms = fc.dictionary(
      fc.constantFrom('alpha', 'alps', 'beta', 'bet', 'gamma', '会话', 'x1'),
      fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 5, maxLength: 5 }),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(fc.array(terms, { maxLength: 40 }), fc.integer({ min: 3, max: 60 }), (docs, batch) => {
        const streamed = new PostingsBuilder(batch);
        const whole: Map<string, FlatPostings>[] = Array.from({ length: BUCKET_COUNT }, () => new Map());
        docs.forEach((t, doc) => {
          streamed.add(doc, t);
          for (const term in t) {
            const m = whole[bucketOf(term)]!;
            if (!m.has(term)) m.set(term, []);
            t[term]!.forEach((f, fid) => {
              if (f > 0) m.get(term)!.push(doc, fid, f);
            });
          }
        });
        for (let b = 0; b < BUCKET_COUNT; b++) {
          const m = whole[b]!;
          const expected = [...m.values()].some((l) => l.length > 0) ? encodeBucket(new Map([...m].filter(([, l]) => l.length > 0))) : Buffer.alloc(0);
          expect(streamed.bucket(b).equals(expected)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
