/**
 * Runs a query over fresh scope indexes with MiniSearch: loads only the term buckets the query
 * needs, lays the overlay (files changed since the generation was built) over the generation,
 * and scores with BM25+ across fields, title above tags above kind and id above body, with prefix
 * and light fuzzy expansion. Ties break by newer updated_at, then id.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import { FIELDS, bucketOf, type DocRecord, type IndexEntry } from './index-format.js';
import type { ScopeIndex } from './index-freshness.js';
import { isUnspacedTerm } from './tokenizer.js';

/** A live document of a scope index. */
export type LiveDoc = DocRecord;

/** A filter over live documents. */
export type DocFilter = (doc: LiveDoc) => boolean;

/** A scored candidate. */
export interface Candidate {
  doc: LiveDoc;
  score: number;
  /** query terms that matched (exactly, by prefix or fuzzily) */
  terms: string[];
}

/** Field weights: title weighs most, then tags, then id and kind, then body. */
export const FIELD_BOOST: Record<(typeof FIELDS)[number], number> = { title: 3, tags: 2.5, kind: 1.5, id: 1.5, body: 1 };

const MS_OPTIONS = { fields: [...FIELDS], idField: 'id' } as const;

/** Every live document of the indexes: the generation minus changed files, plus the overlay. */
export function liveDocs(indexes: readonly ScopeIndex[]): LiveDoc[] {
  const out: LiveDoc[] = [];
  for (const ix of indexes) {
    for (const d of ix.base.docs) if (!(d.path in ix.overlay)) out.push(d);
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if ('doc' in e) out.push(e.doc);
    }
  }
  return out;
}

/** True when `a` and `b` differ by at most one insertion, deletion or substitution. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) return a.slice(i + 1) === b.slice(i + 1);
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Whether an index term can match a query term (exactly, by prefix or by one edit), as MiniSearch will decide. */
function termCanMatch(term: string, q: string): boolean {
  return term === q || (prefixFor(q) && term.startsWith(q)) || (fuzzyFor(q) !== false && withinOneEdit(term, q));
}

/** Orders candidates: higher score, then newer updated_at, then id (code-point order). */
export function compareCandidates(a: { score: number; doc: LiveDoc }, b: { score: number; doc: LiveDoc }): number {
  const sa = Math.round(a.score * 1e6);
  const sb = Math.round(b.score * 1e6);
  if (sa !== sb) return sb - sa;
  if (a.doc.updated !== b.doc.updated) return b.doc.updated - a.doc.updated;
  return a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : a.doc.path < b.doc.path ? -1 : a.doc.path > b.doc.path ? 1 : 0;
}

interface Assembled {
  ms: MiniSearch;
  docs: LiveDoc[];
}

function assemble(indexes: readonly ScopeIndex[], terms: readonly string[]): Assembled {
  const byBucket = new Map<number, string[]>();
  for (const t of terms) {
    const b = bucketOf(t);
    byBucket.set(b, [...(byBucket.get(b) ?? []), t]);
  }
  const matches = (term: string, qs: readonly string[]) => qs.some((q) => termCanMatch(term, q));
  const F = FIELDS.length;
  const docs: LiveDoc[] = [];
  const live: boolean[] = [];
  const documentIds: Record<number, number> = {};
  const fieldLength: Record<number, number[]> = {};
  const lenSum = new Array<number>(F).fill(0);
  let documentCount = 0;
  const entries = new Map<string, Record<string, Record<string, number>>>();
  const add = (term: string, fields: Record<string, Record<string, number>>, offset: number) => {
    const target = entries.get(term) ?? {};
    entries.set(term, target);
    for (const f in fields) {
      const src = fields[f]!;
      const dst = (target[f] ??= {});
      for (const id in src) {
        const n = Number(id) + offset;
        if (!live[n]) continue; // replaced or deleted since the generation was built
        dst[n] = src[id]!;
        documentIds[n] = n;
        fieldLength[n] = docs[n]!.len;
      }
    }
  };
  let offset = 0;
  for (const ix of indexes) {
    const base = ix.base.docs;
    for (let i = 0; i < base.length; i++) {
      const d = base[i]!;
      docs.push(d);
      const isLive = !(d.path in ix.overlay);
      live.push(isLive);
      if (!isLive) continue;
      documentCount++;
      for (let f = 0; f < F; f++) lenSum[f]! += d.len[f]!;
    }
    for (const [b, qs] of byBucket) for (const [term, fields] of ix.loadBucket(b) as IndexEntry[]) if (matches(term, qs)) add(term, fields, offset);
    offset += base.length;
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if (!('doc' in e)) continue;
      const d = e.doc;
      const id = offset++;
      docs.push(d);
      live.push(true);
      documentCount++;
      for (let f = 0; f < F; f++) lenSum[f]! += d.len[f]!;
      for (const term in d.terms) {
        const qs = byBucket.get(bucketOf(term));
        if (!qs || !matches(term, qs)) continue;
        const freqs = d.terms[term]!;
        const fields: Record<string, Record<string, number>> = {};
        for (let f = 0; f < F; f++) if (freqs[f]! > 0) fields[f] = { 0: freqs[f]! };
        add(term, fields, id);
      }
    }
  }
  const js = {
    documentCount,
    nextId: offset,
    documentIds,
    fieldIds: Object.fromEntries(FIELDS.map((f, i) => [f, i])),
    fieldLength,
    averageFieldLength: lenSum.map((s) => (documentCount ? s / documentCount : 0)),
    storedFields: {},
    dirtCount: 0,
    index: [...entries],
    serializationVersion: 2,
  };
  const ms = (MiniSearch as unknown as { loadJS(js: unknown, o: unknown): MiniSearch }).loadJS(js, MS_OPTIONS);
  return { ms, docs };
}

/** Prefix expansion for terms of 3+ characters (2+ for CJK words, which are dense). */
export function prefixFor(term: string): boolean {
  return term.length >= (isUnspacedTerm(term) ? 2 : 4);
}

/** Light fuzzy matching: one edit for words of 6+ characters, none for CJK. */
export function fuzzyFor(term: string): number | false {
  // capped length: the edit-distance matrix grows with the square of the term
  return !isUnspacedTerm(term) && term.length >= 6 && term.length <= 32 && !/\d/.test(term) ? 1 : false;
}

/**
 * Scores the live documents of `indexes` for the query terms (combined with OR, so a query whose
 * words never co-occur still finds the best partial matches).
 *
 * @param terms distinct query terms from the tokenizer
 * @returns every matching document that passes `filter`, best first
 */
export function rankDocuments(indexes: readonly ScopeIndex[], terms: readonly string[], filter: DocFilter, termWeights?: ReadonlyMap<string, number>): Candidate[] {
  if (terms.length === 0) return [];
  const { ms, docs } = assemble(indexes, terms);
  const results: SearchResult[] = ms.search(terms.join(' '), {
    tokenize: (s: string) => s.split(' '),
    processTerm: (t: string) => t,
    boost: FIELD_BOOST,
    prefix: prefixFor,
    fuzzy: fuzzyFor,
    maxFuzzy: 1,
    weights: { fuzzy: 0.2, prefix: 0.3 },
    combineWith: 'OR',
    ...(termWeights ? { boostTerm: (t: string) => termWeights.get(t) ?? 1 } : {}),
    filter: (r) => filter(docs[r.id as number]!),
  });
  const out = results.map((r) => ({ doc: docs[r.id as number]!, score: r.score, terms: r.terms }));
  return out.sort(compareCandidates);
}
