// The ranking keeps only the best k in a heap and filters on the generation's columns. The
// reference here is the straightforward way: every match's record, the record filter, a full sort
// by compareCandidates. On random vaults (two scopes with colliding ids and paths, files changed
// and deleted since the generation, few distinct dates so ties are common) and random filters,
// both must give the same documents, in the same order, with the same scores and the same total.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS, STATUSES, type Kind, type Status } from '../../../src/document/contract.js';
import { GenerationDocs, toColumns } from '../../../src/search/index/generation-docs.js';
import { PostingsBuilder } from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT, FIELDS, encodeOverlayTerms, type DocRecord, type OverlayEntry } from '../../../src/search/index/index-format.js';
import type { ScopeIndex } from '../../../src/search/index/index-freshness.js';
import { countTerms } from '../../../src/search/index/memory-terms.js';
import { BucketReader } from '../../../src/search/index/postings.js';
import {
  compareCandidates,
  keepsEverything,
  listDocuments,
  matchesFilter,
  rankDocuments,
  topOfTitleLength,
  type DocFilter,
  type LiveDoc,
} from '../../../src/search/query/query-ranking.js';

const WORDS = ['cache', 'cached', 'caches', 'redis', 'deploy', 'deployment', 'token', 'tokens', 'rollback'];
const TAGS = ['db', 'ops', 'ui'];
const HARNESSES = ['all', 'claude-code', 'claude', 'codex', 'gemini-cli'];
const meta = fc.record({
  kind: fc.constantFrom(...KINDS),
  status: fc.constantFrom(...STATUSES),
  tags: fc.subarray(TAGS),
  targets: fc.subarray(HARNESSES, { minLength: 1 }),
  source: fc.constantFrom('claude', 'claude-code', 'codex', 'test'),
  updated: fc.integer({ min: 0, max: 3 }),
  id: fc.integer({ min: 0, max: 5 }),
  title: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
  body: fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }),
});
type Meta = typeof meta extends fc.Arbitrary<infer T> ? T : never;

const termsOf = (m: Meta) =>
  countTerms(FIELDS.map((f) => (f === 'title' ? m.title : f === 'body' ? m.body : f === 'tags' ? m.tags : f === 'kind' ? [m.kind] : [`m${m.id}`])));
const pathOf = (i: number) => `notes/n${String(i).padStart(3, '0')}.md`;

function record(scope: 'team' | 'project', i: number, m: Meta): DocRecord {
  return {
    scope,
    path: pathOf(i),
    id: `m${m.id}`,
    kind: m.kind,
    status: m.status,
    tags: m.tags,
    targets: m.targets,
    source: m.source,
    links: [],
    updated: m.updated * 1000,
    size: 1,
    mtime: 1,
    len: termsOf(m).len,
  };
}

function scopeIndex(scope: 'team' | 'project', base: Meta[], changed: Map<number, Meta>, deleted: Set<number>): ScopeIndex {
  const builder = new PostingsBuilder(7);
  const docs = base.map((m, i) => {
    builder.add(i, termsOf(m).terms);
    return record(scope, i, m);
  });
  const readers = Array.from({ length: BUCKET_COUNT }, (_, b) => new BucketReader(builder.bucket(b), docs.length));
  const overlay: Record<string, OverlayEntry> = {};
  for (const i of deleted) overlay[pathOf(i)] = { deleted: true };
  for (const [i, m] of changed) overlay[pathOf(i)] = { doc: { ...record(scope, i, m), terms: encodeOverlayTerms(termsOf(m).terms) } };
  return {
    scope,
    dir: '/nowhere',
    generation: 'g',
    base: new GenerationDocs(scope, 'g', toColumns(docs, []), [], 0),
    overlay,
    loadBucket: (b) => readers[b]!,
    persisted: false,
    refreshedAt: undefined,
  };
}

/** Live records in the numbering the search uses: each generation (minus changed files), then its overlay. */
function liveRecords(indexes: ScopeIndex[]): LiveDoc[] {
  const out: LiveDoc[] = [];
  for (const ix of indexes) {
    for (let i = 0; i < ix.base.count; i++) if (!Object.hasOwn(ix.overlay, ix.base.path(i))) out.push(ix.base.doc(i));
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if ('doc' in e) out.push(e.doc);
    }
  }
  return out;
}

