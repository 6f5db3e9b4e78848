/**
 * Turns text into search terms, the same way for documents and queries:
 *
 * - folding: NFKD, combining diacritics U+0300–U+036F removed, NFC, lowercase, so `Café`,
 *   `cafe`, NFC and NFD spellings and full-width letters meet (kana voicing marks are kept);
 * - words: runs of scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
 *   Myanmar) are split by `Intl.Segmenter` (word granularity); everything else is split by one
 *   regular expression, ~30× faster than the segmenter on Latin text, with the same words there;
 * - code-ish tokens (`foo_bar`, `foo-bar`, `v2.1`, `src/a.ts`, `user@host`) are kept whole and
 *   also split into their parts;
 * - English stop words are dropped; irregular English verb forms fold to their base form
 *   (`went` → `go`); plain lowercase ASCII words are Porter-stemmed.
 */
import { irregularBase, irregularFormStarts } from './english-lemmas.js';
import { stemEnglish } from './stem-english.js';
import { STOP_WORDS } from './stop-words.js';

const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;

/** Case, accent, width and Unicode-normalisation folding used for every comparison. */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_DIACRITICS, '').normalize('NFC').toLowerCase();
}

/**
 * The Unicode expressions of the general path, made on first use: a Unicode property class
 * (\p{Script=Han}, \p{L}) is expanded when the expression is made, ~3 ms for these together on
 * the 2-core machine, which a search of ASCII text and ASCII query terms never needs.
 */
interface UnicodeExpressions {
  /** a character of a script written without spaces */
  unspaced: RegExp;
  /** a run of such characters (with the prolonged-sound mark and the iteration mark) */
  unspacedRun: RegExp;
  /** one character of such a run */
  unspacedRunChar: RegExp;
  /**
   * A word, possibly with inner apostrophes, possibly joined to more words by code-ish separators
   * (`_ - . / : @ # + ~ \`): `foo_bar`, `v2.1`, `src/a.ts`, `caroline's`.
   */
  word: RegExp;
  separator: RegExp;
  possessive: RegExp;
  apostrophes: RegExp;
}

let unicodeExpressions: UnicodeExpressions | undefined;

