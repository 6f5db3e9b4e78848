/**
 * The search API: `searchMemories(roots, query, options)`, used by `vault search`, the MCP server
 * and the hooks. Every call checks the index's freshness first (and repairs it), so results always
 * reflect the Markdown files; a broken index is rebuilt and never fails a search.
 */
import { KINDS, LIMITS, SCOPES, SLUG_PATTERN, STATUSES, type Kind, type Memory, type Scope, type Status } from '../../document/contract.js';
import { parseMemory } from '../../document/parse.js';
import { startsWithCalendarDay } from '../../document/validate.js';
import { VaultError } from '../../errors.js';
import { openScopeReader, type ScopeReader } from '../../store/read-scope-file.js';
import type { VaultRoots } from '../../store/roots.js';
import { makeExcerpt } from './excerpt.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { canonicalHarness } from '../../document/harness-names.js';
import { bucketOf, overlayHasTerm, overlayTermsText } from '../index/index-format.js';
import { openScopeIndex, type FreshnessReport, type ScopeIndex } from '../index/index-freshness.js';

export { fullCheckIntervalFrom } from '../index/index-freshness.js';
import { IndexUnusable } from '../index/index-store.js';
import { compareCandidates, listDocuments, liveCount, rankDocuments, type Candidate, type DocFilter, type LiveDoc, type Ranked } from './query-ranking.js';
import { foldText, tokenize, tokenizeQuery, touchesUnspacedRun } from '../analysis/tokenizer.js';
import { quoteInput } from '../../document/echo-input.js';

/** Filters and limits of a search. Every filter narrows; unset filters do not. */
export interface SearchOptions {
  /** scopes to search (default project and team; user only when asked) */
  scopes?: readonly Scope[] | undefined;
  /** any of these kinds */
  kinds?: readonly Kind[] | undefined;
  /** every one of these tags */
  tags?: readonly string[] | undefined;
  /** any of these statuses (default ["active"]) */
  statuses?: readonly Status[] | undefined;
  /** memories for this harness: its name, an alias of it (document/harness-names.ts) or "all" among target_harnesses */
  targetHarness?: string | undefined;
  /** memories written by this harness (`source_harness`, aliases resolved: document/harness-names.ts), filtered on the index's column */
  sourceHarness?: string | undefined;
  /** updated_at at or after: ISO-8601 timestamp, or a date (YYYY-MM-DD, start of that day UTC) */
  since?: string | undefined;
  /** updated_at at or before: ISO-8601 timestamp, or a date (YYYY-MM-DD, end of that day UTC) */
  until?: string | undefined;
  /** results to return, 1..100 (default 20) */
  limit?: number | undefined;
  /**
   * expand queries of three or more terms with the most characteristic words of the top eight
   * results, at a lower weight (pseudo-relevance feedback; default true)
   */
  feedback?: boolean | undefined;
  /**
   * boost a hit whose title or body holds the whole query as a phrase of whole words (default
   * true; see {@link holdsPhrase}): the best max(3 × limit, 30) candidates are reordered, and of
   * those only the ones holding every single-word term of the query ({@link phraseTerms}) are read
   * besides the ones returned. The memory digest turns it off: its context query (branch, goal,
   * paths) is no phrase a memory holds.
   */
  phrase?: boolean | undefined;
  /** called while an index is built from the files: files read so far and in all (every 500 files, and at the end) */
  onProgress?: ((scope: Scope, done: number, total: number) => void) | undefined;
  /** also return how many memories hold each query term ({@link SearchResponse.termStats}; default false) */
  termStats?: boolean | undefined;
  /**
   * check every file's fingerprint before answering (`vault search --fresh`); by default only
   * the folders are checked, and every file by the full check once `fullCheckIntervalS` has passed
   * (docs/concepts.md: what can be seen late)
   */
  fresh?: boolean | undefined;
  /** seconds between full checks (default 60; 0 = every search; adapters pass ECC_INDEX_FULL_CHECK_S) */
  fullCheckIntervalS?: number | undefined;
}

/** One search result. `path` is vault-relative (`team/decisions/mem_x.md`). */
export interface SearchHit {
  id: string;
  title: string;
  kind: Kind;
  scope: Scope;
  status: Status;
  tags: string[];
  /** relevance (BM25+ with field boosts); 0 for an empty query */
  score: number;
  path: string;
  /** about 240 characters of the best-matching passage, `…` where cut */
  excerpt: string;
  updatedAt: string;
}