const scopeData = fc.array(meta, { maxLength: 25 }).chain((base) =>
  fc.record({
    base: fc.constant(base),
    changed: fc.array(fc.tuple(fc.nat({ max: Math.max(0, base.length + 2) }), meta), { maxLength: 4 }).map((l) => new Map(l)),
    deleted: fc.uniqueArray(fc.nat({ max: Math.max(0, base.length - 1) }), { maxLength: base.length ? 3 : 0 }).map((l) => new Set(l)),
  }),
);
const filter: fc.Arbitrary<DocFilter> = fc.record(
  {
    statuses: fc.subarray([...STATUSES] as Status[], { minLength: 1 }),
    kinds: fc.subarray([...KINDS] as Kind[], { minLength: 1 }),
    tags: fc.subarray([...TAGS, 'none'], { minLength: 1, maxLength: 2 }),
    harness: fc.constantFrom('all', 'claude-code', 'claude', 'codex', ''),
    source: fc.constantFrom('claude-code', 'codex', 'test', 'nobody'),
    since: fc.integer({ min: 0, max: 3000 }),
    until: fc.integer({ min: 0, max: 3000 }),
  },
  { requiredKeys: [] },
);

describe('top-k ranking over columns vs a full sort over records', () => {
  it('returns the same documents, order, scores and total for any filter and k', () => {
    fc.assert(
      fc.property(
        scopeData,
        scopeData,
        fc.subarray(WORDS.concat('cach', 'deplyo'), { minLength: 0, maxLength: 3 }),
        filter,
        fc.integer({ min: 1, max: 30 }),
        (team, project, query, f, k) => {
          const indexes = [scopeIndex('team', team.base, team.changed, team.deleted), scopeIndex('project', project.base, project.changed, project.deleted)];
          // the reference: scores of every match (no filter, all of them), then the record filter and a full sort
          const all = rankDocuments(indexes, query, {});
          const scores = new Map(all.top(all.total).map((c) => [c.doc, c.score]));
          const reference = liveRecords(indexes)
            .filter((d) => (query.length === 0 || scores.has(d)) && matchesFilter(f, d))
            .map((doc) => ({ doc, score: scores.get(doc) ?? 0 }))
            .sort(compareCandidates);
          const got = query.length === 0 ? listDocuments(indexes, f) : rankDocuments(indexes, query, f);
          const top = got.top(k);
          expect(got.total).toBe(reference.length);
          expect(top.map((c) => [c.doc.scope, c.doc.path, c.score])).toEqual(reference.slice(0, k).map((c) => [c.doc.scope, c.doc.path, c.score]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("with titleWords (the similar check's title ranking): the first k of every match partitioned on the title's length", () => {
    fc.assert(
      fc.property(
        scopeData,
        fc.subarray(WORDS, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        (team, query, words, k) => {
          const indexes = [scopeIndex('team', team.base, team.changed, team.deleted)];
          const ranked = rankDocuments(indexes, query, {});
          const all = ranked.top(ranked.total);
          const reference = [...all.filter((c) => c.doc.len[0] === words), ...all.filter((c) => c.doc.len[0] !== words)].slice(0, k);
          const got = rankDocuments(indexes, query, {}).top(k, words);
          expect(got.map((c) => [c.doc.path, c.score])).toEqual(reference.map((c) => [c.doc.path, c.score]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('topOfTitleLength (only the titles of that length scored when there are k of them) gives what top(k, titleWords) gives', () => {
    fc.assert(
      fc.property(
        scopeData,
        scopeData,
        fc.subarray(WORDS.concat('cach', 'deplyo'), { minLength: 1, maxLength: 3 }),
        filter,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        (team, project, query, f, words, k) => {
          const indexes = [scopeIndex('team', team.base, team.changed, team.deleted), scopeIndex('project', project.base, project.changed, project.deleted)];
          const reference = rankDocuments(indexes, query, f).top(k, words);
          // fresh indexes: no expansion or corpus shared with the reference's ranking
          const again = [scopeIndex('team', team.base, team.changed, team.deleted), scopeIndex('project', project.base, project.changed, project.deleted)];
          const got = topOfTitleLength(again, query, f, k, words);
          expect(got.map((c) => [c.doc.scope, c.doc.path, c.score])).toEqual(reference.map((c) => [c.doc.scope, c.doc.path, c.score]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keepsEverything (the matches are then not tested one by one) only for filters that every record passes', () => {
    fc.assert(
      fc.property(filter, fc.array(meta, { minLength: 1, maxLength: 20 }), (f, metas) => {
        if (keepsEverything(f)) for (const [i, m] of metas.entries()) expect(matchesFilter(f, record('team', i, m))).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(keepsEverything({})).toBe(true);
    expect(keepsEverything({ statuses: [...STATUSES] })).toBe(true);
    expect(keepsEverything({ statuses: ['active'] })).toBe(false);
    expect(keepsEverything({ kinds: [...KINDS], harness: 'all', source: '' })).toBe(true);
    expect(keepsEverything({ tags: [] })).toBe(false);
    expect(keepsEverything({ since: 0 })).toBe(false);
  });
});
