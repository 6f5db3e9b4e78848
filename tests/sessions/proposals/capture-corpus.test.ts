/**
 * The labelled capture corpus stays what its builder says, and every label is grounded: the
 * transcripts parse, the key phrases occur in them, and the corpus covers both harnesses, both
 * languages, every kind and the negatives. (The extractor's quality over it is measured in
 * capture-quality.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

const KINDS = ['decision', 'lesson', 'runbook', 'preference', 'handoff'];

interface Excerpt {
  name: string;
  harness: 'claude-code' | 'codex';
  lang: 'en' | 'zh';
  expect: Array<{ kind: string; keyPhrase: string }>;
}

/** Every string value in a parsed record, depth-first. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') {
    out.push(v);
    // Codex keeps tool arguments and outputs as JSON inside a string.
    if (v.startsWith('{')) {
      try {
        strings(JSON.parse(v), out);
      } catch {
        /* plain text that starts with a brace */
      }
    }
  } else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? listFiles(join(dir, d.name)).map((f) => `${d.name}/${f}`) : [d.name]));
}

for (const [folder, minimum] of [
  ['capture', 40],
  ['capture-holdout', 10],
] as const) {
  describe(`capture corpus: tests/fixtures/${folder}`, async () => {
    const root = join(REPO, 'tests', 'fixtures', folder);
    const mod = (await import(join(root, 'build.mjs'))) as { EXCERPTS: Excerpt[]; corpusFiles: () => Record<string, string> };
    const files = mod.corpusFiles();

    it('the committed files are exactly what build.mjs writes', () => {
      const committed = listFiles(root).filter((f) => f.endsWith('.jsonl') || f.endsWith('.expected.json'));
      expect(committed.sort()).toEqual(Object.keys(files).sort());
      for (const [rel, content] of Object.entries(files)) expect(readFileSync(join(root, rel), 'utf8'), rel).toBe(content);
    });

    it(`has at least ${minimum} excerpts over both harnesses, both languages, every kind and negatives`, () => {
      const ex = mod.EXCERPTS;
      expect(ex.length).toBeGreaterThanOrEqual(minimum);
      expect(new Set(ex.map((e) => e.name)).size).toBe(ex.length);
      expect(new Set(ex.map((e) => e.harness))).toEqual(new Set(['claude-code', 'codex']));
      expect(new Set(ex.map((e) => e.lang))).toEqual(new Set(['en', 'zh']));
      for (const kind of KINDS)
        expect(
          ex.some((e) => e.expect.some((x) => x.kind === kind)),
          kind,
        ).toBe(true);
      expect(ex.filter((e) => e.expect.length === 0).length).toBeGreaterThanOrEqual(Math.min(5, Math.floor(minimum / 5)));
    });

    it('every line is a JSON record and every key phrase occurs in its transcript', () => {
      for (const e of mod.EXCERPTS) {
        const dir = e.harness === 'codex' ? 'codex' : 'claude';
        const text = readFileSync(join(root, dir, `${e.name}.jsonl`), 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        const records = text
          .slice(0, -1)
          .split('\n')
          .map((l) => JSON.parse(l) as unknown);
        for (const r of records) expect(typeof r === 'object' && r !== null && !Array.isArray(r)).toBe(true);
        const all = records
          .flatMap((r) => strings(r))
          .join('\n')
          .toLowerCase();
        for (const x of e.expect) {
          expect(KINDS, e.name).toContain(x.kind);
          expect(x.keyPhrase.trim().length, e.name).toBeGreaterThan(1);
          expect(all.includes(x.keyPhrase.toLowerCase()), `${e.name}: "${x.keyPhrase}"`).toBe(true);
        }
        const labels = JSON.parse(readFileSync(join(root, dir, `${e.name}.expected.json`), 'utf8'));
        expect(labels).toEqual(e.expect);
      }
    });
  });
}
