// The query engine scores over compact binary postings with MiniSearch's own BM25+ arithmetic.
// MiniSearch itself is the oracle here: on random corpora (two scopes, files changed and deleted
// since the generation was built, prefix and fuzzy expansion, weighted query terms) both must find
// the same documents with the same scores.
import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { GenerationDocs, toColumns } from '../../../src/search/index/generation-docs.js';
import { PostingsBuilder } from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT, FIELDS, IndexUnusable, encodeOverlayTerms, type DocRecord, type OverlayEntry } from '../../../src/search/index/index-format.js';
import type { ScopeIndex } from '../../../src/search/index/index-freshness.js';
import { countTerms } from '../../../src/search/index/memory-terms.js';
import { BucketReader, encodeBucket } from '../../../src/search/index/postings.js';
import { EXPANSION_WEIGHT, FIELD_BOOST, fuzzyFor, prefixFor, rankDocuments } from '../../../src/search/query/query-ranking.js';

// Two word families whose first letters share nothing, so no word is one edit away from a word
// of the other family: fuzzy matching that keeps the first two characters (ours) and fuzzy
// matching over the whole vocabulary (MiniSearch's) then choose the same words.
const word = fc
  .tuple(fc.constantFrom('qu', 'zx'), fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 2, maxLength: 6 }))
  .map(([head, rest]) => head + rest.join(''));
// no word twice within a field: MiniSearch counts a field's length in distinct terms, we count all terms
const fieldWords = (max: number) => fc.uniqueArray(word, { maxLength: max });
const doc = fc.record({ title: fieldWords(4), tags: fieldWords(3), kind: fieldWords(1), id: fieldWords(2), body: fieldWords(30) });
type Doc = { title: string[]; tags: string[]; kind: string[]; id: string[]; body: string[] };

const termsOf = (d: Doc) => countTerms(FIELDS.map((f) => d[f]));

function record(i: number, d: Doc): DocRecord {
  return {
    scope: 'team',
    path: `notes/m${String(i).padStart(3, '0')}.md`,
    id: `m${i}`,
    kind: 'note',
    status: 'active',
    tags: [],
    targets: [],
    source: 'test',
    links: [],
    updated: i,
    size: 1,
    mtime: 1,
    len: termsOf(d).len,
  };
}

/** A scope index in memory: a generation of `base`, then `changed` replacing some and `deleted` removing some. */
function scopeIndex(base: Doc[], changed: Map<number, Doc>, deleted: Set<number>): ScopeIndex {
  const builder = new PostingsBuilder();
  const docs = base.map((d, i) => {
    builder.add(i, termsOf(d).terms);
    return record(i, d);
  });
  const readers = Array.from({ length: BUCKET_COUNT }, (_, b) => new BucketReader(builder.bucket(b), docs.length));
  const overlay: Record<string, OverlayEntry> = {};
  for (const i of deleted) overlay[`notes/m${String(i).padStart(3, '0')}.md`] = { deleted: true };
  for (const [i, d] of changed) overlay[`notes/m${String(i).padStart(3, '0')}.md`] = { doc: { ...record(i, d), terms: encodeOverlayTerms(termsOf(d).terms) } };
  return {
    scope: 'team',
    dir: '/nowhere',
    generation: 'g',
    base: new GenerationDocs('team', 'g', toColumns(docs, []), [], 0),
    overlay,
    loadBucket: (b) => readers[b]!,
    persisted: false,
    refreshedAt: undefined,
  };
}

describe('query engine vs MiniSearch (oracle)', () => {
  it('finds the same documents with the same scores', () => {
    const scope = fc.record({
      base: fc.array(doc, { minLength: 1, maxLength: 25 }),
      changes: fc.array(fc.tuple(fc.nat(), doc), { maxLength: 4 }),
      deletions: fc.array(fc.nat(), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(scope, { minLength: 1, maxLength: 2 }),
        fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
        fc.array(fc.double({ min: 0.1, max: 2, noNaN: true }), { minLength: 4, maxLength: 4 }),
        (scopes, query, boosts) => {
          const ms = new MiniSearch({ fields: [...FIELDS], idField: 'key', tokenize: (s) => s.split(' ').filter(Boolean), processTerm: (t) => t });
          const indexes: ScopeIndex[] = [];
          scopes.forEach((s, si) => {
            const changed = new Map(s.changes.map(([i, d]) => [i % s.base.length, d]));
            const deleted = new Set(s.deletions.map((i) => i % s.base.length).filter((i) => !changed.has(i)));
            indexes.push(scopeIndex(s.base, changed, deleted));
            s.base.forEach((d, i) => {
              if (deleted.has(i)) return;
              const live = changed.get(i) ?? d;
              ms.add({ key: `${si}:m${i}`, ...Object.fromEntries(FIELDS.map((f) => [f, live[f].join(' ')])) });
            });
          });
          const weights = new Map(query.map((q, i) => [q, boosts[i]!]));
          const expected = ms.search(query.join(' '), {
            boost: FIELD_BOOST,
            prefix: prefixFor,
            fuzzy: fuzzyFor,
            maxFuzzy: 1,
            weights: EXPANSION_WEIGHT,
            combineWith: 'OR',
            boostTerm: (t) => weights.get(t) ?? 1,
          });
          const ranked = rankDocuments(indexes, query, {}, weights);
          const got = ranked.top(ranked.total);
          const keyOf = (d: DocRecord) =>
            `${indexes.findIndex((ix) => ix.base.docs.includes(d) || Object.values(ix.overlay).some((e) => 'doc' in e && e.doc === d))}:${d.id}`;
          const ours = new Map(got.map((c) => [keyOf(c.doc), c.score]));
          expect([...ours.keys()].sort()).toEqual(expected.map((r) => String(r.id)).sort());
          for (const r of expected) expect(ours.get(String(r.id))).toBeCloseTo(r.score, 9);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('binary postings', () => {
  it('round-trip and reject damage instead of trusting it', () => {
    const builder = new PostingsBuilder();
    builder.add(0, { alpha: [1, 0, 0, 0, 3] });
    builder.add(7, { alpha: [0, 2, 0, 0, 0], beta: [0, 0, 0, 0, 1] });
    const b = (term: string) => Array.from({ length: BUCKET_COUNT }, (_, i) => i).find((i) => new BucketReader(builder.bucket(i), 8).indexOf(term) >= 0)!;
    const bytes = builder.bucket(b('alpha'));
    const reader = new BucketReader(bytes, 8);
    const i = reader.indexOf('alpha');
    expect(reader.documentsWith(i)).toBe(2);
    const p = reader.postings(i);
    expect([...p[0]!.docs]).toEqual([0]);
    expect([...p[1]!.docs]).toEqual([7]);
    expect([...p[1]!.freqs]).toEqual([2]);
    expect([...p[4]!.freqs]).toEqual([3]);
    expect(p[2]).toBeUndefined();
    // a document index beyond the generation, a cut file, a damaged header
    expect(() => new BucketReader(bytes, 5).postings(i)).toThrow(IndexUnusable);
    expect(() => new BucketReader(bytes.subarray(0, bytes.length - 1), 8)).toThrow(IndexUnusable);
    expect(() => new BucketReader(Buffer.concat([Buffer.from([9, 0, 0, 0]), Buffer.from('{"t":[1')]), 8)).toThrow(IndexUnusable);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 2] = 0; // a field mask of zero
    expect(() => new BucketReader(flipped, 8).postings(i)).toThrow(IndexUnusable);
    expect(encodeBucket(new Map()).length).toBeGreaterThan(0);
  });
});
