/**
 * Runs a query over fresh scope indexes: reads only the term buckets the query needs, decodes
 * only the postings of the terms it matches, lays the overlay (files changed since the generation
 * was built) over the generation, and scores with BM25+ across fields, title above tags above kind
 * and id above body, with prefix and light fuzzy expansion. Ties break by newer updated_at, then id.
 *
 * The scoring is MiniSearch's (7.x) own: the same BM25+ formula and parameters, the same prefix and
 * fuzzy weights, the same OR combination and "quality" factor (score × distinct query terms
 * matched). It runs over typed arrays instead of a MiniSearch instance because building that
 * instance from stored postings dominated a cold search (measured: ~120 ms of 10,000 memories'
 * search). tests/search/query/ranking-oracle.test.ts checks that both rank alike on random corpora.
 */
import { FIELDS, bucketOf, type DocRecord } from '../index/index-format.js';
import type { FieldPostings } from '../index/postings.js';
import type { ScopeIndex } from '../index/index-freshness.js';
import { isUnspacedTerm } from '../analysis/tokenizer.js';

/** A live document of a scope index. */
export type LiveDoc = DocRecord;

/** A filter over live documents. */
export type DocFilter = (doc: LiveDoc) => boolean;

/** A scored candidate. */
export interface Candidate {
  doc: LiveDoc;
  score: number;
}

/** Field weights: title weighs most, then tags, then id and kind, then body. */
export const FIELD_BOOST: Record<(typeof FIELDS)[number], number> = { title: 3, tags: 2.5, kind: 1.5, id: 1.5, body: 1 };

/** BM25+ parameters: MiniSearch's defaults (k1, b, and the BM25+ lower bound d). */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/** Weights of expanded terms, relative to an exact match (MiniSearch's `weights` option). */
export const EXPANSION_WEIGHT = { prefix: 0.3, fuzzy: 0.2 } as const;

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

/**
 * How much an index term counts for a query term: 1 when equal; for a longer term starting with
 * the query term (prefix expansion), `prefix × len / (len + 0.3 × extra characters)`; for a term one
 * edit away that shares the first two characters (fuzzy), `fuzzy × len / (len + 1)`; else 0.
 * Prefix wins over fuzzy, as in MiniSearch.
 */
export function matchWeight(term: string, q: string): number {
  if (term === q) return 1;
  if (prefixFor(q) && term.startsWith(q)) return (EXPANSION_WEIGHT.prefix * term.length) / (term.length + 0.3 * (term.length - q.length));
  if (fuzzyFor(q) !== false && term.charCodeAt(0) === q.charCodeAt(0) && term.charCodeAt(1) === q.charCodeAt(1) && withinOneEdit(term, q))
    return (EXPANSION_WEIGHT.fuzzy * term.length) / (term.length + 1);
  return 0;
}

/** Orders candidates: higher score, then newer updated_at, then id (code-point order). */
export function compareCandidates(a: { score: number; doc: LiveDoc }, b: { score: number; doc: LiveDoc }): number {
  const sa = Math.round(a.score * 1e6);
  const sb = Math.round(b.score * 1e6);
  if (sa !== sb) return sb - sa;
  if (a.doc.updated !== b.doc.updated) return b.doc.updated - a.doc.updated;
  return a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : a.doc.path < b.doc.path ? -1 : a.doc.path > b.doc.path ? 1 : 0;
}

/** Every document of the indexes under one numbering: each generation, then its overlay. */
interface Corpus {
  /** total documents, live or not */
  size: number;
  /** the record of document n (built on demand for generation documents) */
  doc(n: number): LiveDoc;
  live: Uint8Array;
  /** terms per field, FIELDS.length per document */
  lens: Int32Array;
  /** live documents */
  count: number;
  /** average terms per field over the live documents */
  avgLen: number[];
  /** per index: number of its first generation document */
  baseOffset: number[];
  /** overlay postings by bucket: term → [document number, frequencies per field][] */
  overlay: Map<number, Map<string, Array<[number, number[]]>>>;
}

function corpusOf(indexes: readonly ScopeIndex[]): Corpus {
  const F = FIELDS.length;
  const size = indexes.reduce((a, ix) => a + ix.base.count + Object.keys(ix.overlay).length, 0);
  const live = new Uint8Array(size);
  const lens = new Int32Array(size * F);
  const lenSum = new Array<number>(F).fill(0);
  const baseOffset: number[] = [];
  const resolve: Array<(n: number) => LiveDoc> = [];
  const starts: number[] = [];
  const overlay = new Map<number, Map<string, Array<[number, number[]]>>>();
  let count = 0;
  let n = 0;
  for (const ix of indexes) {
    const base = ix.base;
    const offset = n;
    baseOffset.push(offset);
    starts.push(offset);
    resolve.push((k) => base.doc(k - offset));
    live.fill(1, offset, offset + base.count);
    for (const p in ix.overlay) {
      const k = base.numberOf(p);
      if (k >= 0) live[offset + k] = 0;
    }
    lens.set(base.len, offset * F);
    for (let k = 0; k < base.count; k++) {
      if (!live[offset + k]) continue;
      count++;
      for (let f = 0; f < F; f++) lenSum[f]! += base.len[k * F + f]!;
    }
    n += base.count;
    const overlayDocs: LiveDoc[] = [];
    const overlayStart = n;
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if (!('doc' in e)) continue;
      const d = e.doc;
      overlayDocs.push(d);
      live[n] = 1;
      count++;
      for (let f = 0; f < F; f++) {
        lens[n * F + f] = d.len[f]!;
        lenSum[f]! += d.len[f]!;
      }
      for (const term in d.terms) {
        const b = bucketOf(term);
        let byTerm = overlay.get(b);
        if (!byTerm) overlay.set(b, (byTerm = new Map()));
        let list = byTerm.get(term);
        if (!list) byTerm.set(term, (list = []));
        list.push([n, d.terms[term]!]);
      }
      n++;
    }
    starts.push(overlayStart);
    resolve.push((k) => overlayDocs[k - overlayStart]!);
    n = overlayStart + overlayDocs.length;
  }
  const doc = (k: number): LiveDoc => {
    let r = 0;
    while (r + 1 < starts.length && starts[r + 1]! <= k) r++;
    return resolve[r]!(k);
  };
  return { size: n, doc, live: live.subarray(0, n), lens, count, avgLen: lenSum.map((x) => (count ? x / count : 0)), baseOffset, overlay };
}