/** What the search noticed on the way: bad files, skipped links, index repairs. */
export interface SearchDiagnostics {
  /** vault files that are not usable memories (the scanner's diagnostics; vault-relative paths) */
  invalidFiles: Diagnostic[];
  /** symbolic links found and not followed (vault-relative) */
  skippedSymlinks: string[];
  /** false when the walk hit a limit or could not read a folder */
  complete: boolean;
  incompleteReasons: string[];
  /** per scope: whether the index was fresh, refreshed or rebuilt */
  index: Array<Pick<FreshnessReport, 'scope' | 'action' | 'reason' | 'added' | 'changed' | 'removed' | 'persisted'>>;
}

/** The answer of {@link searchMemories}. */
export interface SearchResponse {
  results: SearchHit[];
  diagnostics: SearchDiagnostics;
  /** number of memories matching the query and filters (results holds at most `limit`) */
  total: number;
  /**
   * with `termStats`: the memories of the searched scopes (`docs`, any status) and, per query term
   * (tokenised), how many of them hold it (`df`, counted from the index; see docFrequency)
   */
  termStats?: { docs: number; df: Record<string, number> };
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

function invalidInput(field: string, message: string, hint: string): VaultError {
  return new VaultError('invalid-input', `${field}: ${message}`, { field, hint });
}

function checkEnum<T extends string>(field: string, values: readonly string[] | undefined, allowed: readonly T[]): T[] | undefined {
  if (values === undefined) return undefined;
  for (const v of values)
    if (!(allowed as readonly string[]).includes(v))
      throw invalidInput(field, `must be one of: ${allowed.join(', ')} (got ${echoed(String(v))})`, `use one of: ${allowed.join(', ')}`);
  return [...new Set(values)] as T[];
}

/**
 * A rejected filter value as an error message quotes it: whole when it is made of date
 * characters only (up to 40), else its first 12 characters and an ellipsis, so a credential
 * pasted into the wrong flag is not repeated on the terminal or into logs.
 */
function echoed(v: string): string {
  return quoteInput(v, /^[0-9TZ:.+ -]{1,40}$/.test(v) ? 40 : 12);
}

/** Parses a --since/--until bound to ms since the epoch. Dates mean the start (since) or end (until) of that UTC day. */
export function parseTimeBound(field: 'since' | 'until', value: string): number {
  const v = value.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const ms = Date.parse(dateOnly ? `${v}T00:00:00.000Z` : v);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) || Number.isNaN(ms) || !startsWithCalendarDay(v)) {
    throw invalidInput(field, `must be a date (YYYY-MM-DD) or an ISO-8601 timestamp (got ${echoed(v)})`, 'e.g. 2026-07-26 or 2026-07-26T20:00:00.000Z');
  }
  return dateOnly && field === 'until' ? ms + 86_399_999 : ms;
}