function unicode(): UnicodeExpressions {
  unicodeExpressions ??= {
    unspaced: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u,
    unspacedRun: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc\u3005]+/gu,
    unspacedRunChar: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc\u3005]/u,
    word: /[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*(?:[_\-./:@#+~\\]+[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*)*/gu,
    separator: /[_\-./:@#+~\\]+/u,
    possessive: /['\u2019]s(?=$|[_\-./:@#+~\\])/gu,
    apostrophes: /['\u2019]/gu,
  };
  return unicodeExpressions;
}

const ASCII_WORD = /^[a-z]+$/;

let segmenter: Intl.Segmenter | undefined;

/** Longer terms (base64 blobs, minified code) are cut to this many characters, in documents and queries alike. */
export const MAX_TERM_CHARS = 64;

/** Words the word cache ({@link wordTermOf}) holds at most before it starts again: a few megabytes. */
const WORD_TERMS_MAX = 65_536;
/**
 * The word cache: the term of a word ({@link termOfWord}'s answer, `null` for a stop word) for the
 * words met last, in an open-addressing table (linear probing, at most half full, a power of two
 * from 1,024 to twice {@link WORD_TERMS_MAX} slots) looked up by a range of a text, so the word
 * itself is never cut from the text when it is known (most words of a build are). Slot `i` is
 * `[2i]` the word (undefined: free) and `[2i + 1]` its term, side by side in memory.
 */
let wordCache: (string | null | undefined)[] = new Array<string | null | undefined>(2048).fill(undefined);
let cachedCount = 0;

/** The word cache's hash of `text[start, end)` (32-bit FNV-1a of the UTF-16 code units). */
function wordHash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** The free slot of hash `h` in the word cache. */
function freeSlot(h: number): number {
  const mask = (wordCache.length >> 1) - 1;
  let at = h & mask;
  while (wordCache[2 * at] !== undefined) at = (at + 1) & mask;
  return at;
}

/** Makes the word cache `slots` slots, its words kept. */
function resizeWordCache(slots: number): void {
  const old = wordCache;
  wordCache = new Array<string | null | undefined>(2 * slots).fill(undefined);
  for (let i = 0; i < old.length; i += 2) {
    const word = old[i];
    if (typeof word !== 'string') continue;
    const at = freeSlot(wordHash(word, 0, word.length));
    wordCache[2 * at] = word;
    wordCache[2 * at + 1] = old[i + 1];
  }
}

/**
 * A copy of `s` that holds its own characters. A string cut from a longer one (a regular
 * expression's match, a slice) of 13 or more characters may share that one's memory and keep it
 * alive as long as the piece is kept; shorter ones are copies already.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

function termOfWord(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  return ASCII_WORD.test(word) ? stemEnglish(irregularBase(word) ?? word) : word;
}

/**
 * The term of the word `text[start, end)` (at most {@link MAX_TERM_CHARS} characters), through the
 * word cache: a full build meets the same words again and again, and stemming each once per word
 * is most of the tokenizer's time otherwise (the answer depends on the word alone).
 */
function wordTermOf(text: string, start: number, end: number): string | null {
  const h = wordHash(text, start, end);
  const len = end - start;
  const cache = wordCache;
  const mask = (cache.length >> 1) - 1;
  for (let at = h & mask; ; at = (at + 1) & mask) {
    const w = cache[2 * at];
    if (w === undefined) break;
    if (w !== null && w.length === len) {
      let i = 0;
      while (i < len && w.charCodeAt(i) === text.charCodeAt(start + i)) i++;
      if (i === len) return cache[2 * at + 1] ?? null;
    }
  }
  const word = start === 0 && end === text.length ? text : text.slice(start, end);
  const t = termOfWord(word);
  if (cachedCount >= WORD_TERMS_MAX) {
    wordCache.fill(undefined);
    cachedCount = 0;
  } else if ((cachedCount + 1) * 2 > wordCache.length >> 1) resizeWordCache(wordCache.length);
  // kept words and terms are copies: a word cut from a text would keep that whole text alive
  const key = ownString(word);
  const term = t === word ? key : t === null ? null : ownString(t);
  const at = freeSlot(h);
  wordCache[2 * at] = key;
  wordCache[2 * at + 1] = term;
  cachedCount++;
  return term;
}

/** Pushes the term of the word `text[start, end)` (none for a stop word); a word longer than {@link MAX_TERM_CHARS} is cut. */
function wordTermRange(text: string, start: number, end: number, out: string[]): void {
  if (end - start > MAX_TERM_CHARS) {
    const word = text.slice(start, end);
    if (!STOP_WORDS.has(word)) out.push(word.slice(0, MAX_TERM_CHARS));
    return;
  }
  const t = wordTermOf(text, start, end);
  if (t !== null) out.push(t);
}

function wordTerm(word: string, out: string[]): void {
  wordTermRange(word, 0, word.length, out);
}

/** Decides whether a word (folded) is turned into its term; see {@link startingLike}. */
type KeepWord = (word: string) => boolean;

/** Words of text without unspaced scripts: one regular-expression pass. */
function spacedTerms(text: string, out: string[], keep?: KeepWord): void {
  const { word, possessive, apostrophes, separator } = unicode();
  for (const m of text.matchAll(word)) {
    let w = m[0];
    if (w.includes("'") || w.includes('’')) w = w.replace(possessive, '').replace(apostrophes, '');
    if (separator.test(w)) {
      if (!keep || keep(w)) out.push(w.length > MAX_TERM_CHARS ? w.slice(0, MAX_TERM_CHARS) : w);
      for (const p of w.split(separator)) if (p && (!keep || keep(p))) wordTerm(p, out);
    } else if (w && (!keep || keep(w))) wordTerm(w, out);
  }
}

/** Text of ASCII characters only: folding is lowercasing, and no word is in an unspaced script. */
const ASCII_TEXT = /^[\x00-\x7f]*$/;
/** The Unicode word expression ({@link UnicodeExpressions.word}) restricted to ASCII (letters and digits are the only \p{L}\p{N} there, no \p{M}); not a Unicode regex, so faster. */
const ASCII_WORD_RUN = /[a-z0-9]+(?:'[a-z0-9]+)*(?:[_\-./:@#+~\\]+[a-z0-9]+(?:'[a-z0-9]+)*)*/g;
const ASCII_SEPARATOR = /[_\-./:@#+~\\]+/;
const ASCII_POSSESSIVE = /'s(?=$|[_\-./:@#+~\\])/g;

/** {@link spacedTerms} for lowercased ASCII text: the same words, with ASCII-only expressions. */
function asciiTerms(text: string, out: string[], keep?: KeepWord): void {
  if (!keep) {
    asciiTermsScanned(text, out);
    return;
  }
  for (const m of text.matchAll(ASCII_WORD_RUN)) {
    let w = m[0];
    if (w.includes("'")) w = w.replace(ASCII_POSSESSIVE, '').replaceAll("'", '');
    if (ASCII_SEPARATOR.test(w)) {
      if (keep(w)) out.push(w.length > MAX_TERM_CHARS ? w.slice(0, MAX_TERM_CHARS) : w);
      for (const p of w.split(ASCII_SEPARATOR)) if (p && keep(p)) wordTerm(p, out);
    } else if (w && keep(w)) wordTerm(w, out);
  }
}

/** Character classes of {@link ASCII_WORD_RUN} by code (< 128): 1 a letter or digit, 2 a separator (`_ - . / : @ # + ~ \`), 0 anything else. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[a-z0-9]/.test(ch) ? 1 : /[_\-./:@#+~\\]/.test(ch) ? 2 : 0;
}

/**
 * {@link asciiTerms} without a `keep` filter, by one pass over the character codes instead of a
 * regular expression: the same words as {@link ASCII_WORD_RUN} (runs of letters and digits joined
 * by one apostrophe or by a run of separators, each followed by a letter or digit; the longest
 * such word from the first letter or digit on), the same terms. A plain word (no apostrophe, no
 * separator: most of them) is looked up in the word cache by its range, never cut from the text.
 */
function asciiTermsScanned(text: string, out: string[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (ASCII_CLASS[text.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    const start = i;
    let joined = false;
    i++;
    while (i < n && ASCII_CLASS[text.charCodeAt(i)] === 1) i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      let j: number;
      if (c === 39) j = i + 1;
      else if (ASCII_CLASS[c] === 2) {
        j = i + 1;
        while (j < n && ASCII_CLASS[text.charCodeAt(j)] === 2) j++;
      } else break;
      if (j >= n || ASCII_CLASS[text.charCodeAt(j)] !== 1) break;
      joined = true;
      i = j + 1;
      while (i < n && ASCII_CLASS[text.charCodeAt(i)] === 1) i++;
    }
    if (!joined) {
      wordTermRange(text, start, i, out);
      continue;
    }
    let w = text.slice(start, i);
    if (w.includes("'")) w = w.replace(ASCII_POSSESSIVE, '').replaceAll("'", '');
    if (ASCII_SEPARATOR.test(w)) {
      out.push(w.length > MAX_TERM_CHARS ? w.slice(0, MAX_TERM_CHARS) : w);
      for (const p of w.split(ASCII_SEPARATOR)) if (p) wordTerm(p, out);
    } else if (w) wordTerm(w, out);
  }
}

/**
 * Splits text into search terms (folded, stemmed, stop words dropped), in order and with
 * repetitions, so callers can count term frequencies. ASCII text takes a fast path (lowercasing
 * and ASCII-only expressions) that gives exactly the terms of the general path
 * ({@link tokenizeGeneral}; a property test holds them equal).
 *
 * @param text any text (title, body, query); length is not limited
 * @returns the terms; empty for text with no words
 */
export function tokenize(text: string): string[] {
  if (ASCII_TEXT.test(text)) {
    const out: string[] = [];
    asciiTerms(text.toLowerCase(), out);
    return out;
  }
  return tokenizeGeneral(text);
}

/** {@link tokenize} without the ASCII fast path: Unicode folding and expressions for any text. */
export function tokenizeGeneral(text: string): string[] {
  const out: string[] = [];
  foldedTerms(text, out, true);
  return out;
}

/**
 * The terms of any text, folded: spaced parts by one expression, runs of unspaced scripts by the
 * word segmenter (every run when `segment` is true, the runs it accepts when it is a function) or
 * skipped; `keep` as in {@link spacedTerms}.
 */
function foldedTerms(text: string, out: string[], segment: boolean | ((run: string) => boolean), keep?: KeepWord): void {
  const folded = foldText(text);
  const { unspaced, unspacedRun } = unicode();
  if (!unspaced.test(folded)) {
    spacedTerms(folded, out, keep);
    return;
  }
  let last = 0;
  for (const m of folded.matchAll(unspacedRun)) {
    if (m.index > last) spacedTerms(folded.slice(last, m.index), out, keep);
    if (segment === true || (segment !== false && segment(m[0]))) {
      // the segmenter is slow and superlinear on long input: give it only the unspaced run
      segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
      for (const s of segmenter.segment(m[0])) if (s.isWordLike) out.push(s.segment.slice(0, MAX_TERM_CHARS));
    }
    last = m.index + m[0].length;
  }
  if (last < folded.length) spacedTerms(folded.slice(last), out, keep);
}

/**
 * The terms of `text` that can equal or extend one of `queryTerms`: exactly the terms
 * {@link tokenize} gives whose first character is the first character of a query term (in order,
 * with repetitions), found without the work the others cost. A word's term starts with the word's
 * own first character (folding happens first; a Porter stem keeps the start of the word; a long
 * word is cut at its end), except an irregular verb form's (`went` → `go`): other words are not
 * stemmed. A run of a script written without spaces is segmented only when it holds the first
 * character of a query term (a segment is a piece of its run), so when no query term touches
 * such a run ({@link touchesUnspacedRun}) none is segmented (the segmenter's first use loads a
 * dictionary, ~20-40 ms).
 *
 * Used for excerpts (search/query/excerpt.ts), which look only for terms matching the query.
 */
export function termsStartingLike(text: string, queryTerms: readonly string[]): string[] {
  return startingLike(queryTerms)(text);
}

/**
 * {@link termsStartingLike} for one set of query terms, prepared once for many texts (the sentences
 * of a body). `segmentRun` narrows which runs of unspaced scripts are segmented (folded run in,
 * true to segment it; default: the runs holding a query term's first character): a caller that
 * keeps only terms containing a query term passes a test for that term inside the run, and the
 * terms of the runs it declines are left out.
 */
export function startingLike(queryTerms: readonly string[], segmentRun?: (run: string) => boolean): (text: string) => string[] {
  const firstPoints = new Set(queryTerms.map((q) => q.codePointAt(0)));
  // a segment is a piece of its run: a run without any query term's first character gives none that matters
  const segment = queryTerms.some(touchesUnspacedRun) ? (segmentRun ?? ((run: string) => holdsAnyPoint(run, firstPoints))) : false;
  const firsts = new Set(queryTerms.map((q) => q.charCodeAt(0)));
  // an irregular form's term starts as its base does: only forms of bases starting like a query term matter
  const formStarts = irregularFormStarts(firsts);
  const keep: KeepWord = (w) => {
    const c = w.charCodeAt(0);
    return firsts.has(c) || (formStarts.has(c) && irregularBase(w) !== undefined);
  };
  return (text) => {
    const out: string[] = [];
    if (ASCII_TEXT.test(text)) asciiTerms(text.toLowerCase(), out, keep);
    else foldedTerms(text, out, segment, keep);
    // an irregular form kept for its base may still start otherwise
    return out.filter((t) => firstPoints.has(t.codePointAt(0)));
  };
}

/** True when `text` holds one of the code points `points`. */
function holdsAnyPoint(text: string, points: ReadonlySet<number | undefined>): boolean {
  for (const ch of text) if (points.has(ch.codePointAt(0))) return true;
  return false;
}

/**
 * The terms {@link tokenize} gives, without those the word segmenter finds in runs of scripts
 * written without spaces (the runs are skipped, not segmented: the segmenter's first use loads a
 * dictionary, ~20-40 ms). A subset of `tokenize(text)`; every term left out touches such a run
 * ({@link touchesUnspacedRun}).
 */
export function tokenizeSkippingUnspaced(text: string): string[] {
  if (ASCII_TEXT.test(text)) return tokenize(text);
  const out: string[] = [];
  foldedTerms(text, out, false);
  return out;
}

/** True when a term holds a character of a run the segmenter splits (see {@link termsStartingLike}). */
export function touchesUnspacedRun(term: string): boolean {
  return !ASCII_TEXT.test(term) && unicode().unspacedRunChar.test(term);
}

/** The distinct terms of a query, in first-seen order. */
export function tokenizeQuery(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** True when a term is written in a script without spaces (a CJK word is already dense). */
export function isUnspacedTerm(term: string): boolean {
  return !ASCII_TEXT.test(term) && unicode().unspaced.test(term);
}
