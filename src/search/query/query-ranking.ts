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
import { KINDS, STATUSES, type Kind, type Status } from '../../document/contract.js';
import { canonicalHarness, targetsHarness } from '../../document/harness-names.js';
import { FIELDS, bucketOf, overlayTermsStartingWith, overlayTermsText, type DocRecord } from '../index/index-format.js';
import type { GenerationDocs } from '../index/generation-docs.js';
import type { FieldPostings } from '../index/postings.js';
import type { ScopeIndex } from '../index/index-freshness.js';
import { isUnspacedTerm } from '../analysis/tokenizer.js';

/** A live document of a scope index. */
export type LiveDoc = DocRecord;

/**
 * Which live documents a search keeps. Every set field narrows, unset ones do not. Evaluated on
 * the generation's columns (no record per document) and, for files changed since it was built,
 * on their records ({@link matchesFilter}); both give the same answer.
 */
export interface DocFilter {
  /** any of these statuses */
  statuses?: readonly Status[] | undefined;
  /** any of these kinds */
  kinds?: readonly Kind[] | undefined;
  /** every one of these tags (as stored: lowercase, no `#`) */
  tags?: readonly string[] | undefined;
  /** a harness among target_harnesses (targetsHarness: `all` or the same harness); `all` or empty: any */
  harness?: string | undefined;
  /** source_harness, canonical (canonicalHarness) */
  source?: string | undefined;
  /** updated_at at or after, ms since the epoch */
  since?: number | undefined;
  /** updated_at at or before, ms since the epoch */
  until?: number | undefined;
}

/** A scored candidate. */
export interface Candidate {
  doc: LiveDoc;
  score: number;
  /**
   * With `required` terms given to {@link rankDocuments}: whether the document's title or body
   * holds every one of them exactly (not by a prefix or fuzzy match); unset otherwise.
   */
  hasRequired?: boolean;
}

/** The matches of a query: how many, and the best ones on demand. */
export interface Ranked {
  /** live documents that match and pass the filter */
  total: number;
  /**
   * the best `k` (at most `total`), best first ({@link compareCandidates}); records are built for these only.
   * With `titleWords`, the matches whose title has that many terms come first (each part best
   * first): the first `k` of `top(total)` partitioned on `doc.len[0] === titleWords`, without a
   * record for every match (the similar check's title ranking)
   */
  top(k: number, titleWords?: number): Candidate[];
}

/** Field weights: title weighs most, then tags, then id and kind, then body. */
export const FIELD_BOOST: Record<(typeof FIELDS)[number], number> = { title: 3, tags: 2.5, kind: 1.5, id: 1.5, body: 1 };

/** BM25+ parameters: MiniSearch's defaults (k1, b, and the BM25+ lower bound d). */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/** Weights of expanded terms, relative to an exact match (MiniSearch's `weights` option). */
export const EXPANSION_WEIGHT = { prefix: 0.3, fuzzy: 0.2 } as const;

/** Whether a document's record passes `f` (the reference the column filter follows). */
export function matchesFilter(f: DocFilter, d: LiveDoc): boolean {
  return (
    (!f.statuses || f.statuses.includes(d.status)) &&
    (!f.kinds || f.kinds.includes(d.kind)) &&
    (!f.tags || f.tags.every((t) => d.tags.includes(t))) &&
    (!f.harness || f.harness === 'all' || targetsHarness(d.targets, f.harness)) &&
    (!f.source || canonicalHarness(d.source) === f.source) &&
    (f.since === undefined || d.updated >= f.since) &&
    (f.until === undefined || d.updated <= f.until)
  );
}

