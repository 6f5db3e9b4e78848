/**
 * The similar check's early stop (search/query/similar-memories.ts: outsideLimit, bodyPieces,
 * farFromBody): a candidate body is passed over after its first pieces only when the full
 * comparison would have found it not similar. Checked on random text (every script and character
 * class the tokenizer treats apart) and on near-identical bodies around the 0.9 threshold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize, tokenizeSkippingUnspaced } from '../../../src/search/analysis/tokenizer.js';
import { BODY_SIMILARITY, bodyPieces, farFromBody, outsideLimit, PIECE_CHARS } from '../../../src/search/query/similar-memories.js';

const rounded = (x: number): number => Math.round(x * 1000) / 1000;
function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Pieces of text the tokenizer treats apart: words, separators, apostrophes, accents, final sigma, CJK, compatibility forms, spaces. */
const FRAGMENTS = [
  'deploy',
  'Deploys',
  'went',
  'running',
  'the',
  'a',
  'redis',
  'cache',
  'x',
  '42',
  'v1.2',
  'foo_bar',
  'a-b',
  "user's",
  'don’t',
  'e\u0301',
  'café',
  'ΟΔΟΣ',
  'σ',
  'Σ',
  '\u0301',
  '\u00a8',
  'ﬁle',
  '\u00a0',
  'Ａｂｃ',
  '①',
  '漢字',
  'かな',
  'カタカナ',
  'ไทย',
  '\u30fc',
  '/',
  '.',
  "'",
  '#',
  ':',
  '@',
  ' ',
  ' ',
  ' ',
  '\n',
  '\n\n',
  '\t',
  'x'.repeat(70),
  'İ',
  'ß',
];
const text = (max: number) => fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: max }).map((xs) => xs.join(''));

describe('the similar check stops early only where the full comparison says not similar', () => {
  it('outsideLimit is the least count of outside terms whose bound rounds below the threshold', () => {
    for (let size = 0; size <= 2000; size++) {
      const x = outsideLimit(size);
      expect(rounded(size / (size + x))).toBeLessThan(BODY_SIMILARITY);
      if (x > 1) expect(rounded(size / (size + x - 1))).toBeGreaterThanOrEqual(BODY_SIMILARITY);
    }
  });

  it('pieces join back to the body, and their terms are exactly the terms of the whole body', () => {
    fc.assert(
      fc.property(text(400), (body) => {
        const pieces = [...bodyPieces(body)];
        expect(pieces.join('')).toBe(body);
        for (const p of pieces.slice(1)) expect(p[0] === ' ' || p[0] === '\n').toBe(true);
        const fromPieces = new Set(pieces.flatMap((p) => tokenizeSkippingUnspaced(p)));
        expect(fromPieces).toEqual(new Set(tokenizeSkippingUnspaced(body)));
        const all = new Set(tokenize(body));
        for (const t of fromPieces) expect(all.has(t)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('cuts long bodies into pieces of about PIECE_CHARS characters', () => {
    const body = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const pieces = [...bodyPieces(body)];
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces.slice(0, -1)) expect(p.length).toBeGreaterThanOrEqual(PIECE_CHARS);
  });

  it('a body passed over is never similar, by either comparison the check makes (random pairs, near-identical pairs)', () => {
    const pair = fc.oneof(
      fc.tuple(text(300), text(300)),
      // near-identical: the other body is this one with a few fragments changed, added or removed
      fc
        .tuple(
          fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 20, maxLength: 400 }),
          fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FRAGMENTS)), { maxLength: 8 }),
        )
        .map(([xs, edits]) => {
          const ys = [...xs];
          for (const [at, f] of edits) ys.splice(at % (ys.length + 1), at % 3 === 0 ? 1 : 0, f);
          return [xs.join(' '), ys.join(' ')] as [string, string];
        }),
    );
    let passed = 0;
    let kept = 0;
    fc.assert(
      fc.property(pair, ([mineText, other]) => {
        const mine = new Set(tokenize(mineText));
        if (!farFromBody(mine, outsideLimit(mine.size), other)) return void kept++;
        passed++;
        expect(rounded(jaccard(mine, new Set(tokenize(other))))).toBeLessThan(BODY_SIMILARITY);
        expect(rounded(jaccard(mine, new Set(tokenizeSkippingUnspaced(other))))).toBeLessThan(BODY_SIMILARITY);
      }),
      { numRuns: 1500 },
    );
    // both outcomes are exercised
    expect(passed).toBeGreaterThan(100);
    expect(kept).toBeGreaterThan(100);
  });

  it('a near-identical long body is not passed over, one just past the threshold is', () => {
    const words = Array.from({ length: 200 }, (_, i) => `term${i}q`);
    const mine = new Set(tokenize(words.join(' ')));
    const limit = outsideLimit(mine.size);
    // limit - 1 new words spread over a long body: still within the bound
    const within = [...words, ...Array.from({ length: limit - 1 }, (_, i) => `fresh${i}z`)].join(' ');
    expect(farFromBody(mine, limit, within)).toBe(false);
    const past = [...Array.from({ length: limit }, (_, i) => `fresh${i}z`), ...words].join(' ');
    expect(farFromBody(mine, limit, past)).toBe(true);
    expect(rounded(jaccard(mine, new Set(tokenize(past))))).toBeLessThan(BODY_SIMILARITY);
  });
});
