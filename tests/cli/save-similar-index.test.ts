/**
 * What a save does with the index, as a user meets it through `vault save` and `vault search`:
 * the similar-memory check finds duplicates among many memories that share words (top-k over the
 * title and over a sketch spread across the body), and the saved file goes into the index overlay
 * directly, without relisting its folder, while a file another writer put beside it is still
 * found by the next search; with the writer's proof that its create was the folder's only change,
 * the folder is recorded as it now is.
 */
import { lstatSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { memory, putMemories } from '../helpers/search.js';
import { STATE_FILE, stateLine } from '../helpers/state-file.js';

const WORDS =
  'redis deploy cache session token rollback cluster sentinel queue worker retry timeout lease shard replica backup restore index vacuum migration'.split(' ');

/** A body of `n` words from a fixed list, varied by `seed`. */
function body(seed: number, n = 60): string {
  return Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * (seed % 5) + i) % WORDS.length]).join(' ');
}

async function save(repo: string, env: Record<string, string>, args: string[]) {
  const r = await runCli(['save', '--scope', 'team', ...args, '--json'], { cwd: repo, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { id: string; path: string; similar: Array<{ id: string; reason: string }> };
}

describe('vault save and the index', () => {
  it('finds a same-title memory and a near-identical body among 200 memories that share their words', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const many = Array.from({ length: 200 }, (_, i) => memory({ title: `Deploy notes for redis ${i}`, body: body(i) }));
    const exact = memory({ title: 'Deploy notes for redis', body: 'The one with the plain title.' });
    // a long body whose duplicate below changes its opening words only
    const long = `${Array.from({ length: 80 }, (_, i) => `word${i}x`).join(' ')} ${body(3)}`;
    const original = memory({ title: 'A long runbook', body: long });
    putMemories(repo, ...many, exact, original);
    expect((await runCli(['search', 'redis'], { cwd: repo, env })).code).toBe(0);

    const sameTitle = await save(repo, env, ['--title', 'deploy NOTES for Redis!', '--body', 'Something else entirely.']);
    expect(sameTitle.similar).toEqual([expect.objectContaining({ id: exact.id, reason: 'same-title' })]);

    const edited = `Changed opening ${long.split(' ').slice(2).join(' ')}`;
    const nearBody = await save(repo, env, ['--title', 'Another name', '--body', edited]);
    expect(nearBody.similar.map((s) => [s.id, s.reason])).toContainEqual([original.id, 'similar-body']);

    const none = await save(repo, env, ['--title', 'Unrelated', '--body', 'Nothing like the others at all.']);
    expect(none.similar).toEqual([]);
  });

  it('puts the saved file into the index overlay directly; a file written beside it by another writer is still found', async () => {
    const repo = gitRepo();
    const env = { ...cliEnv(), ECC_INDEX_FULL_CHECK_S: '3600' }; // only folder checks after the first
    putMemories(repo, memory({ title: 'Old one', body: 'An old memory.' }));
    expect((await runCli(['search', 'old'], { cwd: repo, env })).code).toBe(0);
    const dir = join(repo, '.git', 'ecc-memory-index', 'team');
    const foldersBefore = (stateLine(join(dir, STATE_FILE)) as { folders: unknown }).folders;

    const saved = await save(repo, env, ['--title', 'Fresh decision', '--body', 'Saved straight into the overlay.']);
    const state = stateLine(join(dir, STATE_FILE)) as {
      overlay: Record<string, { doc?: { id: string; mtime: number } }>;
      folders: unknown;
    };
    const rel = saved.path.slice('team/'.length);
    expect(state.overlay[rel]?.doc).toMatchObject({ id: saved.id, mtime: -1 });
    expect(state.folders).toEqual(foldersBefore); // the folder is not marked as seen: the next search lists it

    // another writer's file, in the same folder, that no save put into the index
    const other = memory({ title: 'Written by another tool', body: 'Beside the fresh decision.' });
    writeFileSync(join(repo, '.ecc', 'memory', 'team', 'notes', `${other.id}.md`), serializeMemory(other));
    const r = await runCli(['search', 'fresh', 'decision', 'another', 'tool', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((x) => x.id).sort()).toEqual([saved.id, other.id].sort());
  });

  it('with the proof that its create was the only change, records the folder as it now is: the next search neither lists it nor reads the file', async () => {
    const repo = gitRepo();
    const env = { ...cliEnv(), ECC_INDEX_FULL_CHECK_S: '3600' }; // only folder checks after the first
    putMemories(repo, memory({ title: 'Old one', body: 'An old memory.' }));
    const first = await save(repo, env, ['--title', 'First save', '--body', 'Makes the staging folder.']);
    const team = join(repo, '.ecc', 'memory', 'team');
    const notes = join(team, 'notes');
    // everything last changed long ago: the index records it as it is (not racy)
    const old = new Date(Date.now() - 3600_000);
    for (const p of [team, notes, join(notes, readdirSync(notes).find((n) => !first.path.endsWith(n))!), join(repo, '.ecc', 'memory', first.path)])
      utimesSync(p, old, old);
    expect((await runCli(['search', 'old'], { cwd: repo, env })).code).toBe(0);
    const stateFile = join(repo, '.git', 'ecc-memory-index', 'team', STATE_FILE);
    const read = () =>
      stateLine(stateFile) as {
        overlay: Record<string, { doc?: { id: string; mtime: number } }>;
        folders: Record<string, { mtime: number; ino: number }>;
      };
    expect(read().folders.notes?.mtime).toBe(lstatSync(notes).mtimeMs);

    const saved = await save(repo, env, ['--title', 'Fresh decision', '--body', 'Saved straight into the overlay.']);
    const rel = saved.path.slice('team/'.length);
    const file = lstatSync(join(repo, '.ecc', 'memory', saved.path));
    const state = read();
    expect(state.overlay[rel]?.doc).toMatchObject({ id: saved.id, mtime: file.mtimeMs });
    expect(state.folders.notes).toEqual({ mtime: lstatSync(notes).mtimeMs, ino: lstatSync(notes).ino });
    // the next search has nothing to check again: the state file is not rewritten
    const before = statSync(stateFile).mtimeMs;
    const found = await runCli(['search', 'fresh', 'decision', '--json'], { cwd: repo, env });
    expect((JSON.parse(found.stdout) as { results: Array<{ id: string }> }).results.map((x) => x.id)).toEqual([saved.id]);
    expect(statSync(stateFile).mtimeMs).toBe(before);

    // a later change to the folder is seen as before: another writer's file beside it
    const other = memory({ title: 'Written by another tool', body: 'Beside the fresh decision.' });
    writeFileSync(join(notes, `${other.id}.md`), serializeMemory(other));
    const r = await runCli(['search', 'fresh', 'decision', 'another', 'tool', '--json'], { cwd: repo, env });
    expect((JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((x) => x.id).sort()).toEqual([saved.id, other.id].sort());
  });

  it('a save over a damaged index state rebuilds it; search finds both memories', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = await save(repo, env, ['--title', 'First memory', '--body', 'Before any index exists.']);
    expect((await runCli(['search', 'memory', '--scope', 'team'], { cwd: repo, env })).code).toBe(0);
    writeFileSync(join(repo, '.git', 'ecc-memory-index', 'team', STATE_FILE), 'not json');
    const second = await save(repo, env, ['--title', 'Second memory', '--body', 'The index state is damaged.']);
    const r = await runCli(['search', 'memory', '--scope', 'team', '--json'], { cwd: repo, env });
    expect((JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((x) => x.id).sort()).toEqual([saved.id, second.id].sort());
  });
});