/** `f` over a generation's columns: document number → passes. Only the few distinct tag and harness values are compared as strings. */
function columnFilter(f: DocFilter, base: GenerationDocs): (i: number) => boolean {
  const flags = <T>(all: readonly T[], want: readonly T[] | undefined) => (want ? Uint8Array.from(all, (v) => (want.includes(v) ? 1 : 0)) : undefined);
  const statusOk = flags(STATUSES, f.statuses);
  const kindOk = flags(KINDS, f.kinds);
  const tags = f.tags?.map((t) => base.valueNumber(t));
  if (tags?.some((t) => t < 0)) return () => false;
  const harness = f.harness && f.harness !== 'all' ? f.harness : undefined;
  const targetOk = harness ? Uint8Array.from(base.values, (v) => (targetsHarness([v], harness) ? 1 : 0)) : undefined;
  const sourceOk = f.source ? Uint8Array.from(base.values, (v) => (canonicalHarness(v) === f.source ? 1 : 0)) : undefined;
  const { since, until } = f;
  return (i) => {
    if (statusOk && !statusOk[base.statusCode[i]!]) return false;
    if (kindOk && !kindOk[base.kindCode[i]!]) return false;
    if (since !== undefined && !(base.updated[i]! >= since)) return false;
    if (until !== undefined && !(base.updated[i]! <= until)) return false;
    if (sourceOk && !sourceOk[base.sourceOf(i)]) return false;
    if (tags) {
      const ts = base.tagsOf(i);
      for (const t of tags) if (!ts.includes(t)) return false;
    }
    if (targetOk) {
      const ts = base.targetsOf(i);
      let any = false;
      for (let k = 0; k < ts.length && !any; k++) any = targetOk[ts[k]!] === 1;
      if (!any) return false;
    }
    return true;
  };
}

/** Live documents of the indexes: the generations' minus changed files, plus the overlays'. */
export function liveCount(indexes: readonly ScopeIndex[]): number {
  let n = 0;
  for (const ix of indexes) {
    n += ix.base.count;
    for (const p in ix.overlay) {
      if (ix.base.numberOf(p) >= 0) n--;
      if ('doc' in ix.overlay[p]!) n++;
    }
  }
  return n;
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
  return termMatcher(q)(term);
}

/** {@link matchWeight} for one query term, its expansion rules decided once (a bucket holds hundreds of terms). */
export function termMatcher(q: string): (term: string) => number {
  const prefix = prefixFor(q);
  const fuzzy = fuzzyFor(q) !== false;
  const c0 = q.charCodeAt(0);
  const c1 = q.charCodeAt(1);
  return (term) => {
    // every match (equal, longer with q as prefix, one edit away with the same first two) starts alike
    if (term.charCodeAt(0) !== c0) return 0;
    if (term === q) return 1;
    if (prefix && term.startsWith(q)) return (EXPANSION_WEIGHT.prefix * term.length) / (term.length + 0.3 * (term.length - q.length));
    if (fuzzy && term.charCodeAt(1) === c1 && withinOneEdit(term, q)) return (EXPANSION_WEIGHT.fuzzy * term.length) / (term.length + 1);
    return 0;
  };
}

/** Orders candidates: higher score, then newer updated_at, then id (code-point order), then path. */
export function compareCandidates(a: { score: number; doc: LiveDoc }, b: { score: number; doc: LiveDoc }): number {
  const sa = Math.round(a.score * 1e6);
  const sb = Math.round(b.score * 1e6);
  if (sa !== sb) return sb - sa;
  if (a.doc.updated !== b.doc.updated) return b.doc.updated - a.doc.updated;
  return a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : a.doc.path < b.doc.path ? -1 : a.doc.path > b.doc.path ? 1 : 0;
}

/** A run of the corpus numbering: one generation, or one overlay's documents. */
interface Part {
  start: number;
  end: number;
  base?: GenerationDocs;
  docs?: LiveDoc[];
}

/** Every document of the indexes under one numbering: each generation, then its overlay. */
interface Corpus {
  /** total documents, live or not */
  size: number;
  parts: Part[];
  live: Uint8Array;
  /** terms per field, FIELDS.length per document */
  lens: Int32Array;
  /** updated_at per document */
  updated: Float64Array;
  /** live documents */
  count: number;
  /** average terms per field over the live documents */
  avgLen: number[];
  /** per index: number of its first generation document */
  baseOffset: number[];
  /** the documents that are not live (generation documents changed or removed since), increasing */
  dead: Int32Array;
  /**
   * overlay postings of the terms starting with `prefix` (a query term's first two characters):
   * term → [document number, frequencies per field][], read from the documents' encoded terms
   * when a query term needs them
   */
  overlay: (prefix: string) => Map<string, Array<[number, number[]]>>;
}

function partOf(corpus: Corpus, n: number): Part {
  const parts = corpus.parts;
  let r = 0;
  while (r + 1 < parts.length && parts[r + 1]!.start <= n) r++;
  return parts[r]!;
}

/** The record of document n (built on demand for generation documents). */
function docOf(corpus: Corpus, n: number): LiveDoc {
  const p = partOf(corpus, n);
  return p.base ? p.base.doc(n - p.start) : p.docs![n - p.start]!;
}

