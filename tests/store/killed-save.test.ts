/**
 * Leftovers of a killed save (hardening item 3): the real binary is SIGKILLed at random and at
 * timed points while it saves. Its temporary files never land where git or the scanner look,
 * doctor reports what is left (a temporary file, a second hard link), and the next save removes
 * it after the grace period.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SWEEP_MARK } from '../../src/store/layout.js';
import { BIN, cliEnv, git, gitRepo, runBin, runCli, tempDir } from '../helpers/cli.js';

function killedSave(cwd: string, env: Record<string, string>, scope: string, afterMs: number, n: number): Promise<void> {
  return new Promise((res) => {
    const child = spawn(
      process.execPath,
      [BIN, 'save', '--scope', scope, '--title', `killed save ${n} at ${afterMs} ms`, '--body', `Killed mid-save (${n}).`],
      {
        cwd,
        env,
        stdio: 'ignore',
      },
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    child.on('close', () => {
      clearTimeout(timer);
      res();
    });
  });
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true }).map(String).sort();
  } catch {
    return [];
  }
}

describe('a killed save', () => {
  it('leaves nothing git or the scanner sees; doctor reports leftovers; the next save removes them after the grace period', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // the start-up time of the binary, so that timed kills land inside the write
    const t0 = Date.now();
    expect((await runBin(['save', '--scope', 'team', '--title', 'warm-up', '--body', 'First.'], { cwd: repo, env })).code).toBe(0);
    const full = Date.now() - t0;
    // each killed save has its own title and body: two that both finish must not be one memory
    // saved twice (doctor's duplicate-memory warning; random delays can repeat)
    const delays: number[] = [];
    for (let i = 0; i < 24; i++) delays.push(i < 12 ? Math.floor(Math.random() * full * 1.2) : Math.floor(full * (0.6 + (i - 12) * 0.04)));
    for (let i = 0; i < delays.length; i += 4)
      await Promise.all(delays.slice(i, i + 4).map((d, j) => killedSave(repo, env, j % 2 ? 'team' : 'project', d, i + j)));
    const mem = join(repo, '.ecc/memory');
    // no temporary file in any kind folder, none staged by git
    for (const scope of ['team', 'project'])
      for (const f of filesIn(join(mem, scope))) if (!f.startsWith('.staging')) expect(f, `${scope}/${f}`).not.toMatch(/\.tmp$/);
    git(repo, 'add', '-A');
    const staged = git(repo, 'diff', '--cached', '--name-only').trim().split('\n');
    // memories and the project scope's own fail-closed .gitignore, nothing else
    for (const p of staged) expect(p).toMatch(/^\.ecc\/memory\/(team\/notes\/mem_[a-z0-9_]+\.md|project\/\.gitignore)$/);
    // every memory that appeared is whole
    const doctor = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    // the project folder appears with its fail-closed .gitignore inside (made in staging, renamed
    // into place): no kill leaves it without one
    if (filesIn(mem).includes('project')) expect(filesIn(join(mem, 'project'))).toContain('.gitignore');
    expect(doctor.problems.filter((p: { code: string }) => p.code !== 'save-leftover')).toEqual([]);
    // doctor names every leftover in the staging folders
    const left = ['team', 'project'].flatMap((s) =>
      filesIn(join(mem, s, '.staging'))
        .filter((f) => f !== '.gitignore' && !SWEEP_MARK.test(f))
        .map((f) => `${s}/.staging/${f}`),
    );
    const reported = doctor.problems.filter((p: { code: string }) => p.code === 'save-leftover').map((p: { path: string }) => p.path);
    for (const p of left) expect(reported).toContain(p);
    // a leftover younger than the grace period stays; an older one is removed by the next save
    for (const p of left) {
      const old = new Date(Date.now() - 11 * 60_000);
      utimesSync(join(mem, p), old, old);
    }
    for (const scope of ['team', 'project'])
      expect((await runCli(['save', '--scope', scope, '--title', `after ${scope}`, '--body', 'Cleans up.'], { cwd: repo, env })).code).toBe(0);
    for (const scope of ['team', 'project']) expect(filesIn(join(mem, scope, '.staging')).filter((f) => !SWEEP_MARK.test(f))).toEqual(['.gitignore']);
    const after = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(after.problems).toEqual([]);
    for (const f of filesIn(join(mem, 'team/notes'))) expect(statSync(join(mem, 'team/notes', f)).nlink).toBe(1);
  }, 60_000);

  it('a kill right after the project folder appears never leaves it without its .gitignore (every creating call)', async () => {
    // a preload that SIGKILLs the save the instant a folder named "project" is made or renamed into place
    const preload = join(tempDir('vault-kill-preload-'), 'kill.cjs');
    writeFileSync(
      preload,
      `const fs = require('node:fs');
for (const name of ['mkdirSync', 'renameSync']) {
  const real = fs[name];
  fs[name] = function (...args) {
    const out = real.apply(this, args);
    const made = String(name === 'renameSync' ? args[1] : args[0]);
    if (/\\/project$/.test(made)) process.kill(process.pid, 'SIGKILL');
    return out;
  };
}
require('node:module').syncBuiltinESMExports();
`,
    );
    for (const kind of ['note', 'decision']) {
      const repo = gitRepo();
      const r = spawnSync(process.execPath, ['-r', preload, BIN, 'save', '--scope', 'project', '--kind', kind, '--title', 'killed', '--body', 'Killed.'], {
        cwd: repo,
        env: cliEnv(),
        encoding: 'utf8',
      });
      expect(r.signal, r.stderr).toBe('SIGKILL'); // the folder was made: the kill happened
      const project = join(repo, '.ecc/memory/project');
      expect(readdirSync(project)).toContain('.gitignore');
      expect(readFileSync(join(project, '.gitignore'), 'utf8')).toBe('*\n!.gitignore\n');
      git(repo, 'add', '-A');
      expect(git(repo, 'diff', '--cached', '--name-only').trim()).toBe('.ecc/memory/project/.gitignore');
      // and the next save goes through
      expect((await runBin(['save', '--scope', 'project', '--title', 'after', '--body', 'Fine.'], { cwd: repo, env: cliEnv() })).code).toBe(0);
    }
  });

  it("a kill right after a staging folder's .gitignore appears leaves it whole, in a repository or not; one that is not what a save writes is replaced", async () => {
    // a preload that SIGKILLs the save the instant a staging folder's .gitignore is made
    const preload = join(tempDir('vault-kill-preload-'), 'kill.cjs');
    writeFileSync(
      preload,
      `const fs = require('node:fs');
// (paths go through folder handles, /proc/self/fd/N/.gitignore: the first .gitignore a save makes
// is its staging folder's, created in place (before) or renamed from a temporary file in the git
// dir or in the staging folder)
for (const name of ['openSync', 'renameSync']) {
  const real = fs[name];
  fs[name] = function (...args) {
    const out = real.apply(this, args);
    const made = name === 'openSync' ? (args[1] & fs.constants.O_EXCL) !== 0 && /\\/\\.gitignore$/.test(String(args[0]))
      : /\\/(ecc-memory-)?\\d+-[0-9a-f]+\\.tmp$/.test(String(args[0])) && /\\/\\.gitignore$/.test(String(args[1]));
    if (made) process.kill(process.pid, 'SIGKILL');
    return out;
  };
}
require('node:module').syncBuiltinESMExports();
`,
    );
    const killed = (cwd: string, scope: string) => {
      const r = spawnSync(process.execPath, ['-r', preload, BIN, 'save', '--scope', scope, '--title', 'killed', '--body', 'Killed.'], {
        cwd,
        env: cliEnv(),
        encoding: 'utf8',
      });
      expect(r.signal, r.stderr).toBe('SIGKILL'); // the .gitignore was made: the kill happened
    };
    // in a repository: the team scope's staging folder, then the memory root's (made for the
    // project folder's creation); each .gitignore appears whole and git sees nothing
    const repo = gitRepo();
    killed(repo, 'team');
    killed(repo, 'project');
    for (const dir of ['.ecc/memory/team/.staging', '.ecc/memory/.staging']) expect(readFileSync(join(repo, dir, '.gitignore'), 'utf8'), dir).toBe('*\n');
    git(repo, 'add', '-A');
    expect(git(repo, 'diff', '--cached', '--name-only').trim()).toBe('');
    // nothing of the seed is left in the git dir
    expect(readdirSync(join(repo, '.git')).filter((f) => f.startsWith('ecc-memory-') && f.endsWith('.tmp'))).toEqual([]);
    // without a repository it is written whole in the staging folder and renamed: whole too
    const folder = tempDir('vault-nogit-');
    mkdirSync(join(folder, '.ecc/memory'), { recursive: true });
    killed(folder, 'team');
    const ignore = join(folder, '.ecc/memory/team/.staging/.gitignore');
    expect(readFileSync(ignore, 'utf8')).toBe('*\n');
    // one that is not what a save writes (empty, as an older version's kill left it; other
    // content; a link to a file elsewhere; a second hard link) is replaced by the next save, and
    // the file elsewhere is left as it was
    const inRepo = join(repo, '.ecc/memory/team/.staging/.gitignore');
    const elsewhere = join(tempDir('vault-elsewhere-'), 'f');
    const plants: Array<[string, () => void]> = [
      ['empty', () => writeFileSync(inRepo, '')],
      ['other content', () => writeFileSync(inRepo, '*.md\n')],
      [
        'a link',
        () => {
          writeFileSync(elsewhere, 'outside\n');
          symlinkSync(elsewhere, inRepo);
        },
      ],
      [
        'a second hard link',
        () => {
          writeFileSync(elsewhere, '*\n');
          linkSync(elsewhere, inRepo);
        },
      ],
    ];
    for (const [what, plant] of plants) {
      rmSync(inRepo, { force: true });
      plant();
      const before = existsSync(elsewhere) ? readFileSync(elsewhere, 'utf8') : undefined;
      expect((await runBin(['save', '--scope', 'team', '--title', `after ${what}`, '--body', 'Fine.'], { cwd: repo, env: cliEnv() })).code).toBe(0);
      const st = lstatSync(inRepo);
      expect([st.isFile(), st.nlink, readFileSync(inRepo, 'utf8')], what).toEqual([true, 1, '*\n']);
      if (before !== undefined) expect(readFileSync(elsewhere, 'utf8')).toBe(before);
      rmSync(elsewhere, { force: true });
    }
    git(repo, 'add', '-A');
    for (const p of git(repo, 'diff', '--cached', '--name-only').trim().split('\n')) expect(p).toMatch(/^\.ecc\/memory\/team\/notes\/mem_[a-z0-9_]+\.md$/);
  });

  it('a kind folder is listed for leftovers at most once every 10 minutes while .staging/ is usable, at every save without it', async () => {
    const repo = gitRepo();
    const env = { ...cliEnv(), ECC_VAULT_SERVER: 'off' };
    const save = async (title: string) =>
      expect((await runBin(['save', '--scope', 'team', '--title', title, '--body', `Body of ${title}.`], { cwd: repo, env })).code).toBe(0);
    const team = join(repo, '.ecc/memory/team');
    const mark = join(team, '.staging', '.swept-notes');
    const leftover = join(team, 'notes', '.ecc-memory-123-abcdef.tmp');
    const eleven = () => new Date(Date.now() - 11 * 60_000);
    const plant = () => {
      writeFileSync(leftover, '');
      utimesSync(leftover, eleven(), eleven());
    };
    await save('first'); // makes the folders, lists the kind folder, leaves the mark
    expect(Math.abs(statSync(mark).mtimeMs - Date.now())).toBeLessThan(60_000);
    plant();
    await save('second'); // the mark is fresh: the kind folder is not listed
    expect(readdirSync(join(team, 'notes'))).toContain('.ecc-memory-123-abcdef.tmp');
    // doctor reports the leftover, never the mark, and says when a save removes it
    const doctor = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(doctor.problems.map((p: { code: string; path: string }) => `${p.code} ${p.path}`)).toEqual(['save-leftover team/notes/.ecc-memory-123-abcdef.tmp']);
    expect(doctor.problems[0].hint).toContain('after 10 to 20 minutes');
    utimesSync(mark, eleven(), eleven());
    await save('third'); // due: listed, the leftover removed, the mark renewed
    expect(readdirSync(join(team, 'notes'))).not.toContain('.ecc-memory-123-abcdef.tmp');
    expect(Math.abs(statSync(mark).mtimeMs - Date.now())).toBeLessThan(60_000);
    // a mark that is a hard link to a file elsewhere: its time is never set, the name is replaced
    const outside = join(tempDir('vault-outside-'), 'f');
    writeFileSync(outside, 'not ours');
    utimesSync(outside, eleven(), eleven());
    const { linkSync, rmSync: rm } = await import('node:fs');
    rm(mark);
    linkSync(outside, mark);
    await save('third-and-a-half');
    expect(Math.abs(statSync(outside).mtimeMs - eleven().getTime())).toBeLessThan(60_000);
    expect(readFileSync(outside, 'utf8')).toBe('not ours');
    await save('third-and-three-quarters');
    expect(statSync(mark).nlink).toBe(1);
    // a mark dated in the future (a clock set back) counts as due
    plant();
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(mark, future, future);
    await save('fourth');
    expect(readdirSync(join(team, 'notes'))).not.toContain('.ecc-memory-123-abcdef.tmp');
    // without a usable staging folder (a file in its place) every save lists the kind folder
    const { rmSync } = await import('node:fs');
    rmSync(join(team, '.staging'), { recursive: true });
    writeFileSync(join(team, '.staging'), '');
    plant();
    await save('fifth');
    expect(readdirSync(join(team, 'notes'))).not.toContain('.ecc-memory-123-abcdef.tmp');
  }, 60_000);

  it('a seed a killed save left in the git dir is removed when a save lists its kind folder, once older than the grace period', async () => {
    const repo = gitRepo();
    const env = { ...cliEnv(), ECC_VAULT_SERVER: 'off' };
    const save = async (title: string) =>
      expect((await runBin(['save', '--scope', 'team', '--title', title, '--body', `Body of ${title}.`], { cwd: repo, env })).code).toBe(0);
    await save('first');
    const eleven = new Date(Date.now() - 11 * 60_000);
    const seeds = ['ecc-memory-123-abcdef.tmp', 'ecc-memory-124-abcdef.tmp'].map((f) => join(repo, '.git', f));
    for (const f of seeds) writeFileSync(f, '*\n');
    utimesSync(seeds[0]!, eleven, eleven); // the other is young: a save in progress may still rename it
    const mark = join(repo, '.ecc/memory/team/.staging/.swept-notes');
    utimesSync(mark, eleven, eleven); // the kind folder's listing is due
    await save('second');
    expect(seeds.map((f) => existsSync(f))).toEqual([false, true]);
  });

  it('doctor reports a fallback temp file in a kind folder and a memory with a second hard link', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = JSON.parse((await runCli(['save', '--scope', 'team', '--title', 'linked twice', '--body', 'Body.', '--json'], { cwd: repo, env })).stdout);
    const notes = join(repo, '.ecc/memory/team/notes');
    const { linkSync, writeFileSync } = await import('node:fs');
    writeFileSync(join(notes, '.ecc-memory-123-abcdef.tmp'), '');
    linkSync(join(notes, `${saved.id}.md`), join(repo, 'second-link.md'));
    const r = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(r.problems.map((p: { code: string; path: string }) => `${p.code} ${p.path}`).sort()).toEqual([
      'save-leftover team/notes/.ecc-memory-123-abcdef.tmp',
      `save-leftover team/notes/${saved.id}.md`,
    ]);
  });
});
