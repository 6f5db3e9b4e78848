/**
 * Duplicate detection at save time: retries and concurrent agents save the same memory twice.
 * A memory is similar to an existing one in the same scope when their titles are equal after
 * folding (case, accents, punctuation, spacing) or their bodies are near-identical (term-set
 * Jaccard similarity at least 0.9). Candidates come from the index; the files decide.
 */
import type { Memory, Scope } from '../../document/contract.js';
import type { VaultRoots } from '../../store/roots.js';
import { searchMemories, type SearchOptions, type SearchResponse } from './search-memories.js';
import { foldText, tokenize } from '../analysis/tokenizer.js';
import { LIMITS } from '../../document/contract.js';
import { parseMemory } from '../../document/parse.js';
import { readScopeFile } from '../../store/read-scope-file.js';

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

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/** The memory a similar check is made for: what is about to be saved (its id, when set, is never reported). */
export type SimilarProbe = Pick<Memory, 'title' | 'body' | 'scope'> & { id?: string | undefined };

/** How a similar check searches: {@link searchMemories}, or the resident server's engine over its kept indexes. */
export type SimilarSearch = (roots: VaultRoots, query: string, options: SearchOptions) => Promise<SearchResponse>;

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
  return findSimilarMemoriesWith((r, q, o) => searchMemories(r, q, { ...o, fullCheckIntervalS: freshness.fullCheckIntervalS }), roots, memory);
}

/** {@link findSimilarMemories} with the candidates found by `search` (the resident server passes its engine's search). */
export async function findSimilarMemoriesWith(search: SimilarSearch, roots: VaultRoots, memory: SimilarProbe): Promise<SimilarMemory[]> {
  const scope: Scope = memory.scope;
  const bodyTerms = tokenize(memory.body);
  // the title plus the body's first distinct words find the candidates; the files decide
  const query = [memory.title, ...[...new Set(bodyTerms)].slice(0, 24)].join(' ');
  const found = await search(roots, query, { scopes: [scope], statuses: ['active', 'rejected', 'superseded'], limit: 30, feedback: false });
  const title = normalizeTitle(memory.title);
  const mine = new Set(bodyTerms);
  const out: SimilarMemory[] = [];
  for (const hit of found.results) {
    if (hit.id === memory.id) continue;
    const read = readScopeFile(roots, scope, hit.path.split('/').slice(1).join('/'), LIMITS.documentMaxBytes);
    if (!read.ok) continue;
    let other: Memory;
    try {
      other = parseMemory(read.bytes).memory;
    } catch {
      continue;
    }
    const similarity = Math.round(jaccard(mine, new Set(tokenize(other.body))) * 1000) / 1000;
    if (normalizeTitle(other.title) === title) out.push({ id: other.id, title: other.title, path: hit.path, reason: 'same-title', similarity });
    else if (similarity >= BODY_SIMILARITY) out.push({ id: other.id, title: other.title, path: hit.path, reason: 'similar-body', similarity });
  }
  return out.sort((a, b) => (a.reason === b.reason ? b.similarity - a.similarity : a.reason === 'same-title' ? -1 : 1));
}