/** Document n's id, or path, without building its record. */
function idOf(corpus: Corpus, n: number): string {
  const p = partOf(corpus, n);
  return p.base ? p.base.id(n - p.start) : p.docs![n - p.start]!.id;
}
function pathOf(corpus: Corpus, n: number): string {
  const p = partOf(corpus, n);
  return p.base ? p.base.path(n - p.start) : p.docs![n - p.start]!.path;
}

function corpusOf(indexes: readonly ScopeIndex[]): Corpus {
  const F = FIELDS.length;
  const size = indexes.reduce((a, ix) => a + ix.base.count + Object.keys(ix.overlay).length, 0);
  const live = new Uint8Array(size);
  const lens = new Int32Array(size * F);
  const updated = new Float64Array(size);
  const lenSum = new Array<number>(F).fill(0);
  const baseOffset: number[] = [];
  const parts: Part[] = [];
  // overlay documents by number, their terms decoded per prefix when a query term needs them
  const overlayDocsAll: Array<[number, string]> = [];
  const overlayByPrefix = new Map<string, Map<string, Array<[number, number[]]>>>();
  const dead: number[] = [];
  let count = 0;
  let n = 0;
  for (const ix of indexes) {
    const base = ix.base;
    const offset = n;
    baseOffset.push(offset);
    parts.push({ start: offset, end: offset + base.count, base });
    live.fill(1, offset, offset + base.count);
    // the generation's sums, less the documents its overlay replaced or deleted
    count += base.count;
    for (let f = 0; f < F; f++) lenSum[f]! += base.lenSum[f]!;
    for (const p in ix.overlay) {
      const k = base.numberOf(p);
      if (k < 0 || !live[offset + k]) continue;
      live[offset + k] = 0;
      dead.push(offset + k);
      count--;
      for (let f = 0; f < F; f++) lenSum[f]! -= base.len[k * F + f]!;
    }
    lens.set(base.len, offset * F);
    updated.set(base.updated, offset);
    n += base.count;
    const overlayDocs: LiveDoc[] = [];
    const overlayStart = n;
    for (const p in ix.overlay) {
      const e = ix.overlay[p]!;
      if (!('doc' in e)) continue;
      const d = e.doc;
      overlayDocs.push(d);
      live[n] = 1;
      updated[n] = d.updated;
      count++;
      for (let f = 0; f < F; f++) {
        lens[n * F + f] = d.len[f]!;
        lenSum[f]! += d.len[f]!;
      }
      overlayDocsAll.push([n, overlayTermsText(d.terms)]);
      n++;
    }
    parts.push({ start: overlayStart, end: n, docs: overlayDocs });
  }
  return {
    size: n,
    parts,
    live: live.subarray(0, n),
    lens,
    updated,
    count,
    // a field no document has is never scored (it has no postings): 1 there, and where a planted
    // docs.bin header made the sum too small, keeps every BM25 denominator positive
    avgLen: lenSum.map((x) => (count > 0 && x > 0 ? x / count : 1)),
    baseOffset,
    dead: Int32Array.from(new Set(dead)).sort(),
    overlay: (prefix) => {
      let byTerm = overlayByPrefix.get(prefix);
      if (!byTerm) {
        overlayByPrefix.set(prefix, (byTerm = new Map()));
        // document order, as the postings of a generation
        for (const [doc, encoded] of overlayDocsAll)
          for (const [term, freqs] of overlayTermsStartingWith(encoded, prefix)) {
            let list = byTerm.get(term);
            if (!list) byTerm.set(term, (list = []));
            list.push([doc, freqs]);
          }
      }
      return byTerm;
    },
  };
}

/**
 * True when `f` keeps every document: no field set but statuses and kinds, and those list every
 * status and kind (a document's status and kind are always among them: docs.bin and state.bin
 * are checked on load).
 */
export function keepsEverything(f: DocFilter): boolean {
  return (
    (!f.statuses || STATUSES.every((s) => f.statuses!.includes(s))) &&
    (!f.kinds || KINDS.every((k) => f.kinds!.includes(k))) &&
    f.tags === undefined &&
    (!f.harness || f.harness === 'all') &&
    !f.source &&
    f.since === undefined &&
    f.until === undefined
  );
}

/**
 * The document numbers n, increasing, with `among[n]` non-zero that pass `filter`: each part of
 * the corpus tested with its own test (columns for a generation's documents, records for an
 * overlay's), so no lookup of the part per document; none for a filter that keeps everything.
 */
