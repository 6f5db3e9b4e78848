/**
 * Excerpts: the passage of a body that best matches the query, about 240 characters, cut at word
 * boundaries with an ellipsis where text was left out; and marking of the matched words, for
 * terminals (the CLI decides whether to mark: only on a TTY).
 */
import { startingLike, tokenize, touchesUnspacedRun } from '../analysis/tokenizer.js';

/** Target excerpt length in characters (UTF-16 units). */
export const EXCERPT_CHARS = 240;

const PASSAGE_END = /[.!?\u3002\uff01\uff1f\n]+\s*/gu;

/** The last query's {@link startingLike}, kept for the next body (a search makes one excerpt per hit). */
let last: { key: string; terms: (text: string) => string[] } | undefined;
function prepared(queryTerms: readonly string[]): (text: string) => string[] {
  const key = queryTerms.join('\u0000');
  if (last?.key !== key) {
    // a term matches only when it starts with a query term (termMatches), and a segment of an
    // unspaced run is a piece of it: only runs holding a whole query term need the segmenter
    const unspaced = queryTerms.filter(touchesUnspacedRun);
    last = { key, terms: startingLike(queryTerms, (run) => unspaced.some((q) => run.includes(q))) };
  }
  return last.terms;
}

function termMatches(term: string, query: ReadonlySet<string>): boolean {
  if (query.has(term)) return true;
  for (const q of query) if (q.length >= 3 && term.startsWith(q)) return true;
  return false;
}

/**
 * The best-matching passage of `body`, about {@link EXCERPT_CHARS} characters, whitespace collapsed.
 *
 * @param body the memory body (any length, up to 64 KiB)
 * @param queryTerms terms from {@link tokenize}; empty → the start of the body
 * @returns the excerpt, with `…` where text was cut
 */
export function makeExcerpt(body: string, queryTerms: readonly string[], maxChars = EXCERPT_CHARS): string {
  // whitespace runs: one line break where the run holds one (a passage ends there), else one space
  const raw = body
    .replace(/\s*\n\s*/gu, '\n')
    .replace(/[^\S\n]+/gu, ' ')
    .trim();
  const text = raw.replace(/\n/g, ' ');
  if (text.length <= maxChars) return text;
  let start = 0;
  if (queryTerms.length > 0) {
    const query = new Set(queryTerms);
    // only terms starting like a query term can match it (and are found without stemming the others)
    const terms = prepared(queryTerms);
    // passages: sentences and lines; score each with its neighbour so a short sentence still gets context
    const bounds: number[] = [0];
    for (const m of raw.matchAll(PASSAGE_END)) bounds.push(m.index + m[0].length);
    const flat = text;
    // each sentence is tokenized once; a window starting at sentence i scores that sentence and
    // the ones after it that end inside it: distinct query terms found first, then total hits
    const hitsOf = bounds.map((s, i) => (s >= flat.length ? [] : terms(flat.slice(s, bounds[i + 1] ?? flat.length)).filter((t) => termMatches(t, query))));
    let best = -1;
    for (let i = 0; i < bounds.length; i++) {
      const s = bounds[i]!;
      if (s >= flat.length) break;
      const found = new Set<string>();
      let hits = 0;
      // a later sentence counts only when it ends inside the window: one cut off at the window's
      // end would show none of its matched words
      for (let j = i; j < bounds.length && (j === i || (bounds[j + 1] ?? flat.length) <= s + maxChars); j++) {
        for (const t of hitsOf[j]!) found.add(t);
        hits += hitsOf[j]!.length;
      }
      const score = found.size * 100 + Math.min(hits, 99);
      if (score > best) {
        best = score;
        start = s;
      }
    }
    // start a little before the passage when that completes the window
    if (start + maxChars > flat.length) start = Math.max(0, flat.length - maxChars);
    return cutWindow(flat, start, maxChars);
  }
  return cutWindow(text, start, maxChars);
}

function cutWindow(text: string, start: number, maxChars: number): string {
  let s = start;
  if (s > 0) {
    const sp = text.lastIndexOf(' ', s);
    s = sp >= 0 && s - sp < 20 ? sp + 1 : s;
  }
  let e = Math.min(text.length, s + maxChars);
  if (e < text.length) {
    const sp = text.lastIndexOf(' ', e);
    if (sp > s + maxChars / 2) e = sp;
  }
  return `${s > 0 ? '…' : ''}${text.slice(s, e).trim()}${e < text.length ? '…' : ''}`;
}

/**
 * Wraps every word of `text` whose terms match the query with `mark` (e.g. bold on a terminal).
 *
 * @param mark called with each matched word; its result replaces the word
 */
export function markTerms(text: string, queryTerms: readonly string[], mark: (word: string) => string): string {
  if (queryTerms.length === 0) return text;
  const query = new Set(queryTerms);
  return text.replace(/[\p{L}\p{N}][\p{L}\p{N}\p{M}_'\u2019\-.]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu, (word) => {
    const terms = tokenize(word);
    if (terms.some((t) => termMatches(t, query))) return mark(word);
    // unspaced scripts: mark the query words found inside the run
    let out = word;
    for (const q of query) if (/[^\x00-\x7f]/.test(q) && out.includes(q)) out = out.split(q).join(mark(q));
    return out;
  });
}