/** One field's postings of one matched term, from one generation (offset) or from the overlay. */
interface Slice {
  postings: FieldPostings;
  offset: number;
}

/** The matched index terms of one query term, each with its weight and postings per field. */
function expandTerm(indexes: readonly ScopeIndex[], corpus: Corpus, q: string): Map<string, { weight: number; fields: Slice[][] }> {
  const F = FIELDS.length;
  const b = bucketOf(q);
  const out = new Map<string, { weight: number; fields: Slice[][] }>();
  const entry = (term: string, weight: number) => {
    let e = out.get(term);
    if (!e) out.set(term, (e = { weight, fields: Array.from({ length: F }, () => []) }));
    return e;
  };
  indexes.forEach((ix, i) => {
    const reader = ix.loadBucket(b);
    const terms = reader.terms;
    for (let t = 0; t < terms.length; t++) {
      const w = matchWeight(terms[t]!, q);
      if (w === 0) continue;
      const e = entry(terms[t]!, w);
      reader.postings(t).forEach((p, f) => {
        if (p) e.fields[f]!.push({ postings: p, offset: corpus.baseOffset[i]! });
      });
    }
  });
  for (const [term, list] of corpus.overlay.get(b) ?? []) {
    const w = matchWeight(term, q);
    if (w === 0) continue;
    const e = entry(term, w);
    for (let f = 0; f < F; f++) {
      const withField = list.filter(([, freqs]) => freqs[f]! > 0);
      if (withField.length)
        e.fields[f]!.push({
          postings: { docs: Int32Array.from(withField, ([n]) => n), freqs: Int32Array.from(withField, ([, freqs]) => freqs[f]!) },
          offset: 0,
        });
    }
  }
  return out;
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

/** Per set of opened indexes (one search): the corpus and the expanded query terms. */
const sessions = new WeakMap<readonly ScopeIndex[], { corpus: Corpus; expansions: Map<string, ReturnType<typeof expandTerm>> }>();

/**
 * Scores the live documents of `indexes` for the query terms (combined with OR, so a query whose
 * words never co-occur still finds the best partial matches).
 *
 * For each query term q and each index term t it matches (weight w, see {@link matchWeight}), each
 * field f adds `w × termWeight(q) × FIELD_BOOST[f] × BM25+(tf, df, N, length, average length)` to a
 * document, where df counts the live documents holding t in f; the sum is then multiplied by the
 * number of distinct query terms the document matched.
 *
 * @param terms distinct query terms from the tokenizer
 * @param termWeights optional weight per query term (default 1), e.g. for feedback terms
 * @returns every matching document that passes `filter`, best first
 * @throws IndexUnusable when a bucket it needs is damaged (the caller rebuilds)
 */
export function rankDocuments(
  indexes: readonly ScopeIndex[],
  terms: readonly string[],
  filter: DocFilter,
  termWeights?: ReadonlyMap<string, number>,
): Candidate[] {
  if (terms.length === 0) return [];
  // a second pass over the same indexes (feedback expansion) reuses the corpus and the expansions
  let session = sessions.get(indexes);
  if (!session) sessions.set(indexes, (session = { corpus: corpusOf(indexes), expansions: new Map() }));
  const corpus = session.corpus;
  const expansions = session.expansions;
  const { live, lens, count: N, avgLen, size } = corpus;
  const F = FIELDS.length;
  const score = new Float64Array(size);
  const matched = new Uint16Array(size);
  const lastQuery = new Int32Array(size).fill(-1);
  const boosts = FIELDS.map((f) => FIELD_BOOST[f]);
  const { k, b, d } = BM25;
  terms.forEach((q, qi) => {
    const termBoost = termWeights?.get(q) ?? 1;
    let expanded = expansions.get(q);
    if (!expanded) expansions.set(q, (expanded = expandTerm(indexes, corpus, q)));
    for (const { weight, fields } of expanded.values()) {
      fields.forEach((slices, f) => {
        if (slices.length === 0) return;
        let df = 0;
        for (const { postings, offset } of slices) for (let j = 0; j < postings.docs.length; j++) df += live[postings.docs[j]! + offset]!;
        if (df === 0) return;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        const factor = weight * termBoost * boosts[f]!;
        for (const { postings, offset } of slices) {
          for (let j = 0; j < postings.docs.length; j++) {
            const n = postings.docs[j]! + offset;
            if (!live[n]) continue;
            const tf = postings.freqs[j]!;
            const len = lens[n * F + f]!;
            score[n]! += factor * idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * len) / avgLen[f]!)));
            if (lastQuery[n] !== qi) {
              lastQuery[n] = qi;
              matched[n]!++;
            }
          }
        }
      });
    }
  });
  const out: Candidate[] = [];
  for (let n = 0; n < size; n++) {
    if (matched[n]! === 0) continue;
    const doc = corpus.doc(n);
    if (filter(doc)) out.push({ doc, score: score[n]! * matched[n]! });
  }
  return out.sort(compareCandidates);
}