function passing(corpus: Corpus, filter: DocFilter, among: Uint8Array | Uint16Array): Int32Array {
  const out = new Int32Array(corpus.size);
  let count = 0;
  if (keepsEverything(filter)) {
    for (let n = 0; n < corpus.size; n++) if (among[n] !== 0) out[count++] = n;
    return out.subarray(0, count);
  }
  for (const p of corpus.parts) {
    const test = p.base ? columnFilter(filter, p.base) : (k: number) => matchesFilter(filter, p.docs![k]!);
    for (let n = p.start; n < p.end; n++) if (among[n] !== 0 && test(n - p.start)) out[count++] = n;
  }
  return out.subarray(0, count);
}

/**
 * The matches `nums` (document numbers, increasing) with their `scores` as a {@link Ranked}: the
 * best k come from a bounded heap over the numbers (score, updated_at, then id and path decoded
 * only for ties), in exactly the order sorting every match by {@link compareCandidates} gives.
 */
function rankedOf(corpus: Corpus, nums: Int32Array, scores: Float64Array, hasRequired?: (n: number) => boolean): Ranked {
  const total = nums.length;
  const rounded = scores.map((x) => Math.round(x * 1e6));
  const upd = corpus.updated;
  const ids = new Map<number, string>();
  const paths = new Map<number, string>();
  const id = (n: number) => {
    let v = ids.get(n);
    if (v === undefined) ids.set(n, (v = idOf(corpus, n)));
    return v;
  };
  const path = (n: number) => {
    let v = paths.get(n);
    if (v === undefined) paths.set(n, (v = pathOf(corpus, n)));
    return v;
  };
  // a before b: negative. Positions into nums; equal keys keep the numbering's order (a stable sort's)
  const byScore = (a: number, b: number): number => {
    if (rounded[a] !== rounded[b]) return rounded[b]! - rounded[a]!;
    const na = nums[a]!;
    const nb = nums[b]!;
    if (upd[na] !== upd[nb]) return upd[nb]! - upd[na]!;
    const ia = id(na);
    const ib = id(nb);
    if (ia !== ib) return ia < ib ? -1 : 1;
    const pa = path(na);
    const pb = path(nb);
    if (pa !== pb) return pa < pb ? -1 : 1;
    return a - b;
  };
  const F = FIELDS.length;
  return {
    total,
    top(k, titleWords) {
      const size = Math.max(0, Math.min(k, total));
      const lens = corpus.lens;
      const cmp =
        titleWords === undefined
          ? byScore
          : (a: number, b: number): number => {
              const sa = lens[nums[a]! * F] === titleWords ? 0 : 1;
              const sb = lens[nums[b]! * F] === titleWords ? 0 : 1;
              return sa !== sb ? sa - sb : byScore(a, b);
            };
      // a max-heap of the best `size` so far: its root is the worst of them
      const heap = new Int32Array(size);
      let h = 0;
      const down = (i: number) => {
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < h && cmp(heap[l]!, heap[m]!) > 0) m = l;
          if (r < h && cmp(heap[r]!, heap[m]!) > 0) m = r;
          if (m === i) return;
          const t = heap[i]!;
          heap[i] = heap[m]!;
          heap[m] = t;
          i = m;
        }
      };
      for (let j = 0; j < total && size > 0; j++) {
        if (h < size) {
          heap[h] = j;
          for (let i = h++; i > 0; ) {
            const parent = (i - 1) >> 1;
            if (cmp(heap[i]!, heap[parent]!) <= 0) break;
            const t = heap[i]!;
            heap[i] = heap[parent]!;
            heap[parent] = t;
            i = parent;
          }
        } else if (cmp(j, heap[0]!) < 0) {
          heap[0] = j;
          down(0);
        }
      }
      return Array.from(heap)
        .sort(cmp)
        .map((j) => ({ doc: docOf(corpus, nums[j]!), score: scores[j]!, ...(hasRequired ? { hasRequired: hasRequired(nums[j]!) } : {}) }));
    },
  };
}

/**
 * Every live document of the indexes that passes `filter`, as a {@link Ranked} with score 0
 * (an empty query: newest first, then id).
 */
