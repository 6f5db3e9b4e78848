/**
 * The phrase boost: a memory whose title or body holds the whole query as whole words ranks
 * higher, and a search reads only the candidates that can hold the phrase (those holding every
 * single-word term of the query) besides the ones it returns. The property below is what makes
 * skipping the others exact.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, tokenize, tokenizeQuery } from '../../../src/search/analysis/tokenizer.js';
import { holdsPhrase, phraseTerms } from '../../../src/search/query/search-memories.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMemory } from '../../../src/document/parse.js';
import { nodeRuntime } from '../../../src/io/runtime.js';
import { searchMemories } from '../../../src/search/query/search-memories.js';
import { resolveRoots } from '../../../src/store/roots.js';
import { cliEnv, gitRepo, runCli } from '../../helpers/cli.js';
import { memory, putMemories } from '../../helpers/search.js';

const phraseOf = (query: string) => foldText(query).replace(/\s+/gu, ' ').trim();

describe('holdsPhrase', () => {
  it('holds whole words only, next to spaces, punctuation, separators or the ends', () => {
    const p = phraseOf('Week Move');
    for (const t of [
      'week move',
      'this week move.',
      '(week move)',
      'a week move-in',
      'x.week move',
      'week move/plan',
      '"week move"',
      "'week move'",
      '\u2018week move\u2019',
      "'week move' ok",
    ])
      expect(holdsPhrase(t, p), t).toBe(true);
    for (const t of ['a week moved', 'biweek move', "week move's", "x'week move", 'week, move', 'weekmove', 'week  move', 'weeké move'.normalize('NFC')])
      expect(holdsPhrase(t, p), t).toBe(false);
    // after a later occurrence: the first inside a word, the second whole
    expect(holdsPhrase('weekmove week moves, then week move', p)).toBe(true);
    // scripts written without spaces need no boundary
    expect(holdsPhrase('我们的数据库 选择很好', phraseOf('数据库 选择'))).toBe(true);
    expect(holdsPhrase('abc', '')).toBe(false);
  });
});

describe('phraseTerms', () => {
  it('a text that holds the phrase holds every term phraseTerms names (so a search may skip the others)', () => {
    const word = fc.constantFrom(
      'week',
      'move',
      'moved',
      'the',
      "caroline's",
      'café',
      'CAFE',
      'redis',
      'x',
      'go',
      'went',
      'a1',
      'ﬁle',
      'Ｒedis',
      'b'.repeat(70),
    );
    const joiner = fc.constantFrom(' ', '  ', '\n', '.', '-', '/', '_', ', ', "'", '’', '#', ':', '', '(', ')', '!', '\t');
    const piece = fc.tuple(word, joiner).map(([w, j]) => w + j);
    const text = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 2, maxLength: 4 }), text, text, (q, pre, post) => {
        const query = q.join('');
        const terms = tokenizeQuery(query);
        const phrase = phraseOf(query);
        if (terms.length < 2 || phrase === '') return;
        const required = phraseTerms(phrase, terms);
        // the phrase placed in a text with random surroundings, as a body is checked (spaces collapsed)
        const body = foldText(`${pre}${query}${post}`).replace(/\s+/gu, ' ');
        if (!required || !holdsPhrase(body, phrase)) return;
        const have = new Set(tokenize(body));
        for (const t of required) expect(have.has(t), `${JSON.stringify(t)} of ${JSON.stringify(query)} in ${JSON.stringify(body)}`).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });

  it('leaves out compound terms, and gives none for a phrase of a script written without spaces', () => {
    const terms = tokenizeQuery('redis.cache policy');
    expect(terms).toContain('redis.cache');
    expect(phraseTerms(phraseOf('redis.cache policy'), terms)).toEqual(terms.filter((t) => t !== 'redis.cache'));
    expect(phraseTerms(phraseOf('数据库 选择'), tokenizeQuery('数据库 选择'))).toBeUndefined();
  });
});

describe('the phrase boost', () => {
  /** A vault of memories mixing the words "week" and "move", some holding "week move" as a phrase, some inside longer words. */
  function vault(seed: number) {
    const repo = gitRepo();
    const home = join(repo, 'home');
    const rt = nodeRuntime({ cwd: repo, env: { HOME: home, ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory') }, home });
    let x = seed;
    const rnd = (n: number) => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x % n;
    };
    const words = ['week', 'move', 'week move', 'biweek move', 'week movement', 'the', 'office', 'plan', 'moved', 'weeks'];
    const text = (n: number) => Array.from({ length: n }, () => words[rnd(words.length)]).join(rnd(3) ? ' ' : '. ');
    const ms = Array.from({ length: 60 }, (_, i) => memory({ title: `${text(1 + rnd(3))} ${i}`, body: text(3 + rnd(25)) }));
    putMemories(repo, ...ms);
    return { repo, rt, roots: resolveRoots(rt) };
  }

  it('gives what reading every candidate of the window gives (the rule applied to all), for random vaults and limits', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const { roots } = vault(seed);
      for (const limit of [1, 3, 10, 20]) {
        const got = await searchMemories(roots, 'week move', { limit });
        // the reference: the unboosted order's best max(3 × limit, 30), each read and boosted, sorted
        const plain = await searchMemories(roots, 'week move', { limit: 100, phrase: false });
        const window = plain.results.slice(0, Math.max(limit * 3, 30)).map((h) => {
          const m = parseMemory(readFileSync(join(roots.team, h.path.slice('team/'.length)))).memory;
          const boost = holdsPhrase(foldText(m.title), 'week move') ? 1.5 : holdsPhrase(foldText(m.body).replace(/\s+/gu, ' '), 'week move') ? 1.2 : 1;
          return { id: h.id, score: h.score * boost, updatedAt: h.updatedAt };
        });
        window.sort((a, b) => b.score - a.score || (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1));
        // the reference's scores are the printed ones (3 decimals) times the boost: equal up to rounding
        const want = window.slice(0, limit);
        expect(got.results.length, `seed ${seed}, limit ${limit}`).toBe(want.length);
        got.results.forEach((h, k) => {
          expect(Math.abs(h.score - want[k]!.score), `seed ${seed}, limit ${limit}, #${k}`).toBeLessThan(0.01);
        });
        const cutIsClear = window.length <= limit || want[want.length - 1]!.score - window[limit]!.score > 0.01;
        if (cutIsClear) expect(new Set(got.results.map((h) => h.id)), `seed ${seed}, limit ${limit}`).toEqual(new Set(want.map((h) => h.id)));
      }
    }
  });

  it('through the CLI: a memory holding the query as whole words is lifted; the words inside longer words lift nothing', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const phrase = memory({ title: 'Planning', body: 'We agreed on the week move for the office.' });
    const inWords = memory({ title: 'Planning too', body: 'A biweek move for the office, that week.' });
    putMemories(repo, phrase, inWords);
    const scores = async (...args: string[]) => {
      const r = await runCli(['search', ...args, '--json'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
      return new Map((JSON.parse(r.stdout) as { results: Array<{ id: string; score: number }> }).results.map((h) => [h.id, h.score]));
    };
    const withPhrase = await scores('week', 'move');
    // the same two terms in the other order: no phrase either memory holds
    const reversed = await scores('move', 'week');
    expect(withPhrase.get(phrase.id)! / reversed.get(phrase.id)!).toBeCloseTo(1.2, 2);
    expect(withPhrase.get(inWords.id)! / reversed.get(inWords.id)!).toBeCloseTo(1, 2);
  });
});
