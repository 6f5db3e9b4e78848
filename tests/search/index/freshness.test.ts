import { existsSync, readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, statSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../../src/document/serialize.js';
import { cliEnv, gitRepo, runBin, runCli } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';
import { editStateLine, STATE_FILE, stateLine } from '../../helpers/state-file.js';

type Json = {
  results: Array<{ id: string; title: string }>;
  diagnostics: { index: Array<{ scope: string; action: string; reason?: string; added: number; changed: number; removed: number }> };
  total: number;
};

async function search(repo: string, env: Record<string, string>, ...args: string[]): Promise<Json> {
  return searchWith(runCli, repo, env, ...args);
}

/**
 * `run`: runCli (in-process) or runBin (a new process each time: a process keeps the index
 * generations it loaded, as they are immutable, so only a new one meets damage planted on disk).
 */
async function searchWith(run: typeof runCli, repo: string, env: Record<string, string>, ...args: string[]): Promise<Json> {
  const r = await run(['search', ...args, '--scope', 'team', '--json'], { cwd: repo, env });
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

function teamIndex(repo: string): string {
  return join(repo, '.git', 'ecc-memory-index', 'team');
}

function generationDir(repo: string): string {
  const dir = teamIndex(repo);
  const gen = stateLine(join(dir, STATE_FILE)).generation;
  return join(dir, `g-${gen}`);
}

describe('index freshness (through the CLI)', () => {
  it('a bucket damaged where only the feedback pass reads it is rebuilt, not a crash', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // 60 memories; two share the query words and a rarer word that feedback picks up
    const mems = Array.from({ length: 60 }, (_, i) => memory({ title: `Filler ${i}`, body: `nothing special number${i}` }));
    mems[0] = memory({ title: 'Alpha beta gamma', body: 'alpha beta gamma kiwifruit' });
    mems[1] = memory({ title: 'Alpha beta gamma too', body: 'alpha beta gamma kiwifruit again' });
    putMemories(repo, ...mems);
    await search(repo, env, 'warm');
    const { bucketOf, bucketFileName } = await import('../../../src/search/index/index-format.js');
    const { tokenize } = await import('../../../src/search/analysis/tokenizer.js');
    const keep = new Set(tokenize('alpha beta gamma').map((t) => bucketFileName(bucketOf(t))));
    const damaged = bucketFileName(bucketOf(tokenize('kiwifruit')[0]!));
    expect(keep.has(damaged)).toBe(false);
    const gen = generationDir(repo);
    const size = statSync(join(gen, damaged)).size;
    writeFileSync(join(gen, damaged), Buffer.alloc(size, 0xff)); // same length, garbage
    const r = await search(repo, env, 'alpha beta gamma');
    expect(
      r.results
        .slice(0, 2)
        .map((h) => h.id)
        .sort(),
    ).toEqual([mems[0]!.id, mems[1]!.id].sort());
    expect(r.diagnostics.index[0]).toMatchObject({ action: 'rebuilt' });
    expect(r.diagnostics.index[0]!.reason).toMatch(/damaged bucket/);
  });

  it('follows edits, additions, deletions and renames made by hand, re-reading only what changed', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const a = memory({ title: 'Alpha decision', body: 'postgres everywhere' });
    const b = memory({ title: 'Beta lesson', body: 'mysql once' });
    putMemories(repo, a, b);
    const first = await search(repo, env, 'postgres');
    expect(first.results.map((h) => h.id)).toEqual([a.id]);
    expect(first.diagnostics.index[0]).toMatchObject({ action: 'rebuilt', reason: 'missing' });
    expect(readFileSync(join(teamIndex(repo), '.gitignore'), 'utf8')).toBe('*\n');
    expect((await search(repo, env, 'postgres')).diagnostics.index[0]!.action).toBe('fresh');

    // edit by hand: the body changes
    writeFileSync(memoryPath(repo, a), serializeMemory({ ...a, body: 'sqlite now' }));
    let r = await search(repo, env, 'postgres');
    expect(r.results).toEqual([]);
    expect(r.diagnostics.index[0]).toMatchObject({ action: 'refreshed', changed: 1, added: 0, removed: 0 });
    expect((await search(repo, env, 'sqlite')).results.map((h) => h.id)).toEqual([a.id]);

    // add by hand
    const c = memory({ title: 'Gamma', body: 'postgres is back' });
    putMemories(repo, c);
    r = await search(repo, env, 'postgres');
    expect(r.results.map((h) => h.id)).toEqual([c.id]);
    expect(r.diagnostics.index[0]).toMatchObject({ action: 'refreshed', added: 1 });

    // rename by hand (into a subfolder of the kind folder)
    mkdirSync(join(repo, '.ecc/memory/team/notes/archive'));
    renameSync(memoryPath(repo, c), join(repo, '.ecc/memory/team/notes/archive', `${c.id}.md`));
    r = await search(repo, env, 'postgres');
    expect(r.results.map((h) => h.id)).toEqual([c.id]);
    expect(r.diagnostics.index[0]).toMatchObject({ action: 'refreshed', added: 1, removed: 1 });
    const hit = (await runCli(['search', 'postgres', '--scope', 'team', '--json'], { cwd: repo, env })).stdout;
    expect(JSON.parse(hit).results[0].path).toBe(`team/notes/archive/${c.id}.md`);

    // delete by hand
    rmSync(memoryPath(repo, b));
    r = await search(repo, env, 'mysql');
    expect(r.results).toEqual([]);
    expect(r.diagnostics.index[0]).toMatchObject({ action: 'refreshed', removed: 1 });
  });

  it('rebuilds a deleted, truncated, garbage or old-format index and never fails the search', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const ms = Array.from({ length: 30 }, (_, i) => memory({ title: `Topic ${i}`, body: `shared keyword plus unique${i}` }));
    putMemories(repo, ...ms);
    const expectAll = async (why: RegExp) => {
      const r = await searchWith(runBin, repo, env, 'keyword', '--limit', '100');
      expect(r.total).toBe(30);
      expect(r.diagnostics.index[0]!.action).toBe('rebuilt');
      expect(r.diagnostics.index[0]!.reason).toMatch(why);
      expect((await search(repo, env, 'unique7')).results.map((h) => h.id)).toEqual([ms[7]!.id]);
    };
    await expectAll(/missing/);

    rmSync(teamIndex(repo), { recursive: true });
    await expectAll(/missing/);

    const state = join(teamIndex(repo), STATE_FILE);
    truncateSync(state, Math.floor(statSync(state).size / 2));
    await expectAll(/state\.bin is cut or garbage/);

    const docs = join(generationDir(repo), 'docs.bin');
    truncateSync(docs, Math.floor(statSync(docs).size / 2));
    await expectAll(/docs\.bin/);

    // a term bucket cut in half: found when the query needs it, then rebuilt from the files
    const gen = generationDir(repo);
    for (const f of readdirSync(gen).filter((n) => /^b\d+\.bin$/.test(n))) truncateSync(join(gen, f), Math.floor(statSync(join(gen, f)).size / 2));
    const r = await searchWith(runBin, repo, env, 'keyword', '--limit', '100');
    expect(r.total).toBe(30);
    expect(r.diagnostics.index[0]!.action).toBe('rebuilt');

    writeFileSync(state, '\u0000garbage{{{');
    await expectAll(/state\.bin is cut or garbage/);

    editStateLine(state, (s) => (s.format = 1));
    await expectAll(/format 1/);

    editStateLine(state, (s) => (s.generation = 'doesnotexist'));
    await expectAll(/missing/);
  });

  it('the state file of index format 13 (state.json) is rebuilt from and removed once older than the grace period', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    putMemories(repo, memory({ title: 'Legacy state', body: 'format thirteen' }));
    expect((await search(repo, env, 'thirteen')).total).toBe(1);
    const legacy = join(teamIndex(repo), 'state.json');
    writeFileSync(legacy, '{"format":13}');
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(legacy, old, old);
    const r = await runCli(['index', '--rebuild', '--scope', 'team', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(legacy)).toBe(false);
    expect((await search(repo, env, 'thirteen')).total).toBe(1);
  });

  it('a folder in place of the state file is replaced: one rebuild, not one per search', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    putMemories(repo, memory({ title: 'Folder state', body: 'planted folder' }));
    expect((await search(repo, env, 'planted')).total).toBe(1);
    const state = join(teamIndex(repo), STATE_FILE);
    rmSync(state);
    mkdirSync(join(state, 'sub'), { recursive: true });
    const first = await search(repo, env, 'planted');
    expect([first.total, first.diagnostics.index[0]!.action]).toEqual([1, 'rebuilt']);
    const second = await search(repo, env, 'planted');
    expect([second.total, second.diagnostics.index[0]!.action]).toEqual([1, 'fresh']);
    expect(statSync(state).isFile()).toBe(true);
  });

  it('two processes refreshing at once leave a consistent index', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    putMemories(repo, ...Array.from({ length: 40 }, (_, i) => memory({ title: `Item ${i}`, body: `concurrency test ${i}` })));
    await search(repo, env, 'concurrency');
    for (let round = 0; round < 3; round++) {
      putMemories(repo, memory({ title: `Round ${round}`, body: 'concurrency added later' }));
      // separate processes: the race is between processes
      const runs = await Promise.all([
        runBin(['search', 'concurrency', '--scope', 'team', '--json', '--limit', '100'], { cwd: repo, env }),
        runBin(['search', 'concurrency', '--scope', 'team', '--json', '--limit', '100'], { cwd: repo, env }),
        runBin(['index', '--scope', 'team', ...(round === 1 ? ['--rebuild'] : []), '--json'], { cwd: repo, env }),
      ]);
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      for (const r of runs.slice(0, 2)) expect(JSON.parse(r.stdout).total).toBe(41 + round);
    }
    const after = await search(repo, env, 'concurrency', '--limit', '100');
    expect(after.total).toBe(43);
    expect(after.diagnostics.index[0]!.action).toBe('fresh');
    const leftovers = readdirSync(teamIndex(repo)).filter((n) => n.startsWith('.tmp-'));
    expect(leftovers).toEqual([]);
    expect(existsSync(join(teamIndex(repo), STATE_FILE))).toBe(true);
  });

  it('with --root the index lives in a hidden folder of the vault that git ignores', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const m = memory({ title: 'Override root', body: 'elsewhere' });
    putMemories(repo, m);
    const r = await runCli(['search', 'elsewhere', '--root', '.ecc/memory', '--json'], { cwd: repo, env });
    expect(JSON.parse(r.stdout).results[0].id).toBe(m.id);
    expect(readFileSync(join(repo, '.ecc/memory/.index/team/.gitignore'), 'utf8')).toBe('*\n');
  });
  it('folder-level freshness: an in-place write is seen at once when returned, late when not, at once with --fresh or interval 0', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const quiet = memory({ title: 'Quiet one', body: 'nothing to see' });
    const loud = memory({ title: 'Loud one', body: 'marmalade everywhere' });
    putMemories(repo, quiet, loud);
    const age = () => {
      const past = new Date(Date.now() - 30_000);
      for (const d of ['.ecc/memory/team/notes', '.ecc/memory/team']) utimesSync(join(repo, d), past, past);
    };
    age();
    expect((await search(repo, env, 'marmalade')).total).toBe(1); // builds the index
    await search(repo, env, 'marmalade'); // the folders are recorded outside the racy window
    // an in-place write (same name, same folder: the folder's mtime does not move)
    const inPlace = (m: ReturnType<typeof memory>, body: string) => {
      writeFileSync(memoryPath(repo, m), serializeMemory({ ...m, body }));
      const past = new Date(Date.now() - 20_000);
      utimesSync(memoryPath(repo, m), past, past);
    };
    inPlace(quiet, 'now marmalade too');
    // late: the quiet memory was not returned, so the folder check trusts it
    expect((await search(repo, env, 'marmalade')).total).toBe(1);
    // --fresh checks every file
    expect((await search(repo, env, 'marmalade', '--fresh')).total).toBe(2);
    inPlace(quiet, 'nothing to see again');
    // a returned file that changed in place is caught by its fstat: full check, answered again
    const r = await search(repo, env, 'marmalade');
    expect(r.total).toBe(1);
    expect(r.results.map((h) => h.id)).toEqual([loud.id]);
    inPlace(quiet, 'marmalade once more');
    expect((await search(repo, { ...env, ECC_INDEX_FULL_CHECK_S: '0' }, 'marmalade')).total).toBe(2);
    // a create, a delete and a rename are seen at once (their folder changes)
    rmSync(memoryPath(repo, quiet));
    expect((await search(repo, env, 'marmalade')).total).toBe(1);
    renameSync(memoryPath(repo, loud), join(repo, '.ecc/memory/team/notes/renamed.md'));
    const renamed = await search(repo, env, 'marmalade');
    expect(renamed.results.map((h) => h.path)).toEqual(['team/notes/renamed.md']);
  });
});
