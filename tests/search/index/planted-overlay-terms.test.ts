/**
 * Hostile overlay terms in the state file (format 14: a JSON line, then one `\nterm\tf,f,f,f,f`
 * text per document, which the line points at by byte range): a planted text or range must never
 * crash a search (exit 70) nor steer its scores; it is rebuilt.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runBin } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';
import { plantOverlayDoc, STATE_FILE } from '../../helpers/state-file.js';

type Json = { results: Array<{ id: string; score: number }>; diagnostics: { index: Array<{ action: string }> } };

const statePath = (repo: string) => join(repo, '.git', 'ecc-memory-index', 'team', STATE_FILE);

/**
 * An overlay record for `m`'s file with its real fingerprint and the given encoded terms,
 * appended to the file's terms; `range` replaces the byte range the line gives them.
 */
function plantTerms(repo: string, m: ReturnType<typeof memory>, terms: string, range?: unknown): void {
  const st = statSync(memoryPath(repo, m));
  plantOverlayDoc(statePath(repo), `notes/${m.id}.md`, { size: st.size, mtime: st.mtimeMs, id: m.id }, terms, range);
}

describe('planted overlay terms in the state file', () => {
  const setup = async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const ms = [memory({ title: 'Widget alpha', body: 'widget rollout' }), memory({ title: 'Widget beta', body: 'widget rollback' })];
    putMemories(repo, ...ms);
    const search = () => runBin(['search', 'widget', '--scope', 'team', '--json'], { cwd: repo, env, timeoutMs: 30_000 });
    expect((await search()).code).toBe(0);
    return { repo, ms, search };
  };

  it('a terms string of 10^6 entries is rebuilt, not an internal error (exit 70)', async () => {
    const { repo, ms, search } = await setup();
    let terms = '\nwidget\t1,0,0,0,1';
    for (let i = 0; i < 1_000_000; i++) terms += `\nwx${i}\t1,0,0,0,1`;
    plantTerms(repo, ms[0]!, terms);
    const r = await search();
    expect(r.stderr).not.toMatch(/internal error|RangeError/);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
  }, 60_000);

  it('a frequency too large for a finite score is not trusted (no NaN score)', async () => {
    const { repo, ms, search } = await setup();
    plantTerms(repo, ms[0]!, `\nwidget\t${'9'.repeat(30)},9,9,9,${'9'.repeat(400)}`);
    const r = await search();
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
    for (const h of j.results) expect(Number.isFinite(h.score), JSON.stringify(h)).toBe(true);
  }, 60_000);

  it('a terms string longer than any memory could produce (600,000 terms sharing the query prefix) is rebuilt, not trusted by every search', async () => {
    const { repo, ms, search } = await setup();
    let terms = '\nwidget\t1,0,0,0,1';
    for (let i = 0; i < 600_000; i++) terms += `\nwi${i}\t1,0,0,0,1`;
    plantTerms(repo, ms[0]!, terms);
    const t0 = Date.now();
    const r = await search();
    const ms1 = Date.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
    // a 64 KiB body cannot hold 600,000 distinct terms: the record is planted
    expect(j.diagnostics.index.find((d) => (d as { scope?: string }).scope === 'team')?.action, `search took ${ms1} ms`).toBe('rebuilt');
  }, 60_000);

  it("a byte range that is not one of the file's terms is rebuilt: past the end, negative, fractional, not a pair", async () => {
    const { repo, ms, search } = await setup();
    for (const range of [[0, 10_000_000], [-1, 5], [0.5, 3], [0], '0,5', null, [0, 0], [1, 5]]) {
      plantTerms(repo, ms[0]!, '\nwidget\t1,0,0,0,1', range);
      const r = await search();
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as Json;
      expect(j.diagnostics.index.find((d) => (d as { scope?: string }).scope === 'team')?.action, JSON.stringify(range)).toBe('rebuilt');
      expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
    }
  }, 60_000);
  it("terms that overlap another document's, bytes no document points at, or a control character in a term are rebuilt", async () => {
    const line = '\nwidget\t1,0,0,0,1';
    const plants: Array<[string, (repo: string, ms: Array<ReturnType<typeof memory>>) => void]> = [
      // a second document whose range is the first one's bytes
      [
        'overlap',
        (repo, ms) => {
          plantTerms(repo, ms[0]!, line);
          plantTerms(repo, ms[1]!, '', [0, line.length]);
        },
      ],
      // bytes after the last document's terms
      ['unpointed bytes', (repo, ms) => plantTerms(repo, ms[0]!, `${line}\nextra\t1,0,0,0,1`, [0, line.length])],
      // a NUL or a carriage return inside a term the query reads
      ['NUL', (repo, ms) => plantTerms(repo, ms[0]!, '\nwidget\u0000x\t1,0,0,0,1')],
      ['CR', (repo, ms) => plantTerms(repo, ms[0]!, '\nwidget\r\t1,0,0,0,1')],
    ];
    for (const [what, plant] of plants) {
      const { repo, ms, search } = await setup();
      plant(repo, ms);
      const r = await search();
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as Json;
      expect(j.diagnostics.index.find((d) => (d as { scope?: string }).scope === 'team')?.action, what).toBe('rebuilt');
      expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
    }
  }, 60_000);
});
