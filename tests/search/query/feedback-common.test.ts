// The search's feedback pass (queries of 3+ words) leaves out words more than 5 % of the memories
// hold. docs.bin lists those words (`common` in its header), so feedback does not read a bucket to
// learn each one's document frequency. The list must only save work: the same answers with it and
// without it (a table written before it existed), and a planted one can skew feedback but never
// break a search.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/search/analysis/tokenizer.js';
import { cliEnv, gitRepo, runBin } from '../../helpers/cli.js';
import { withDocsHeader } from '../../helpers/docs-header.js';
import { memory, putMemories } from '../../helpers/search.js';
import { STATE_FILE, stateLine } from '../../helpers/state-file.js';

type Hit = { id: string; score: number };
type Json = { results: Hit[]; total: number; diagnostics: { index: Array<{ action: string; reason?: string }> } };

/** A new process each time: a process keeps the index generations it loaded, so only a new one reads a planted docs.bin. */
async function search(repo: string, env: Record<string, string>, query: string): Promise<Json> {
  const r = await runBin(['search', query, '--scope', 'team', '--json', '--limit', '20'], { cwd: repo, env });
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

function docsFile(repo: string): string {
  const dir = join(repo, '.git', 'ecc-memory-index', 'team');
  const gen = stateLine(join(dir, STATE_FILE)).generation as string;
  return join(dir, `g-${gen}`, 'docs.bin');
}

function header(repo: string): Record<string, unknown> {
  const bytes = readFileSync(docsFile(repo));
  return JSON.parse(bytes.toString('utf8', 12, 12 + bytes.readUInt32LE(8))) as Record<string, unknown>;
}

/** Rewrites docs.bin with its header edited. */
function editHeader(repo: string, edit: (h: Record<string, unknown>) => void): void {
  writeFileSync(docsFile(repo), withDocsHeader(readFileSync(docsFile(repo)), edit));
}

describe('feedback and the common words of docs.bin', () => {
  it('the same answers with the list and without it; a planted list only changes which words feedback adds', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // 200 memories hold "standup" (a common word); five share the query's words and "kiwifruit", a
    // word feedback picks up (8 memories of 200 hold it: under 5 %); three hold only "kiwifruit"
    const mems = Array.from({ length: 200 }, (_, i) => memory({ title: `Standup ${i}`, body: `standup notes number${i}` }));
    for (let i = 0; i < 5; i++) mems[i] = memory({ title: `Alpha beta gamma ${i}`, body: `alpha beta gamma kiwifruit standup ${i}` });
    const kiwiOnly = [5, 6, 7].map((i) => (mems[i] = memory({ title: `Fruit ${i}`, body: `kiwifruit standup ${i}` })));
    putMemories(repo, ...mems);
    const query = 'alpha beta gamma';

    const first = await search(repo, env, query);
    const common = header(repo).common as { share: number; terms: string[] };
    expect(common.share).toBe(0.05);
    expect(common.terms).toContain(tokenize('standup')[0]);
    expect(common.terms).not.toContain(tokenize('kiwifruit')[0]);
    // feedback added "kiwifruit": the memories holding only it are found too
    const ids = first.results.map((h) => h.id);
    expect(ids.slice(0, 5).sort()).toEqual(
      mems
        .slice(0, 5)
        .map((m) => m.id)
        .sort(),
    );
    for (const m of kiwiOnly) expect(ids).toContain(m.id);

    // the table as written before the list existed: every word's bucket is read, the same answer
    editHeader(repo, (h) => delete h.common);
    const without = await search(repo, env, query);
    expect(without.diagnostics.index[0]!.action).toBe('fresh');
    expect(without.results).toEqual(first.results);

    // a planted list naming the words feedback would add: it adds nothing, and the search still answers
    editHeader(repo, (h) => (h.common = { share: 0.05, terms: tokenize('kiwifruit number1 fruit') }));
    const planted = await search(repo, env, query);
    expect(planted.diagnostics.index[0]!.action).toBe('fresh');
    expect(planted.results.map((h) => h.id).sort()).toEqual(
      mems
        .slice(0, 5)
        .map((m) => m.id)
        .sort(),
    );

    // a list of another shape makes the table unusable: rebuilt, with the list again
    for (const bad of [{ share: 2, terms: [] }, { share: 0.05, terms: [1] }, ['standup'], { share: 0.05 }]) {
      editHeader(repo, (h) => (h.common = bad));
      const r = await search(repo, env, query);
      expect(r.diagnostics.index[0]!.action, JSON.stringify(bad)).toBe('rebuilt');
      expect(r.results).toEqual(first.results);
      expect((header(repo).common as { terms: string[] }).terms).toEqual(common.terms);
    }
  });
});
