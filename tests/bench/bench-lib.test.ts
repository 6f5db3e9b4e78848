/**
 * The benchmark's own tools (scripts/bench/lib): the generated vault must be what
 * docs/benchmarks.md says it is (seeded, > 20,000 distinct words, Zipf, ~10 % CJK, valid
 * memories, words both rare and common enough for selective and broad queries), and the peak
 * memory of a child process must be read right both ways (GNU time and /proc polling).
 * The bench modules themselves are not run here: at the smallest size that exercises every state
 * (300 memories, one run each) 90-search.mjs takes 40–90 s.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../src/document/parse.js';
import { serializeMemory } from '../../src/document/serialize.js';
// @ts-expect-error plain JavaScript module without types
import { peakMemory } from '../../scripts/bench/lib/measure.mjs';
// @ts-expect-error plain JavaScript module without types
import { makeVocabulary, memoryStream } from '../../scripts/bench/lib/vault-gen.mjs';

type Stream = { next: () => { id: string; title: string; body: string; status: string }; df: Map<string, number> };

describe('bench vault generator', () => {
  it('has a vocabulary of more than 20,000 distinct words, some of them Chinese or Japanese, the same for the same seed', () => {
    const v = makeVocabulary(42) as { latin: string[]; cjk: string[] };
    const all = [...v.latin, ...v.cjk];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThan(20_000);
    expect(v.cjk.length).toBeGreaterThan(1000);
    expect(v.cjk.every((w) => /[\p{Script=Han}\p{Script=Katakana}]/u.test(w))).toBe(true);
    expect(makeVocabulary(42)).toEqual(v);
    expect((makeVocabulary(7) as { latin: string[] }).latin.slice(0, 50)).not.toEqual(v.latin.slice(0, 50));
  });

  it('writes valid memories, ~10 % mostly CJK, with Zipf word frequencies and both rare and common words', () => {
    const n = 1000;
    const s = memoryStream(42) as Stream;
    const ms = Array.from({ length: n }, () => s.next());
    expect((memoryStream(42) as Stream).next()).toEqual(ms[0]);
    for (const m of ms.slice(0, 50)) expect(parseMemory(serializeMemory(m as never)).memory.id).toBe(m.id);
    const cjk = ms.filter((m) => /[\p{Script=Han}\p{Script=Katakana}]/u.test(m.title)).length / n;
    expect(cjk).toBeGreaterThan(0.05);
    expect(cjk).toBeLessThan(0.16);
    const sizes = ms.map((m) => Buffer.byteLength(m.body));
    expect(Math.min(...sizes)).toBeGreaterThan(100);
    expect(Math.max(...sizes)).toBeLessThan(9000);
    // Zipf: the word of rank 1 is about 10 times as frequent as the word of rank 10
    const { latin } = makeVocabulary(42) as { latin: string[] };
    const count = (w: string) => ms.reduce((a, m) => a + (m.body.match(new RegExp(`(?<![\\w/-])${w}(?![\\w/-])`, 'gi'))?.length ?? 0), 0);
    const ratio = count(latin[0]!) / count(latin[9]!);
    expect(ratio).toBeGreaterThan(5);
    expect(ratio).toBeLessThan(20);
    const shares = [...s.df.values()].map((c) => c / n);
    expect(s.df.size).toBeGreaterThan(15_000);
    expect(shares.filter((x) => x > 0.5).length).toBeGreaterThan(2);
    expect(shares.filter((x) => x >= 0.005 && x <= 0.03).length).toBeGreaterThan(50);
  });
});

describe('bench peak memory', () => {
  const alloc = ['-e', 'const b = Buffer.alloc(160e6, 1); setTimeout(() => process.exit(b[0] - 1), 300)'];
  it.runIf(existsSync('/proc/self/status'))('reads a child process’s peak RSS by polling /proc', async () => {
    const r = await peakMemory(process.execPath, alloc, {}, { poll: true });
    expect(r.how).toMatch(/proc/);
    expect(r.peak).toBeGreaterThan(150e6);
    expect(r.peak).toBeLessThan(600e6);
  });
  it('reads it with GNU time when installed, and throws when the command fails', async () => {
    const r = await peakMemory(process.execPath, alloc);
    expect(r.peak).toBeGreaterThan(150e6);
    expect(r.peak).toBeLessThan(600e6);
    await expect(peakMemory(process.execPath, ['-e', 'process.exit(3)'])).rejects.toThrow(/exited 3/);
  });
});
