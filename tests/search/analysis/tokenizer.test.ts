import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { foldText, tokenize } from '../../../src/search/analysis/tokenizer.js';
import { stemEnglish } from '../../../src/search/analysis/stem-english.js';
import { makeExcerpt, markTerms } from '../../../src/search/query/excerpt.js';

describe('tokenizer', () => {
  it("regression: MiniSearch's default tokenizer cannot find a word inside unspaced Chinese; ours can", () => {
    const body = '我们使用数据库来存储会话';
    const plain = new MiniSearch({ fields: ['body'] });
    plain.add({ id: 1, body });
    expect(plain.search('数据库')).toHaveLength(0);
    const ours = new MiniSearch({ fields: ['body'], tokenize, processTerm: (t) => t });
    ours.add({ id: 1, body });
    expect(ours.search('数据库', { tokenize, processTerm: (t) => t }).map((r) => r.id)).toEqual([1]);
  });

  it('splits Chinese, Japanese and Thai into words', () => {
    expect(tokenize('我们使用数据库来存储会话')).toEqual(expect.arrayContaining(['使用', '存储', '会话']));
    expect(tokenize('セッションをRedisに保存します')).toEqual(expect.arrayContaining(['セッション', '保存']));
    expect(tokenize('ไม่มีช่องว่าง').length).toBeGreaterThan(1);
  });

  it('folds case, accents, NFC/NFD and full-width forms, but keeps kana voicing', () => {
    expect(foldText('Café')).toBe('cafe');
    expect(tokenize('cafe\u0301')).toEqual(tokenize('CAFÉ'));
    expect(tokenize('ＡＢＣ')).toEqual(['abc']);
    expect(foldText('が')).toBe('が');
  });

  it('keeps code-ish tokens whole and by parts', () => {
    const t = tokenize('see src/search/index.ts, foo_bar and foo-baz in v2.1');
    expect(t).toEqual(expect.arrayContaining(['src/search/index.ts', 'src', 'search', 'index', 'ts', 'foo_bar', 'foo', 'bar', 'foo-baz', 'baz', 'v2.1']));
  });

  it('drops English stop words and stems', () => {
    expect(tokenize('What did the painters paint?')).toEqual(['painter', 'paint']);
    expect(['painting', 'painted', 'paints'].map(stemEnglish)).toEqual(['paint', 'paint', 'paint']);
    expect(['relational', 'generalization', 'hopping', 'ponies'].map(stemEnglish)).toEqual(['relat', 'gener', 'hop', 'poni']);
  });

  it('folds irregular verb forms to their base form, in documents and queries alike', () => {
    expect(tokenize('She went home and bought bread; they had found it, we ran')).toEqual(tokenize('go home buy bread find it run'));
    expect(tokenize('WENT Gone')).toEqual(['go', 'go']);
    // not a verb form, not touched
    expect(tokenize('mountains')).toEqual(['mountain']);
  });
});

describe('excerpt', () => {
  it('shows the best passage of a long body with ellipses, and marks matched words', () => {
    const body = `${'Filler words about nothing at all. '.repeat(100)}The Redis session store keeps tokens for 14 days. ${'More filler here. '.repeat(50)}`;
    const ex = makeExcerpt(body, tokenize('redis session'));
    expect(ex.length).toBeLessThanOrEqual(242);
    expect(ex).toMatch(/^…/);
    expect(ex).toMatch(/…$/);
    expect(ex).toContain('Redis session store');
    expect(markTerms('The Redis sessions here', tokenize('redis session'), (w) => `[${w}]`)).toBe('The [Redis] [sessions] here');
  });

  it('returns a short body whole', () => {
    expect(makeExcerpt('  short\n body ', ['x'])).toBe('short body');
  });
});

describe('long tokens', () => {
  it('cuts terms to 64 characters, so a 64 KiB word neither bloats the index nor breaks fuzzy search', () => {
    const t = tokenize(`${'x'.repeat(65_536)} ok`);
    expect(t.map((x) => x.length)).toEqual([64, 2]);
  });
});

