/**
 * Runs a query over fresh scope indexes with MiniSearch: loads only the term buckets the query
 * needs, lays the overlay (files changed since the generation was built) over the generation,
 * and scores with BM25+ across fields, title above tags above kind and id above body, with prefix
 * and light fuzzy expansion. Ties break by newer updated_at, then id.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Scope } from '../document/contract.js';
import { FIELDS, bucketOf, type DocRecord, type IndexEntry } from './index-format.js';
import type { ScopeIndex } from './index-freshness.js';
import { isUnspacedTerm } from './tokenizer.js';

/** A live document of a scope index. */
export interface LiveDoc extends DocRecord {
  scope: Scope;
}

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
    for (const d of ix.base.docs) if (!(d.path in ix.overlay)) out.push({ ...d, scope: ix.scope });
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if ('doc' in e) {
        const { terms: _t, ...d } = e.doc;
        out.push({ ...d, scope: ix.scope });
      }
    }
  }
  return out;
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
  const needed = [...new Set(terms.map(bucketOf))];
  const F = FIELDS.length;
  const docs: LiveDoc[] = [];
  const documentIds: Record<number, number> = {};
  const fieldLength: Record<number, number[]> = {};
  const lenSum = new Array<number>(F).fill(0);
  const entries = new Map<string, { fields: Record<string, Record<string, number>>; owned: boolean }>();
  const add = (term: string, fields: Record<string, Record<string, number>>, offset: number) => {
    const cur = entries.get(term);
    if (!cur && offset === 0) {
      entries.set(term, { fields, owned: false });
      return;
    }
    let target: Record<string, Record<string, number>>;
    if (!cur) {
      target = {};
      entries.set(term, { fields: target, owned: true });
    } else if (!cur.owned) {
      target = {};
      for (const f in cur.fields) target[f] = { ...cur.fields[f] };
      cur.fields = target;
      cur.owned = true;
    } else target = cur.fields;
    for (const f in fields) {
      const src = fields[f]!;
      const dst = (target[f] ??= {});
      for (const id in src) dst[Number(id) + offset] = src[id]!;
    }
  };
  let offset = 0;
  for (const ix of indexes) {
    const base = ix.base.docs;
    for (let i = 0; i < base.length; i++) {
      const d = base[i]!;
      docs.push({ ...d, scope: ix.scope });
      if (d.path in ix.overlay) continue; // replaced or gone: its postings are ignored by MiniSearch
      documentIds[offset + i] = offset + i;
      fieldLength[offset + i] = d.len;
      for (let f = 0; f < F; f++) lenSum[f]! += d.len[f]!;
    }
    for (const b of needed) for (const [term, fields] of ix.loadBucket(b) as IndexEntry[]) add(term, fields, offset);
    offset += base.length;
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if (!('doc' in e)) continue;
      const { terms: docTerms, ...d } = e.doc;
      const id = offset++;
      docs.push({ ...d, scope: ix.scope });
      documentIds[id] = id;
      fieldLength[id] = d.len;
      for (let f = 0; f < F; f++) lenSum[f]! += d.len[f]!;
      for (const term in docTerms) {
        if (!needed.includes(bucketOf(term))) continue;
        const freqs = docTerms[term]!;
        const fields: Record<string, Record<string, number>> = {};
        for (let f = 0; f < F; f++) if (freqs[f]! > 0) fields[f] = { 0: freqs[f]! };
        add(term, fields, id);
      }
    }
  }
  const documentCount = Object.keys(documentIds).length;
  const js = {
    documentCount,
    nextId: offset,
    documentIds,
    fieldIds: Object.fromEntries(FIELDS.map((f, i) => [f, i])),
    fieldLength,
    averageFieldLength: lenSum.map((s) => (documentCount ? s / documentCount : 0)),
    storedFields: {},
    dirtCount: 0,
    index: [...entries].map(([t, v]) => [t, v.fields]),
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
  return !isUnspacedTerm(term) && term.length >= 6 && !/\d/.test(term) ? 1 : false;
}

/**
 * Scores the live documents of `indexes` for the query terms (combined with OR, so a query whose
 * words never co-occur still finds the best partial matches).
 *
 * @param terms distinct query terms from the tokenizer
 * @returns every matching document that passes `filter`, best first
 */
export function rankDocuments(indexes: readonly ScopeIndex[], terms: readonly string[], filter: DocFilter): Candidate[] {
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
    filter: (r) => filter(docs[r.id as number]!),
  });
  const out = results.map((r) => ({ doc: docs[r.id as number]!, score: r.score, terms: r.terms }));
  return out.sort(compareCandidates);
}
