/**
 * Duplicate detection at save time: retries and concurrent agents save the same memory twice.
 * A memory is similar to an existing one in the same scope when their titles are equal after
 * folding (case, accents, punctuation, spacing) or their bodies are near-identical (term-set
 * Jaccard similarity at least 0.9). Candidates come from the index, ranked only (no excerpts,
 * no second reading): the top {@link TOP_K} for the title (titles of as many words first) and the
 * top {@link TOP_K} for a sketch of the body (at most {@link SKETCH_TERMS} of its distinct words,
 * spread over it); the files decide.
 */
import type { Memory, Scope } from '../../document/contract.js';
import type { VaultRoots } from '../../store/roots.js';
import { openIndexes, resolveSearchOptions, searchMemoriesWith, type IndexOpener, type SearchOptions } from './search-memories.js';
import { rankDocuments, topOfTitleLength, type LiveDoc } from './query-ranking.js';
import { IndexUnusable } from '../index/index-store.js';
import { foldText, tokenize, tokenizeQuery, tokenizeSkippingUnspaced, touchesUnspacedRun } from '../analysis/tokenizer.js';
import { LIMITS } from '../../document/contract.js';
import { parseMemory } from '../../document/parse.js';
import { openScopeReader } from '../../store/read-scope-file.js';

/** An existing memory that looks like the one being saved. */
export interface SimilarMemory {
  id: string;
  title: string;
  /** vault-relative path */
  path: string;
  reason: 'same-title' | 'similar-body';
  /** body similarity, 0..1 (Jaccard of term sets) */
  similarity: number;
}

/** Minimum body similarity that counts as a duplicate. */
export const BODY_SIMILARITY = 0.9;