describe('ASCII fast path', () => {
  it('gives exactly the terms of the general path for any ASCII text', async () => {
    const fc = (await import('fast-check')).default;
    const { tokenizeGeneral } = await import('../../../src/search/analysis/tokenizer.js');
    const pieces = fc.constantFrom(
      ...'abcxyzABCXYZ0123456789'.split(''),
      ...` \t\n'_-./:@#+~\\!?,;()[]{}"\`$%^&*=<>|`.split(''),
      "'s",
      'the ',
      'running ',
      'went ',
      'Caroline',
      'foo_bar',
      'v2.1',
      'src/a.ts',
      'user@host',
      'x'.repeat(70),
    );
    const ascii = fc.oneof(
      fc.array(pieces, { maxLength: 40 }).map((p) => p.join('')),
      fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) }),
    );
    fc.assert(
      fc.property(ascii, (text) => {
        expect(tokenize(text)).toEqual(tokenizeGeneral(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('word cache', () => {
  it('finds the same terms for a word met again after many others (the word cache starts again when full)', () => {
    const letters = (i: number): string => (i < 26 ? '' : letters(Math.floor(i / 26) - 1)) + String.fromCharCode(97 + (i % 26));
    const words = Array.from({ length: 70_000 }, (_, i) => `${letters(i)}running`);
    const first = tokenize(words.join(' '));
    expect(tokenize(words.join(' '))).toEqual(first);
    expect(first.slice(0, 3)).toEqual(['arun', 'brun', 'crun']);
    expect(first.length).toBe(70_000);
  });
});

describe('terms starting like the query (excerpts)', () => {
  it('are exactly the terms of tokenize whose first character starts a query term, for mixed text and queries', async () => {
    const fc = (await import('fast-check')).default;
    const { termsStartingLike } = await import('../../../src/search/analysis/tokenizer.js');
    const pieces = fc.constantFrom(
      ...'abcXYZ019 .\n'.split(''),
      'running ',
      'went ',
      'bought ',
      'found ',
      'Café ',
      'foo_bar',
      'v2.1',
      "it's ",
      '東京',
      '日本語のテキストです。',
      'データー',
      '々',
      'ー',
      'กรุงเทพ',
      '한국어 ',
      'naïve',
      'ｆｕｌｌ',
      'x'.repeat(70),
    );
    const text = fc.array(pieces, { maxLength: 30 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, text, (body, query) => {
        const q = tokenize(query);
        const firsts = new Set(q.map((t) => t.codePointAt(0)));
        expect(termsStartingLike(body, q)).toEqual(tokenize(body).filter((t) => firsts.has(t.codePointAt(0))));
      }),
      { numRuns: 1500 },
    );
  });

  it('keep every term that starts with a query term when only the runs holding a whole query term are segmented (excerpts)', async () => {
    const fc = (await import('fast-check')).default;
    const { startingLike, touchesUnspacedRun } = await import('../../../src/search/analysis/tokenizer.js');
    const pieces = fc.constantFrom(
      '東京',
      '東',
      '京都',
      '日本語のテキストです。',
      'データー',
      'テキスト',
      'ー',
      '々',
      'กรุงเทพ',
      'kubernetes ',
      'kube ',
      '한국어 ',
      ' ',
      '。',
    );
    const text = fc.array(pieces, { maxLength: 25 }).map((p) => p.join(''));
    const matches = (q: readonly string[]) => (t: string) => q.includes(t) || q.some((x) => x.length >= 3 && t.startsWith(x));
    fc.assert(
      fc.property(text, text, (body, query) => {
        const q = tokenize(query);
        const unspaced = q.filter(touchesUnspacedRun);
        const narrowed = startingLike(q, (run) => unspaced.some((x) => run.includes(x)));
        expect(narrowed(body).filter(matches(q))).toEqual(tokenize(body).filter(matches(q)));
      }),
      { numRuns: 1000 },
    );
  });

  it('find the passage of a Latin query in a body of Chinese and Japanese, and of a Japanese query', () => {
    const body = `${'東京の天気は晴れです。'.repeat(10)}${'日本語のテキストです。'.repeat(30)} The kubernetes cluster was upgraded on Friday. ${'日本語のテキストです。'.repeat(30)}`;
    expect(makeExcerpt(body, tokenize('kubernetes upgrade'))).toContain('The kubernetes cluster was upgraded on Friday.');
    expect(makeExcerpt(body, tokenize('東京'))).toMatch(/^東京/);
  });
});

describe('excerpt whitespace', () => {
  it('collapses every whitespace run to one space, and ends passages at line breaks', async () => {
    const fc = (await import('fast-check')).default;
    const ws = fc.constantFrom(' ', '\n', '\t', '\r', '\u00a0', '\u2028', '  \n \n ');
    const word = fc.constantFrom('alpha', 'beta.', 'gamma!', 'delta', 'kubernetes');
    fc.assert(
      fc.property(fc.array(fc.oneof(ws, word), { maxLength: 200 }), (parts) => {
        const body = parts.join('');
        const e = makeExcerpt(body, ['kubernet']);
        expect(e).not.toMatch(/\s\s|\n/);
        if (body.replace(/\s+/gu, ' ').trim().length <= 240) expect(e).toBe(body.replace(/\s+/gu, ' ').trim());
      }),
      { numRuns: 500 },
    );
  });
});

describe('terms without segmenting unspaced runs (the similar check bound)', () => {
  it('are tokenize minus terms that touch an unspaced run, in order', async () => {
    const fc = (await import('fast-check')).default;
    const { tokenizeSkippingUnspaced, touchesUnspacedRun } = await import('../../../src/search/analysis/tokenizer.js');
    const pieces = fc.constantFrom(
      ...'abcXYZ019 .\n'.split(''),
      'running ',
      'Café ',
      'foo_bar',
      '東京',
      '日本語のテキストです。',
      'データー',
      '々',
      'ー',
      'กรุงเทพ',
      '한국어 ',
      'ｆｕｌｌ',
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 30 }).map((p) => p.join('')),
        (text) => {
          const all = tokenize(text);
          const skipped = tokenizeSkippingUnspaced(text);
          // a subsequence of tokenize's terms; whatever it leaves out touches an unspaced run
          let i = 0;
          const left: string[] = [];
          for (const t of all) {
            if (i < skipped.length && skipped[i] === t) i++;
            else left.push(t);
          }
          expect(i).toBe(skipped.length);
          expect(left.every(touchesUnspacedRun)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
