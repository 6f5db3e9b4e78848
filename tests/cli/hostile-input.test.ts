import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';

describe('CLI hardening found by hostile-input testing', () => {
  it('flags without values and repeated body flags are usage errors (exit 2), never stack traces', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const args of [
      ['save', '--title', '--body', 'b'],
      ['save', '--title', 't', '--body', 'a', '--body', 'b'],
      ['save', '--title', 't', '--kind', 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8', '--body', 'b'],
    ]) {
      const r = await runCli(args, { cwd: repo, env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.stderr).toMatch(/^error: [^\n]+\n(hint: [^\n]+\n)?$/);
      expect(r.stderr).not.toContain('ghp_A1b2');
    }
  });

  it('a refused or dry-run save writes nothing at all (no index, no folders) through a symlinked ~/.ecc', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_USER_ROOT: undefined });
    const outside = tempDir();
    symlinkSync(outside, join(env.HOME!, '.ecc'));
    const r = await runCli(['save', '--scope', 'user', '--title', 't', '--body', 'b'], { cwd: repo, env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(existsSync(join(outside, 'memory'))).toBe(false);
    const dry = await runCli(['save', '--scope', 'user', '--title', 't', '--body', 'b', '--dry-run'], { cwd: repo, env: cliEnv() });
    expect(dry.code, dry.stderr).toBe(0);
  });

  it('an explicit --id already used by a file in a subfolder is refused (no second file claiming the id)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    expect((await runCli(['save', '--scope', 'team', '--id', 'mem_dup_anywhere', '--title', 't', '--body', 'b'], { cwd: repo, env })).code).toBe(0);
    const notes = join(repo, '.ecc/memory/team/notes');
    mkdirSync(join(notes, 'archive'));
    renameSync(join(notes, 'mem_dup_anywhere.md'), join(notes, 'archive/mem_dup_anywhere.md'));
    const again = await runCli(['save', '--scope', 'team', '--id', 'mem_dup_anywhere', '--title', 't2', '--body', 'b2'], { cwd: repo, env });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/team\/notes\/archive\/mem_dup_anywhere\.md/);
    expect(existsSync(join(notes, 'mem_dup_anywhere.md'))).toBe(false);
  });

  it('search never writes or reads its index through a symlinked index folder, and still answers', async () => {
    // no .git: the index lives in <vault>/.index; an explicit root, so a stray .ecc in a parent folder is never the vault
    const dir = tempDir();
    const env = cliEnv({ ECC_MEMORY_PROJECT_ROOT: join(dir, '.ecc/memory') });
    expect((await runCli(['save', '--scope', 'team', '--title', 'redis sessions', '--body', 'we use redis'], { cwd: dir, env })).code).toBe(0);
    const outside = tempDir();
    rmSync(join(dir, '.ecc/memory/.index'), { recursive: true, force: true });
    symlinkSync(outside, join(dir, '.ecc/memory/.index'));
    const r = await runCli(['search', 'redis', '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).results.map((x: { title: string }) => x.title)).toEqual(['redis sessions']);
    expect(readdirSync(outside)).toEqual([]);
  });
});
