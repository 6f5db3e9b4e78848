/**
 * Turns text into search terms, the same way for documents and queries:
 *
 * - folding: NFKD, combining diacritics U+0300–U+036F removed, NFC, lowercase, so `Café`,
 *   `cafe`, NFC and NFD spellings and full-width letters meet (kana voicing marks are kept);
 * - words: runs of scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
 *   Myanmar) are split by `Intl.Segmenter` (word granularity); everything else splits at
 *   whitespace and punctuation with a regular expression, which is ~30× faster than the
 *   segmenter on Latin text and gives the same words there;
 * - code-ish tokens (`foo_bar`, `foo-bar`, `v2.1`, `src/a.ts`, `user@host`) are kept whole and
 *   also split into their parts;
 * - English stop words are dropped and plain lowercase ASCII words are Porter-stemmed.
 */
import { stemEnglish } from './stem-english.js';
import { STOP_WORDS } from './stop-words.js';

const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;

/** Case, accent, width and Unicode-normalisation folding used for every comparison. */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_DIACRITICS, '').normalize('NFC').toLowerCase();
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc\u3005]+/gu;
const CHUNK = /\S+/g;
const EDGE_PUNCT = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const NON_WORD = /[^\p{L}\p{N}]+/u;
/** separators that make a chunk a code-ish token kept whole: `_ - . / : @ # + ~ \` */
const CODE_SEPARATORS = /^[\p{L}\p{N}_\-./:@#+~\\]+$/u;
const APOSTROPHE_S = /['’]s$/u;
const APOSTROPHES = /['’]/gu;
const ASCII_WORD = /^[a-z]+$/;

let segmenter: Intl.Segmenter | undefined;

function wordTerm(word: string, out: string[]): void {
  if (STOP_WORDS.has(word)) return;
  out.push(ASCII_WORD.test(word) ? stemEnglish(word) : word);
}

function chunkTerms(chunk: string, out: string[]): void {
  let c = chunk.replace(EDGE_PUNCT, '');
  if (!c) return;
  c = c.replace(APOSTROPHE_S, '').replace(APOSTROPHES, '');
  const parts = c.split(NON_WORD).filter(Boolean);
  if (parts.length > 1 && CODE_SEPARATORS.test(c)) out.push(c);
  for (const p of parts) wordTerm(p, out);
}

function unspacedTerms(chunk: string, out: string[]): void {
  let last = 0;
  for (const m of chunk.matchAll(UNSPACED_RUN)) {
    if (m.index > last) chunkTerms(chunk.slice(last, m.index), out);
    segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
    for (const s of segmenter.segment(m[0])) if (s.isWordLike) out.push(s.segment);
    last = m.index + m[0].length;
  }
  if (last < chunk.length) chunkTerms(chunk.slice(last), out);
}

/**
 * Splits text into search terms (folded, stemmed, stop words dropped), in order and with
 * repetitions, so callers can count term frequencies.
 *
 * @param text any text (title, body, query); length is not limited
 * @returns the terms; empty for text with no words
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const folded = foldText(text);
  for (const m of folded.matchAll(CHUNK)) {
    const chunk = m[0];
    if (UNSPACED.test(chunk)) unspacedTerms(chunk, out);
    else chunkTerms(chunk, out);
  }
  return out;
}

/** The distinct terms of a query, in first-seen order. */
export function tokenizeQuery(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** True when a term is written in a script without spaces (a CJK word is already dense). */
export function isUnspacedTerm(term: string): boolean {
  return UNSPACED.test(term);
}
