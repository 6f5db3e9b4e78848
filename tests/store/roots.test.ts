/**
 * Where memories go: environment overrides, flags, and linked git worktrees (project scope is
 * shared through the main worktree, team scope follows the worktree and its branch).
 */
import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runCli, tempDir } from '../helpers/cli.js';

async function save(cwd: string, env: Record<string, string>, ...args: string[]): Promise<{ id: string; path: string }> {
  const r = await runCli(['save', '--title', 't', '--body', 'b', '--json', ...args], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('vault roots', () => {
  it('honours ECC_MEMORY_PROJECT_ROOT (relative to the working directory) and ECC_MEMORY_USER_ROOT (absolute)', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_PROJECT_ROOT: 'elsewhere/vault', ECC_MEMORY_USER_ROOT: join(repo, 'elsewhere/me') });
    const team = await save(repo, env, '--scope', 'team');
    const project = await save(repo, env);
    const user = await save(repo, env, '--scope', 'user');
    expect(existsSync(join(repo, 'elsewhere/vault/team/notes', `${team.id}.md`))).toBe(true);
    expect(existsSync(join(repo, 'elsewhere/vault/project/notes', `${project.id}.md`))).toBe(true);
    expect(existsSync(join(repo, 'elsewhere/me/notes', `${user.id}.md`))).toBe(true);
    expect(existsSync(join(repo, '.ecc'))).toBe(false);
    const read = await runCli(['read', user.id, '--scope', 'user', '--json'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
  });

  it('--root and --user-root win over the environment', async () => {
    const repo = gitRepo();
    const flagRoot = tempDir();
    const flagUser = tempDir();
    const env = cliEnv({ ECC_MEMORY_PROJECT_ROOT: join(repo, 'env-vault'), ECC_MEMORY_USER_ROOT: join(repo, 'env-user') });
    const team = await save(repo, env, '--scope', 'team', '--root', flagRoot);
    const user = await save(repo, env, '--scope', 'user', '--user-root', flagUser);
    expect(existsSync(join(flagRoot, 'team/notes', `${team.id}.md`))).toBe(true);
    expect(existsSync(join(flagUser, 'notes', `${user.id}.md`))).toBe(true);
    expect(existsSync(join(repo, 'env-vault'))).toBe(false);
    expect(existsSync(join(repo, 'env-user'))).toBe(false);
    const read = await runCli(['read', team.id, '--root', flagRoot], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    const notThere = await runCli(['read', team.id], { cwd: repo, env });
    expect(notThere.code).toBe(4);
  });

  it('user scope defaults to ~/.ecc/memory and is recalled only on request', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_USER_ROOT: undefined });
    const user = await save(repo, env, '--scope', 'user');
    expect(existsSync(join(env.HOME!, '.ecc/memory/notes', `${user.id}.md`))).toBe(true);
    expect((await runCli(['read', user.id], { cwd: repo, env })).code).toBe(4);
    expect((await runCli(['read', user.id, '--scope', 'user'], { cwd: repo, env })).code).toBe(0);
    // the text output names the file itself: the user vault has no scope folder
    const text = await runCli(['save', '--scope', 'user', '--title', 'Where it went', '--body', 'b'], { cwd: repo, env });
    expect(text.code, text.stderr).toBe(0);
    const file = /\n {2}file: (.+)\n/.exec(text.stdout)?.[1];
    expect(file).toMatch(/\/\.ecc\/memory\/notes\/mem_[a-z0-9_]+\.md$/);
    expect(existsSync(file!)).toBe(true);
    expect(text.stdout).toMatch(/\n {2}path: user\/notes\/mem_/);
  });

  it('finds the repository root from a subfolder', async () => {
    const repo = gitRepo();
    mkdirSync(join(repo, 'src/deep/er'), { recursive: true });
    const env = cliEnv();
    const m = await save(join(repo, 'src/deep/er'), env, '--scope', 'team');
    expect(existsSync(join(repo, '.ecc/memory/team/notes', `${m.id}.md`))).toBe(true);
  });

  it('a linked worktree shares the project scope with the main worktree; team scope follows the worktree', async () => {
    const main = gitRepo();
    const wt = join(tempDir(), 'feature-wt');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const env = cliEnv();

    const local = await save(wt, env, '--kind', 'lesson');
    expect(existsSync(join(main, '.ecc/memory/project/lessons', `${local.id}.md`))).toBe(true);
    expect(existsSync(join(wt, '.ecc/memory/project'))).toBe(false);

    const team = await save(wt, env, '--scope', 'team', '--kind', 'decision');
    expect(existsSync(join(wt, '.ecc/memory/team/decisions', `${team.id}.md`))).toBe(true);
    expect(existsSync(join(main, '.ecc/memory/team'))).toBe(false);

    // the main worktree sees the shared project memory, not the branch's team memory
    expect((await runCli(['read', local.id], { cwd: main, env })).code).toBe(0);
    expect((await runCli(['read', team.id], { cwd: main, env })).code).toBe(4);
    // the linked worktree sees both
    expect((await runCli(['read', local.id], { cwd: wt, env })).code).toBe(0);
    expect((await runCli(['read', team.id], { cwd: wt, env })).code).toBe(0);
    // a project memory saved in the main worktree is visible from the linked one
    const fromMain = await save(main, env);
    expect((await runCli(['read', fromMain.id, '--json'], { cwd: wt, env })).code).toBe(0);

    // removing the worktree loses no project memory
    git(main, 'worktree', 'remove', '--force', wt);
    expect(readdirSync(join(main, '.ecc/memory/project/lessons'))).toEqual([`${local.id}.md`]);
    expect(realpathSync(main)).toBeTruthy();
  });
});
