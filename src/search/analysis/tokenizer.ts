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

/** The term of a word ({@link wordTerm}'s answer, `null` for a stop word), for the words met last. */
const wordTerms = new Map<string, string | null>();
/** Words {@link wordTerms} holds at most before it starts again: a few megabytes. */
const WORD_TERMS_MAX = 65_536;

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

function wordTerm(word: string, out: string[]): void {
  if (word.length > MAX_TERM_CHARS) {
    if (!STOP_WORDS.has(word)) out.push(word.slice(0, MAX_TERM_CHARS));
    return;
  }
  // a full build meets the same words again and again: stemming each once per word is most of
  // the tokenizer's time otherwise (the answer depends on the word alone)
  let t = wordTerms.get(word);
  if (t === undefined) {
    t = termOfWord(word);
    if (wordTerms.size >= WORD_TERMS_MAX) wordTerms.clear();
    // kept words and terms are copies: a word cut from a text would keep that whole text alive
    const key = ownString(word);
    t = t === word ? key : t === null ? null : ownString(t);
    wordTerms.set(key, t);
  }
  if (t !== null) out.push(t);
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
  for (const m of text.matchAll(ASCII_WORD_RUN)) {
    let w = m[0];
    if (w.includes("'")) w = w.replace(ASCII_POSSESSIVE, '').replaceAll("'", '');
    if (ASCII_SEPARATOR.test(w)) {
      if (!keep || keep(w)) out.push(w.length > MAX_TERM_CHARS ? w.slice(0, MAX_TERM_CHARS) : w);
      for (const p of w.split(ASCII_SEPARATOR)) if (p && (!keep || keep(p))) wordTerm(p, out);
    } else if (w && (!keep || keep(w))) wordTerm(w, out);
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
 * word segmenter (`segment`) or skipped; `keep` as in {@link spacedTerms}.
 */
function foldedTerms(text: string, out: string[], segment: boolean, keep?: KeepWord): void {
  const folded = foldText(text);
  const { unspaced, unspacedRun } = unicode();
  if (!unspaced.test(folded)) {
    spacedTerms(folded, out, keep);
    return;
  }
  let last = 0;
  for (const m of folded.matchAll(unspacedRun)) {
    if (m.index > last) spacedTerms(folded.slice(last, m.index), out, keep);
    if (segment) {
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
 * stemmed. When no query term touches a run of a script written without spaces
 * ({@link touchesUnspacedRun}), such runs are skipped, not segmented (the segmenter's first use
 * loads a dictionary, ~20-40 ms), since none of their terms can match.
 *
 * Used for excerpts (search/query/excerpt.ts), which look only for terms matching the query.
 */
export function termsStartingLike(text: string, queryTerms: readonly string[]): string[] {
  return startingLike(queryTerms)(text);
}

/** {@link termsStartingLike} for one set of query terms, prepared once for many texts (the sentences of a body). */
export function startingLike(queryTerms: readonly string[]): (text: string) => string[] {
  const firstPoints = new Set(queryTerms.map((q) => q.codePointAt(0)));
  if (queryTerms.some(touchesUnspacedRun)) return (text) => tokenize(text).filter((t) => firstPoints.has(t.codePointAt(0)));
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
    else foldedTerms(text, out, false, keep);
    // an irregular form kept for its base may still start otherwise
    return out.filter((t) => firstPoints.has(t.codePointAt(0)));
  };
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