/** A title folded for comparison: case, accents, punctuation and spacing do not count. */
export function normalizeTitle(title: string): string {
  return foldText(title)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A similarity as it is reported and compared: three decimals. */
const rounded = (x: number): number => Math.round(x * 1000) / 1000;

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * How many distinct terms of another body outside this one's `size` distinct terms rule out a
 * similar body: the least x ≥ 1 with `rounded(size / (size + x)) < BODY_SIMILARITY`.
 *
 * Why that bound is exact: let A be this body's term set, B the other's (either of the sets the
 * check compares, `tokenize` or `tokenizeSkippingUnspaced`), and B' ⊆ B terms of B already seen,
 * x of them outside A. Then |A ∩ B| ≤ |A| and |A ∪ B| = |A| + |B \ A| ≥ |A| + x, so
 * Jaccard(A, B) ≤ |A| / (|A| + x); rounding is monotone, so once that bound rounds below
 * {@link BODY_SIMILARITY} the body is not similar, whatever the rest of it holds.
 *
 * @param size distinct terms of the body being saved (≥ 0)
 * @returns a count ≥ 1
 */
export function outsideLimit(size: number): number {
  let x = 1;
  while (rounded(size / (size + x)) >= BODY_SIMILARITY) x++;
  return x;
}

/** Characters of another body tokenized at a time by {@link farFromBody} (a piece ends at the next space or line break). */
export const PIECE_CHARS = 256;

/**
 * The body cut into pieces of about {@link PIECE_CHARS} characters, each cut made just before a
 * space (U+0020) or a line feed, in order; joined, they give `body` back.
 *
 * No term of the tokenizer spans such a cut: after folding (NFKD, accents dropped, NFC,
 * lowercase: a space or line feed composes with nothing, and is neither cased nor
 * case-ignorable, so it also ends the context of a final sigma), words are runs of letters,
 * digits, marks, apostrophes and the joiners `_-./:@#+~\`, never a space or a line feed, and the
 * runs of scripts written without spaces hold none either. So every term of
 * `tokenizeSkippingUnspaced(piece)` is a term of `tokenizeSkippingUnspaced(body)` (together they
 * are all of them), which is a subset of `tokenize(body)` (tests/search/query/similar-bound.test.ts
 * checks it on random text).
 */
export function* bodyPieces(body: string): Generator<string> {
  let start = 0;
  while (start < body.length) {
    let cut = body.length;
    if (start + PIECE_CHARS < body.length) {
      const space = body.indexOf(' ', start + PIECE_CHARS);
      const line = body.indexOf('\n', start + PIECE_CHARS);
      cut = Math.min(space < 0 ? body.length : space, line < 0 ? body.length : line);
    }
    yield body.slice(start, cut);
    start = cut;
  }
}

/**
 * True when `body` shows at least `limit` ({@link outsideLimit}) distinct terms outside `mine`,
 * so that it cannot be similar: tokenized piece by piece ({@link bodyPieces}), stopping there.
 * False means only that the bound did not rule it out (the full comparison decides).
 *
 * @param mine the distinct terms of the body being saved (`tokenize`)
 * @param limit `outsideLimit(mine.size)`
 * @param body another memory's body
 */
export function farFromBody(mine: ReadonlySet<string>, limit: number, body: string): boolean {
  const outside = new Set<string>();
  for (const piece of bodyPieces(body)) {
    for (const t of tokenizeSkippingUnspaced(piece)) {
      if (mine.has(t) || outside.has(t)) continue;
      outside.add(t);
      if (outside.size >= limit) return true;
    }
  }
  return false;
}

/** Candidates read from each ranking (title, body sketch). */
export const TOP_K = 10;
/** Distinct body words in the sketch that finds near-identical bodies. */
export const SKETCH_TERMS = 12;

/** At most {@link SKETCH_TERMS} distinct words, evenly spread over the body (an edited opening still matches). */
function bodySketch(terms: readonly string[]): string[] {
  const distinct = [...new Set(terms)];
  if (distinct.length <= SKETCH_TERMS) return distinct;
  const step = distinct.length / SKETCH_TERMS;
  return Array.from({ length: SKETCH_TERMS }, (_, i) => distinct[Math.floor(i * step)]!);
}

const ANY_STATUS = ['active', 'rejected', 'superseded'] as const;

/**
 * The candidates' vault-relative paths: the top {@link TOP_K} documents for the title's words and
 * the top {@link TOP_K} for the body sketch, from the scope's index as `open` gives it (opened
 * fresh from disk, or the index server's kept one); when the index is unusable, a search (which
 * rebuilds it) over both.
 */
async function candidatePaths(open: IndexOpener, roots: VaultRoots, scope: Scope, title: string, sketch: readonly string[]): Promise<string[]> {
  const { filter } = resolveSearchOptions({ scopes: [scope], statuses: [...ANY_STATUS] });
  const top = (docs: readonly { doc: LiveDoc }[]) => docs.slice(0, TOP_K).map((c) => `${c.doc.scope}/${c.doc.path}`);
  try {
    const { indexes } = open(roots, [scope], false, {});
    const byTitle = tokenizeQuery(title);
    const bySketch = tokenizeQuery(sketch.join(' '));
    // titles with as many words as this one first: a same title has them (many titles may share
    // the words and outrank it on their bodies)
    const words = tokenize(title).length;
    // (the same order as partitioning every match, with records for the first TOP_K only, and
    // only the titles of that length scored when they are TOP_K or more)
    const sameLength = byTitle.length ? topOfTitleLength(indexes, byTitle, filter, TOP_K, words) : [];
    return [...new Set([...top(sameLength), ...(bySketch.length ? top(rankDocuments(indexes, bySketch, filter).top(TOP_K)) : [])])];
  } catch (err) {
    if (!(err instanceof IndexUnusable)) throw err;
    const found = await searchMemoriesWith(open, roots, [title, ...sketch].join(' '), {
      scopes: [scope],
      statuses: [...ANY_STATUS],
      limit: 2 * TOP_K,
      feedback: false,
    });
    return found.results.map((h) => h.path);
  }
}

/** The memory a similar check is made for: what is about to be saved (its id, when set, is never reported). */
export type SimilarProbe = Pick<Memory, 'title' | 'body' | 'scope'> & { id?: string | undefined };

/**
 * Finds memories in the same scope (any status) with the same normalised title or a
 * near-identical body.
 *
 * @param memory the memory about to be saved (its id, when set, is never reported)
 * @param freshness `fullCheckIntervalS`: seconds between the index's full checks (adapters pass ECC_INDEX_FULL_CHECK_S; default 60)
 * @returns similar memories, same title first
 */
export function findSimilarMemories(
  roots: VaultRoots,
  memory: SimilarProbe,
  freshness: Pick<SearchOptions, 'fullCheckIntervalS'> = {},
): Promise<SimilarMemory[]> {
  const open: IndexOpener = (r, scopes, rebuild, f) => openIndexes(r, scopes, rebuild, { ...f, fullCheckIntervalS: freshness.fullCheckIntervalS });
  return findSimilarMemoriesWith(open, roots, memory);
}

/** {@link findSimilarMemories} with the indexes `open` gives (the resident server passes its kept indexes). */
export async function findSimilarMemoriesWith(open: IndexOpener, roots: VaultRoots, memory: SimilarProbe): Promise<SimilarMemory[]> {
  const scope: Scope = memory.scope;
  const bodyTerms = tokenize(memory.body);
  const title = normalizeTitle(memory.title);
  const mine = new Set(bodyTerms);
  const mineSpaced = !bodyTerms.some(touchesUnspacedRun);
  const limit = outsideLimit(mine.size);
  const out: SimilarMemory[] = [];
  const paths = await candidatePaths(open, roots, scope, memory.title, bodySketch(bodyTerms));
  // one reader for every candidate: a kind folder's handles are opened once, not once per file
  const reader = openScopeReader(roots, scope);
  try {
    for (const path of paths) {
      const read = reader.read(path.split('/').slice(1).join('/'), LIMITS.documentMaxBytes);
      if (!read.ok) continue;
      let other: Memory;
      try {
        other = parseMemory(read.bytes).memory;
      } catch {
        continue;
      }
      if (other.id === memory.id) continue;
      const sameTitle = normalizeTitle(other.title) === title;
      // most candidates share a few words only: read the other body's opening pieces until they
      // show it cannot be similar (see outsideLimit), without tokenizing the rest of it
      if (!sameTitle && farFromBody(mine, limit, other.body)) continue;
      // Without Chinese/Japanese... terms of its own, this memory shares none with the other's
      // unspaced runs: their Jaccard without those runs' terms bounds the true one from above, so
      // a body far from similar is passed over without starting the word segmenter
      if (!sameTitle && mineSpaced && rounded(jaccard(mine, new Set(tokenizeSkippingUnspaced(other.body)))) < BODY_SIMILARITY) continue;
      const similarity = rounded(jaccard(mine, new Set(tokenize(other.body))));
      if (sameTitle) out.push({ id: other.id, title: other.title, path, reason: 'same-title', similarity });
      else if (similarity >= BODY_SIMILARITY) out.push({ id: other.id, title: other.title, path, reason: 'similar-body', similarity });
    }
  } finally {
    reader.close();
  }
  return out.sort((a, b) => (a.reason === b.reason ? b.similarity - a.similarity : a.reason === 'same-title' ? -1 : 1));
}