export function listDocuments(indexes: readonly ScopeIndex[], filter: DocFilter): Ranked {
  const corpus = sessionOf(indexes).corpus;
  const nums = passing(corpus, filter, corpus.live);
  return rankedOf(corpus, nums, new Float64Array(nums.length));
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
  const matchWeight = termMatcher(q);
  indexes.forEach((ix, i) => {
    const reader = ix.loadBucket(b);
    const terms = reader.terms;
    for (let t = 0; t < terms.length; t++) {
      const w = matchWeight(terms[t]!);
      if (w === 0) continue;
      const e = entry(terms[t]!, w);
      reader.postings(t).forEach((p, f) => {
        if (p) e.fields[f]!.push({ postings: p, offset: corpus.baseOffset[i]! });
      });
    }
  });
  for (const [term, list] of corpus.overlay(q.slice(0, 2))) {
    const w = matchWeight(term);
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

/** Per set of opened indexes (one search, or a resident server's requests while nothing changed): the corpus and the expanded query terms. */
const sessions = new WeakMap<readonly ScopeIndex[], { corpus: Corpus; expansions: Map<string, ReturnType<typeof expandTerm>> }>();

function sessionOf(indexes: readonly ScopeIndex[]): { corpus: Corpus; expansions: Map<string, ReturnType<typeof expandTerm>> } {
  let session = sessions.get(indexes);
  if (!session) sessions.set(indexes, (session = { corpus: corpusOf(indexes), expansions: new Map() }));
  // the index server hands the same array to request after request: keep its decoded terms bounded
  if (session.expansions.size > MAX_KEPT_EXPANSIONS) session.expansions.clear();
  return session;
}

/** Expanded query terms kept per set of indexes (a resident server's requests share one set). */
const MAX_KEPT_EXPANSIONS = 256;

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
 * @param filter evaluated on the generation's columns: no record is built per match
 * @param termWeights optional weight per query term (default 1), e.g. for feedback terms
 * @param required terms among `terms` (at most 32) whose exact presence in a document's title or
 *   body each candidate reports ({@link Candidate.hasRequired}; the phrase boost reads only those
 *   that can hold the phrase)
 * @returns the matching documents that pass `filter`: their number, and the best k on demand
 * @throws IndexUnusable when a bucket it needs is damaged (the caller rebuilds)
 */
export function rankDocuments(
  indexes: readonly ScopeIndex[],
  terms: readonly string[],
  filter: DocFilter,
  termWeights?: ReadonlyMap<string, number>,
  required?: readonly string[],
): Ranked {
  return scoreDocuments(indexes, terms, filter, termWeights, required, -1);
}

/** BM25+ parameters as {@link accumulate} uses them (k + 1 and 1 - b: the same values as written out). */
const K1 = BM25.k + 1;
const ONE_MINUS_B = 1 - BM25.b;

/**
 * How many of `docs` (+ `offset`; increasing, as every postings list) are live: their number less
 * those of the few documents that are not (`dead`, increasing), each looked up by bisection.
 */
function liveIn(docs: Int32Array, offset: number, dead: Int32Array): number {
  let n = docs.length;
  if (n === 0 || dead.length === 0) return n;
  const first = docs[0]! + offset;
  const last = docs[docs.length - 1]! + offset;
  for (let i = 0; i < dead.length; i++) {
    const d = dead[i]!;
    if (d < first) continue;
    if (d > last) break;
    const x = d - offset;
    let lo = 0;
    let hi = docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = docs[mid]!;
      if (v === x) {
        n--;
        break;
      }
      if (v < x) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return n;
}

/**
 * Adds one field's postings of one matched term to the scores (a function of its own: called for
 * every term and field, it is optimized early in a short-lived process). With `titleWords` ≥ 0,
 * only documents whose title has that many terms.
 */
function accumulate(
  postings: FieldPostings,
  offset: number,
  f: number,
  qi: number,
  factorIdf: number,
  avg: number,
  titleWords: number,
  live: Uint8Array,
  lens: Int32Array,
  score: Float64Array,
  matched: Uint16Array,
  lastQuery: Int32Array,
): void {
  const F = FIELDS.length;
  const { k, b, d } = BM25;
  const docs = postings.docs;
  const freqs = postings.freqs;
  const gated = titleWords >= 0;
  for (let j = 0; j < docs.length; j++) {
    const n = docs[j]! + offset;
    if (!live[n]) continue;
    if (gated && lens[n * F] !== titleWords) continue;
    const tf = freqs[j]!;
    const len = lens[n * F + f]!;
    score[n]! += factorIdf * (d + (tf * K1) / (tf + k * (ONE_MINUS_B + (b * len) / avg)));
    if (lastQuery[n] !== qi) {
      lastQuery[n] = qi;
      matched[n]!++;
    }
  }
}

/**
 * `rankDocuments(indexes, terms, filter).top(k, titleWords)`, the same candidates in the same
 * order, without scoring every match: a document's score does not depend on the others' (the
 * document frequencies count every posting), so when at least `k` matches that pass `filter`
 * have a title of `titleWords` terms, the first `k` are the best of those alone, and only they
 * are scored; with fewer, every match is (the similar check's title ranking).
 */
export function topOfTitleLength(indexes: readonly ScopeIndex[], terms: readonly string[], filter: DocFilter, k: number, titleWords: number): Candidate[] {
  const same = scoreDocuments(indexes, terms, filter, undefined, undefined, titleWords);
  return same.total >= k ? same.top(k, titleWords) : rankDocuments(indexes, terms, filter).top(k, titleWords);
}

/** {@link rankDocuments}; with `titleWords` ≥ 0, only the documents whose title has that many terms are scored and matched. */
function scoreDocuments(
  indexes: readonly ScopeIndex[],
  terms: readonly string[],
  filter: DocFilter,
  termWeights: ReadonlyMap<string, number> | undefined,
  required: readonly string[] | undefined,
  titleWords: number,
): Ranked {
  // a second pass over the same indexes (feedback expansion) reuses the corpus and the expansions
  const session = sessionOf(indexes);
  const corpus = session.corpus;
  if (terms.length === 0) return rankedOf(corpus, new Int32Array(0), new Float64Array(0));
  const expansions = session.expansions;
  const { live, lens, count: N, avgLen, size } = corpus;
  const F = FIELDS.length;
  const score = new Float64Array(size);
  const matched = new Uint16Array(size);
  const lastQuery = new Int32Array(size).fill(-1);
  const boosts = FIELDS.map((f) => FIELD_BOOST[f]);
  for (let qi = 0; qi < terms.length; qi++) {
    const q = terms[qi]!;
    const termBoost = termWeights?.get(q) ?? 1;
    let expanded = expansions.get(q);
    if (!expanded) expansions.set(q, (expanded = expandTerm(indexes, corpus, q)));
    for (const { weight, fields } of expanded.values()) {
      for (let f = 0; f < F; f++) {
        const slices = fields[f]!;
        if (slices.length === 0) continue;
        let df = 0;
        for (const { postings, offset } of slices) df += liveIn(postings.docs, offset, corpus.dead);
        if (df === 0) continue;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        // (factor × idf) × …: the same products, in the same order, as written out per posting
        const factorIdf = weight * termBoost * boosts[f]! * idf;
        for (const { postings, offset } of slices)
          accumulate(postings, offset, f, qi, factorIdf, avgLen[f]!, titleWords, live, lens, score, matched, lastQuery);
      }
    }
  }
  // the matches that pass the filter (the similar check's, every status, tests none), then their scores
  const nums = passing(corpus, filter, matched);
  const scores = new Float64Array(nums.length);
  for (let j = 0; j < nums.length; j++) scores[j] = score[nums[j]!]! * matched[nums[j]!]!;
  return rankedOf(corpus, nums, scores, required && requiredMask(expansions, size, required));
}

/** Title and body: the fields a phrase is looked for in. */
const PHRASE_FIELDS = [FIELDS.indexOf('title'), FIELDS.indexOf('body')];

/**
 * Which documents hold every `required` term exactly in their title or body, from the postings
 * the ranking decoded (`expansions` holds every query term); undefined for more than 32 terms.
 */
function requiredMask(
  expansions: ReadonlyMap<string, ReturnType<typeof expandTerm>>,
  size: number,
  required: readonly string[],
): ((n: number) => boolean) | undefined {
  const terms = [...new Set(required)];
  if (terms.length === 0 || terms.length > 32) return undefined;
  const mask = new Uint32Array(size);
  terms.forEach((q, bit) => {
    const exact = expansions.get(q)?.get(q);
    if (!exact) return;
    for (const f of PHRASE_FIELDS)
      for (const { postings, offset } of exact.fields[f]!) for (let j = 0; j < postings.docs.length; j++) mask[postings.docs[j]! + offset]! |= 1 << bit;
  });
  const all = terms.length === 32 ? 0xffffffff : (1 << terms.length) - 1;
  return (n) => mask[n]! >>> 0 === all >>> 0;
}