/** Checks options and turns them into a document filter. @throws VaultError `invalid-input` */
export function resolveSearchOptions(options: SearchOptions): { scopes: Scope[]; limit: number; filter: DocFilter } {
  const scopes = checkEnum('scope', options.scopes, SCOPES) ?? (['project', 'team'] as Scope[]);
  const kinds = checkEnum('kind', options.kinds, KINDS);
  const statuses = checkEnum('status', options.statuses, STATUSES) ?? (['active'] as Status[]);
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw invalidInput('limit', `must be a whole number from 1 to ${MAX_LIMIT} (got ${String(limit)})`, `e.g. --limit ${DEFAULT_LIMIT}`);
  const tags = options.tags?.map((t) => String(t).trim().replace(/^#/, '').toLowerCase());
  const harness = options.targetHarness?.trim().toLowerCase();
  const source = options.sourceHarness === undefined ? undefined : canonicalHarness(options.sourceHarness);
  // the harness rule of save (a slug, ecc.memory.v1): anything else can match no memory
  if (source !== undefined && !SLUG_PATTERN.test(source))
    throw invalidInput(
      'source-harness',
      `must be a harness name: lowercase letters, digits, '.', '_' or '-', at most 64 (got ${echoed(options.sourceHarness!)})`,
      'e.g. --source-harness claude-code',
    );
  const since = options.since !== undefined ? parseTimeBound('since', options.since) : undefined;
  const until = options.until !== undefined ? parseTimeBound('until', options.until) : undefined;
  const filter: DocFilter = { statuses, kinds, tags, harness, source, since, until };
  return { scopes, limit, filter };
}

/** Reads a candidate's file again (the truth) for its title, tags and excerpt; once per search (see {@link memoReader}). */
type CandidateReader = (doc: LiveDoc) => Memory | undefined;

/**
 * Thrown by a candidate reader that was opened after a folder check when the file it read
 * differs from the index (size or mtime by its fstat): an in-place write the folder check could
 * not see. The search then runs the full check and answers again.
 */
export class StaleCandidate extends Error {
  override readonly name = 'StaleCandidate';
}

/** A {@link CandidateReader} that keeps each scope's folders open until `close` (the hits of one answer spread over a few kind folders). */
function memoReader(roots: VaultRoots, verify: boolean): CandidateReader & { close(): void } {
  const seen = new Map<LiveDoc, Memory | undefined>();
  const readers = new Map<Scope, ScopeReader>();
  const read = (doc: LiveDoc) => {
    if (!seen.has(doc)) {
      let reader = readers.get(doc.scope);
      if (!reader) readers.set(doc.scope, (reader = openScopeReader(roots, doc.scope)));
      seen.set(doc, readCandidate(reader, doc, verify));
    }
    return seen.get(doc);
  };
  return Object.assign(read, {
    close() {
      for (const r of readers.values()) r.close();
      readers.clear();
    },
  });
}

function readCandidate(reader: ScopeReader, doc: LiveDoc, verify: boolean): Memory | undefined {
  const r = reader.read(doc.path, LIMITS.documentMaxBytes);
  // a file read in the racy window (mtime -1) was read by this very check: its size still tells
  if (verify && (!r.ok || r.size !== doc.size || (doc.mtime !== -1 && r.mtimeMs !== doc.mtime))) throw new StaleCandidate(doc.path);
  if (!r.ok) return undefined;
  try {
    const m = parsedOf(`${doc.scope}\u0000${doc.path}`, r.bytes);
    return m.id === doc.id ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Memories parsed by this process, by scope and path, with the bytes they were parsed from (see {@link parsedOf}). */
const parsed = new Map<string, { bytes: Buffer; memory: Memory }>();
/** Entries kept at most (the oldest go first): a few MB of small files. */
const PARSED_MAX = 4096;

/**
 * The memory of a candidate file's bytes, just read: parsed, or the memory parsed before from the
 * very same bytes (compared whole, so it is the same answer). A resident process (the index
 * server) then parses each returned file once until it changes; a one-shot process loses nothing.
 *
 * @throws what parseMemory throws (a failed parse is not kept)
 */
function parsedOf(key: string, bytes: Buffer): Memory {
  const known = parsed.get(key);
  if (known?.bytes.equals(bytes)) return known.memory;
  const memory = parseMemory(bytes).memory;
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
  parsed.set(key, { bytes: Buffer.from(bytes), memory }); // a copy: `bytes` may view a larger read buffer
  return memory;
}

/** How {@link openIndexes} checks freshness (see index-freshness.ts). */
export interface FreshnessOptions {
  /** the full per-file check (default: the folder check) */
  full?: boolean | undefined;
  /** seconds between full checks (default 60; 0 = always) */
  fullCheckIntervalS?: number | undefined;
  /** called while an index is built from the files (see {@link SearchOptions.onProgress}) */
  onProgress?: SearchOptions['onProgress'];
  /** with the folder check: files (vault-relative) checked even when their folder is unchanged (see OpenOptions.recheck) */
  recheck?: readonly string[] | undefined;
}

/**
 * Opens every requested scope's index fresh, collecting diagnostics.
 *
 * @param rebuild true, or the reason, to build every index from the files (default: refresh)
 * @param freshness the check to run (default: the folder check, full once the interval passed)
 * @returns the indexes, diagnostics, and `full`: true when every scope got the full check
 */
export function openIndexes(
  roots: VaultRoots,
  scopes: readonly Scope[],
  rebuild: boolean | string = false,
  freshness: FreshnessOptions = {},
): { indexes: ScopeIndex[]; diagnostics: SearchDiagnostics; full: boolean } {
  const diagnostics: SearchDiagnostics = { invalidFiles: [], skippedSymlinks: [], complete: true, incompleteReasons: [], index: [] };
  const indexes: ScopeIndex[] = [];
  let full = true;
  for (const scope of scopes) {
    const { index, report } = openScopeIndex(roots, scope, {
      rebuild,
      full: freshness.full,
      fullCheckIntervalS: freshness.fullCheckIntervalS,
      onProgress: freshness.onProgress ? (done, total) => freshness.onProgress!(scope, done, total) : undefined,
      recheck: freshness.recheck?.filter((p) => p.startsWith(`${scope}/`)).map((p) => p.slice(scope.length + 1)),
    });
    if (report.check !== 'full') full = false;
    indexes.push(index);
    diagnostics.index.push({
      scope,
      action: report.action,
      reason: report.reason,
      added: report.added,
      changed: report.changed,
      removed: report.removed,
      persisted: report.persisted,
    });
    diagnostics.skippedSymlinks.push(...report.symlinks);
    if (!report.complete) diagnostics.complete = false;
    diagnostics.incompleteReasons.push(...report.incompleteReasons);
    const invalid = [...index.base.invalid.filter((r) => !(r.path in index.overlay))];
    for (const p in index.overlay) {
      const e = index.overlay[p]!;
      if ('invalid' in e) invalid.push(e.invalid);
    }
    for (const r of invalid.sort((a, b) => (a.path < b.path ? -1 : 1))) {
      diagnostics.invalidFiles.push(diagnostic(r.severity, r.code, `${scope}/${r.path}`, r.line, r.message, r.hint, r.column));
    }
  }
  return { indexes, diagnostics, full };
}

function toHit(doc: LiveDoc, m: Memory, score: number, terms: readonly string[]): SearchHit {
  return {
    id: m.id,
    title: m.title,
    kind: m.kind,
    scope: doc.scope,
    status: m.status,
    tags: [...m.tags],
    score: Math.round(score * 1000) / 1000,
    path: `${doc.scope}/${doc.path}`,
    excerpt: excerptOf(m, terms),
    updatedAt: m.updatedAt,
  };
}

/**
 * Excerpts made for a parsed memory, by query terms: the index server's requests reuse a parsed
 * memory while its file's bytes stay the same (see {@link parsedOf}), and with it the excerpt of
 * a query asked again. A few queries per memory at most.
 */
const excerpts = new WeakMap<Memory, Map<string, string>>();
const EXCERPTS_PER_MEMORY = 4;

function excerptOf(m: Memory, terms: readonly string[]): string {
  const key = terms.join('\u0000');
  let known = excerpts.get(m);
  const hit = known?.get(key);
  if (hit !== undefined) return hit;
  const e = makeExcerpt(m.body, terms);
  if (!known) excerpts.set(m, (known = new Map()));
  if (known.size >= EXCERPTS_PER_MEMORY) known.delete(known.keys().next().value as string);
  known.set(key, e);
  return e;
}

const PHRASE_IN_TITLE = 1.5;
const PHRASE_IN_BODY = 1.2;

/**
 * Searches the vault.
 *
 * The query is tokenised like the memories (any language, case and accents folded, English
 * stop words dropped, Porter stems); words are combined with OR and ranked by BM25+ with
 * title > tags > kind/id > body, prefix and light fuzzy matches, and a boost when the whole query
 * appears as a phrase of whole words in the title or body. Queries of three or more terms get one round of
 * pseudo-relevance feedback (see {@link SearchOptions.feedback}). An empty query lists the
 * memories newest first under the same filters.
 *
 * @param roots the vault's roots (see resolveRoots)
 * @param query free text; empty lists newest first
 * @param options filters and limit (defaults: project and team, active, 20)
 * @returns at most `limit` hits, the total number of matches, and diagnostics (invalid files,
 *   skipped symlinks, index repairs); never fails because of the index or a bad file
 * @throws VaultError `invalid-input` for a bad option (unknown kind, limit outside 1..100, bad date)
 */
export async function searchMemories(roots: VaultRoots, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  return searchMemoriesWith(openIndexes, roots, query, options);
}

/** How a search gets its indexes: {@link openIndexes}, or the resident engine's kept ones (`full`: every file was checked, or watched since). */
export type IndexOpener = (
  roots: VaultRoots,
  scopes: readonly Scope[],
  rebuild: boolean | string,
  freshness: FreshnessOptions,
) => { indexes: ScopeIndex[]; diagnostics: SearchDiagnostics; full: boolean };

/** {@link searchMemories} over indexes opened by `open` (the resident server keeps them between requests). */
export async function searchMemoriesWith(open: IndexOpener, roots: VaultRoots, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  const resolved = resolveSearchOptions(options);
  const freshness: FreshnessOptions = { full: options.fresh === true, fullCheckIntervalS: options.fullCheckIntervalS, onProgress: options.onProgress };
  const opened = open(roots, resolved.scopes, false, freshness);
  try {
    return answer(open, roots, query, options, resolved, opened);
  } catch (err) {
    if (!(err instanceof StaleCandidate)) throw err;
    // a file to be returned changed in place since the index saw it: check every file, answer again
    return answer(open, roots, query, options, resolved, open(roots, resolved.scopes, false, { ...freshness, full: true }));
  }
}

/** Ranks and reads one answer over opened indexes; throws {@link StaleCandidate} when they were only folder-checked and a read file differs. */
function answer(
  open: IndexOpener,
  roots: VaultRoots,
  query: string,
  options: SearchOptions,
  resolved: ReturnType<typeof resolveSearchOptions>,
  first: ReturnType<IndexOpener>,
): SearchResponse {
  const read = memoReader(roots, !first.full);
  try {
    return answerWith(read, open, roots, query, options, resolved, first);
  } finally {
    read.close();
  }
}

function answerWith(
  read: CandidateReader,
  open: IndexOpener,
  roots: VaultRoots,
  query: string,
  options: SearchOptions,
  { scopes, limit, filter }: ReturnType<typeof resolveSearchOptions>,
  first: ReturnType<IndexOpener>,
): SearchResponse {
  let opened = first;
  const terms = tokenizeQuery(query);
  const phrase = terms.length >= 2 && options.phrase !== false ? foldText(query).replace(/\s+/gu, ' ').trim() : '';
  // only a memory holding every word term of the query can hold the phrase (see phraseTerms)
  const required = phrase ? phraseTerms(phrase, terms) : undefined;
  let candidates: Ranked;
  const rank = (indexes: ScopeIndex[]): Ranked => {
    let ranked = query.trim() === '' ? listDocuments(indexes, filter) : rankDocuments(indexes, terms, filter, undefined, required);
    if (options.feedback !== false && terms.length >= FEEDBACK_MIN_TERMS && ranked.total > 0) {
      const expansion = feedbackTerms(read, indexes, ranked.top(FEEDBACK_DOCS), terms);
      if (expansion.size > 0) ranked = rankDocuments(indexes, [...terms, ...expansion.keys()], filter, expansion, required);
    }
    return ranked;
  };
  try {
    candidates = rank(opened.indexes);
  } catch (err) {
    if (!(err instanceof IndexUnusable)) throw err;
    // a bucket vanished or was damaged after the check: rebuild once from the files
    opened = open(roots, scopes, `a damaged bucket (${err.message})`, { full: true, onProgress: options.onProgress });
    candidates = rank(opened.indexes);
  }
  const total = candidates.total;
  const results: SearchHit[] = [];
  const stats = options.termStats ? termStatsOf(opened.indexes, terms) : undefined;
  const respond = (r: SearchHit[]): SearchResponse => ({ results: r, diagnostics: opened.diagnostics, total, ...(stats ? { termStats: stats } : {}) });
  if (query.trim() === '') {
    for (const c of inOrder(candidates, limit)) {
      const m = read(c.doc);
      if (m) results.push(toHit(c.doc, m, 0, terms));
      if (results.length >= limit) break;
    }
    return respond(results);
  }
  // the phrase boost can reorder the best few dozen; without a phrase the order is final
  const want = phrase ? Math.max(limit * 3, 30) : limit;
  // a candidate that cannot hold the phrase keeps its score: it is read only if it is returned
  const window: Array<{ c: Candidate; m: Memory | undefined }> = [];
  for (const c of inOrder(candidates, want)) {
    let m: Memory | undefined;
    let score = c.score;
    if (!phrase || c.hasRequired !== false) {
      m = read(c.doc);
      if (!m) continue;
      if (phrase) {
        if (holdsPhrase(foldText(m.title), phrase)) score *= PHRASE_IN_TITLE;
        else if (holdsPhrase(foldText(m.body).replace(/\s+/gu, ' '), phrase)) score *= PHRASE_IN_BODY;
      }
    }
    window.push({ c: { ...c, score }, m });
    if (window.length >= want) break;
  }
  window.sort((a, b) => compareCandidates(a.c, b.c));
  for (const { c, m } of window) {
    if (results.length >= limit) break;
    const memory = m ?? read(c.doc);
    if (memory) results.push(toHit(c.doc, memory, c.score, terms));
  }
  return respond(results);
}

/** A letter, digit or mark (made on first use: a Unicode property class costs its expansion, see tokenizer.ts). */
let wordChar: RegExp | undefined;
const APOSTROPHE = /^['\u2019]$/;

/**
 * True when `text` (folded) holds `phrase` (the folded query, spaces collapsed) as whole words:
 * at each end the neighbouring character is no letter, digit or mark, nor an apostrophe with a
 * letter, digit or mark beyond it (`week move` is not in "a week moved" nor in "a week, move" nor
 * in "the week move's"; it is in "this week move.", "week move-in" and "'week move'"). Next to a
 * character of a script written without spaces ({@link touchesUnspacedRun}) no boundary is needed.
 */
export function holdsPhrase(text: string, phrase: string): boolean {
  if (phrase === '') return false;
  const first = String.fromCodePoint(phrase.codePointAt(0)!);
  const last = lastCharOf(phrase.slice(-2));
  wordChar ??= /^[\p{L}\p{N}\p{M}]$/u;
  const isWord = (c: string) => c !== '' && wordChar!.test(c);
  // c: the character next to the match; beyond: the one after c, away from the match
  const joins = (c: string, beyond: string, edge: string) => {
    if (c === '' || touchesUnspacedRun(c) || touchesUnspacedRun(edge)) return false;
    return isWord(c) || (APOSTROPHE.test(c) && isWord(beyond));
  };
  for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
    const end = at + phrase.length;
    const before = lastCharOf(text.slice(Math.max(0, at - 2), at));
    const beforeThat = lastCharOf(text.slice(Math.max(0, at - before.length - 2), at - before.length));
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : '';
    const afterThat = end + after.length < text.length ? String.fromCodePoint(text.codePointAt(end + after.length)!) : '';
    if (!joins(before, beforeThat, first) && !joins(after, afterThat, last)) return true;
  }
  return false;
}

function lastCharOf(s: string): string {
  const chars = [...s];
  return chars[chars.length - 1] ?? '';
}

/**
 * The terms every memory that {@link holdsPhrase} must hold in its title or body: the query's
 * terms of single words (a compound such as `redis.cache` is left out: inside a longer compound of
 * the memory it is no term of its own). Words are split, folded, stemmed and dropped as stop words
 * the same way wherever they stand, so the words of the phrase give the memory these very terms
 * (a property test holds it). Undefined when the phrase holds a character of a script written
 * without spaces: the word segmenter splits such runs by their context.
 */
export function phraseTerms(phrase: string, terms: readonly string[]): string[] | undefined {
  if (touchesUnspacedRun(phrase)) return undefined;
  return terms.filter((t) => !/[_\-./:@#+~\\]/.test(t));
}

/** The memories of the indexes and the document frequency of each term (for prompt recall's relevance). */
function termStatsOf(indexes: readonly ScopeIndex[], terms: readonly string[]): { docs: number; df: Record<string, number> } {
  const docs = liveCount(indexes);
  const count = docFrequency(indexes);
  const df: Record<string, number> = {};
  for (const t of new Set(terms)) df[t] = count(t);
  return { docs, df };
}

/** Pseudo-relevance feedback (RM3-style): queries of 3+ terms are expanded with words of the top documents. */
const FEEDBACK_MIN_TERMS = 3;
const FEEDBACK_DOCS = 8;
const FEEDBACK_TERMS = 12;
const FEEDBACK_WEIGHT = 0.2;

/** Feedback words in more than this share of the memories say nothing about the topic (and cost most). */
const FEEDBACK_MAX_DF = 0.05;

/**
 * How many memories of the indexes contain `term`, from the bucket headers (no postings are
 * decoded). Counts the generation's documents, so a memory changed since the generation was
 * built may be counted as before the change: close enough for choosing feedback words.
 */
function docFrequency(indexes: readonly ScopeIndex[]): (term: string) => number {
  let texts: string[] | undefined;
  return (term) => {
    let df = 0;
    for (const ix of indexes) {
      const reader = ix.loadBucket(bucketOf(term));
      const i = reader.indexOf(term);
      if (i >= 0) df += reader.documentsWith(i);
    }
    // the overlays' documents, decoded once for every term asked
    texts ??= indexes.flatMap((ix) => Object.values(ix.overlay).flatMap((e) => ('doc' in e ? [overlayTermsText(e.doc.terms)] : [])));
    for (const text of texts) if (overlayHasTerm(text, term)) df++;
    return df;
  };
}

/**
 * A test for the terms more than `share` of the memories of `indexes` are known to hold without a
 * bucket read: those every generation with documents lists as common for at least that share
 * ({@link GenerationDocs.commonTerms}). Each holds it in more than `share` of its own documents,
 * so in all of them together, and the overlay only adds to the count. Undefined when a generation
 * lists none (written before the list was added, or only in memory) or none has documents.
 */
function commonEverywhere(indexes: readonly ScopeIndex[], share: number): ((term: string) => boolean) | undefined {
  const sets: Array<ReadonlySet<string>> = [];
  for (const ix of indexes) {
    if (ix.base.count === 0) continue;
    const s = ix.base.commonTerms(share);
    if (!s) return undefined;
    sets.push(s);
  }
  return sets.length === 0 ? undefined : (term) => sets.every((s) => s.has(term));
}

/**
 * The words that best characterise the top results: term-frequency share, summed with each
 * document's relative score, times inverse document frequency; the query's own terms and words in
 * more than {@link FEEDBACK_MAX_DF} of the memories are left out. Each is weighted for the second pass.
 */
function feedbackTerms(read: CandidateReader, indexes: readonly ScopeIndex[], top: readonly Candidate[], queryTerms: readonly string[]): Map<string, number> {
  const own = new Set(queryTerms);
  const weight = new Map<string, number>();
  const best = top[0]!.score || 1;
  for (const c of top) {
    const m = read(c.doc);
    if (!m) continue;
    const ts = tokenize(`${m.title} ${m.body}`).filter((t) => t.length >= 3 && !own.has(t));
    if (ts.length === 0) continue;
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) weight.set(t, (weight.get(t) ?? 0) + (n / ts.length) * (c.score / best));
  }
  const total = indexes.reduce((a, ix) => a + ix.base.count, 0) || 1;
  const df = docFrequency(indexes);
  const common = commonEverywhere(indexes, FEEDBACK_MAX_DF);
  const scored: Array<[string, number]> = [];
  // the strongest few dozen by frequency are the only ones worth a document-frequency lookup
  for (const [t, w] of [...weight].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, FEEDBACK_TERMS * 2)) {
    // listed as common in every generation: more than FEEDBACK_MAX_DF of the memories hold it (no bucket read)
    if (common?.(t)) continue;
    const n = df(t);
    if (n < 2 || n > FEEDBACK_MAX_DF * total) continue;
    scored.push([t, w * Math.log(total / n)]);
  }
  const chosen = scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, FEEDBACK_TERMS);
  return new Map(chosen.map(([t]) => [t, FEEDBACK_WEIGHT]));
}

/**
 * The candidates of `ranked`, best first: the best `first`, then twice as many each time the
 * caller wants more (a candidate whose file can no longer be read is skipped).
 */
function* inOrder(ranked: Ranked, first: number): Generator<Candidate> {
  let k = Math.max(1, first);
  let from = 0;
  for (;;) {
    const top = ranked.top(k);
    for (let i = from; i < top.length; i++) yield top[i]!;
    if (top.length < k || top.length >= ranked.total) return;
    from = top.length;
    k *= 2;
  }
}
