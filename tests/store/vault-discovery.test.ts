/**
 * No stray vaults. A project or team vault is the git work tree's `.ecc/memory`, an explicit
 * root (`--root` / ECC_MEMORY_PROJECT_ROOT), or a folder `vault init --here` made one in (its
 * `.ecc/memory`); the user root (`~/.ecc/memory`) is never adopted. Elsewhere project and team
 * saves, and `init` without `--here`, are refused with one hint naming the three ways; reads,
 * search, doctor and MCP say "no vault here" the same way, and nothing is written.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runBin, runCli, tempDir } from '../helpers/cli.js';
import { callError, callOk, startMcp } from '../helpers/mcp-client.js';

const HINT =
  'hint: run it inside a git repository (its vault is <repo>/.ecc/memory; `vault init` creates it), pass --root DIR or set ECC_MEMORY_PROJECT_ROOT, or run `vault init --here` to make this folder a vault\n';

function saveArgs(...extra: string[]): string[] {
  return ['save', '--title', 'Stray', '--body', 'Where does this go?', ...extra];
}

/** A home folder as the hooks leave it (~/.ecc/sessions) with a user vault (~/.ecc/memory), and a plain folder in it. */
function homeWithUserVault(): { env: Record<string, string>; home: string; folder: string } {
  const env = cliEnv({ ECC_MEMORY_USER_ROOT: undefined });
  const home = env.HOME!;
  mkdirSync(join(home, '.ecc', 'sessions'), { recursive: true });
  mkdirSync(join(home, '.ecc', 'memory', 'notes'), { recursive: true });
  const folder = join(home, 'notes', 'ideas');
  mkdirSync(folder, { recursive: true });
  return { env, home, folder };
}

describe('outside any vault', () => {
  it('project and team saves and init are refused with the one hint; nothing is created', async () => {
    const dir = tempDir('vault-nowhere-');
    const env = cliEnv();
    for (const args of [saveArgs(), saveArgs('--scope', 'team'), saveArgs('--dry-run'), ['init'], ['init', '--scope', 'team']]) {
      const r = await runCli(args, { cwd: dir, env });
      expect(r.code, args.join(' ')).toBe(7); // an environment problem, as the README's exit-code table says
      expect(r.stderr, args.join(' ')).toMatch(
        new RegExp(
          `^error: cannot (save a (project|team) memory|create the [a-z ]+ scope): no vault here \\(no git repository or \\.ecc/memory folder at or above ${dir}\\)\\n`,
        ),
      );
      expect(r.stderr.endsWith(HINT), r.stderr).toBe(true);
    }
    const json = await runCli([...saveArgs(), '--json'], { cwd: dir, env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'no-vault', field: 'root' });
    // the real binary says the same
    const bin = await runBin(saveArgs(), { cwd: dir, env });
    expect(bin.code).toBe(7);
    expect(bin.stderr.endsWith(HINT)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    // the user scope needs no project vault
    const user = await runCli(saveArgs('--scope', 'user'), { cwd: dir, env });
    expect(user.code, user.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('in a plain folder under HOME (hooks made ~/.ecc): refused, and the user root gets no project folder', async () => {
    const { env, home, folder } = homeWithUserVault();
    for (const cwd of [folder, home]) {
      const r = await runCli(saveArgs(), { cwd, env });
      expect(r.code, cwd).toBe(7);
      expect(r.stderr).toContain('no vault here');
    }
    expect(readdirSync(join(home, '.ecc', 'memory')).sort()).toEqual(['notes']);
    expect(existsSync(join(folder, '.ecc'))).toBe(false);
    // user-scope reads stay complete (no stray project/ folder inside the user root)
    const saved = await runCli([...saveArgs('--scope', 'user'), '--json'], { cwd: folder, env });
    const id = JSON.parse(saved.stdout).id as string;
    expect((await runCli(['read', id, '--scope', 'user'], { cwd: folder, env })).code).toBe(0);
    const doctor = await runCli(['doctor', '--scope', 'user', '--strict', '--no-index-check'], { cwd: folder, env });
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('a home folder that is a git work tree (dotfiles) is not a project vault either', async () => {
    const { env, home, folder } = homeWithUserVault();
    git(home, 'init', '-q', '-b', 'main');
    const r = await runCli(saveArgs(), { cwd: folder, env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('no vault here');
    expect(readdirSync(join(home, '.ecc', 'memory')).sort()).toEqual(['notes']);
    // and the user root may not be named as the project root
    const root = await runCli(saveArgs('--root', join(home, '.ecc', 'memory')), { cwd: folder, env });
    expect(root.code).toBe(3);
    expect(root.stderr).toMatch(/^error: --root: .* is the user root .*, which is never a project vault\n/);
    const envRoot = await runCli(saveArgs(), { cwd: folder, env: { ...env, ECC_MEMORY_PROJECT_ROOT: join(home, '.ecc', 'memory') } });
    expect(envRoot.stderr).toMatch(/^error: ECC_MEMORY_PROJECT_ROOT: /);
  });

  it('reads, search, doctor and MCP say "no vault here" with the same hint', async () => {
    const { env, folder } = homeWithUserVault();
    const read = await runCli(['read', 'mem_20260101_aaaaaaaaaaaaaaaaaaaa'], { cwd: folder, env });
    expect(read.code).toBe(4);
    expect(read.stderr).toContain(`was not found in scopes project, team: no vault here (no git repository or .ecc/memory folder at or above ${folder})`);
    expect(read.stderr).toContain('hint: run it inside a git repository');
    const search = await runCli(['search', 'anything'], { cwd: folder, env });
    expect(search.code).toBe(0);
    expect(search.stderr).toContain(`note: no vault here (no git repository or .ecc/memory folder at or above ${folder})\n${HINT}`);
    const doctor = await runCli(['doctor'], { cwd: folder, env });
    expect(doctor.code).toBe(0);
    expect(doctor.stderr).toContain('note: no vault here');
    expect(doctor.stderr.endsWith(HINT)).toBe(true);

    const s = await startMcp(folder, { ...env, ECC_MEMORY_HARNESS: 'cursor' });
    const err = await callError(s, 'memory_save', { title: 'Stray', body: 'From an agent.' });
    expect(err.message).toContain('no vault here');
    expect(err.hint).toContain('vault init --here');
    expect(s.stderr()).toContain('vault mcp: warning: no vault here');
    expect(existsSync(join(folder, '.ecc'))).toBe(false);
  });
});

describe('vault init --here', () => {
  it('makes a plain folder a vault: saves, reads and doctor work there and in its subfolders', async () => {
    const { env, folder } = homeWithUserVault();
    const init = await runCli(['init', '--here'], { cwd: folder, env });
    expect(init.code, init.stderr).toBe(0);
    expect(existsSync(join(folder, '.ecc', 'memory', 'team', 'notes'))).toBe(true);
    expect(existsSync(join(folder, '.ecc', 'memory', 'project', '.gitignore'))).toBe(true);
    const sub = join(folder, 'deeper');
    mkdirSync(sub);
    const saved = await runCli([...saveArgs('--scope', 'team'), '--json'], { cwd: sub, env });
    expect(saved.code, saved.stderr).toBe(0);
    const { id, path } = JSON.parse(saved.stdout);
    expect(existsSync(join(folder, '.ecc', 'memory', path))).toBe(true);
    expect((await runCli(['read', id], { cwd: folder, env })).code).toBe(0);
    const doctor = await runCli(['doctor', '--strict'], { cwd: sub, env });
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stderr).toBe('');
    // idempotent; plain `vault init` now finds it
    expect((await runCli(['init'], { cwd: sub, env })).stdout).toMatch(/already initialised/);
  });

  it('is refused in the home folder that holds the user root', async () => {
    const { env, home } = homeWithUserVault();
    const r = await runCli(['init', '--here'], { cwd: home, env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^error: --here: .* is the user root .*, which is never a project vault\nhint: run `vault init --here` in the folder that should hold the vault/,
    );
    expect(readdirSync(join(home, '.ecc', 'memory')).sort()).toEqual(['notes']);
  });

  it('a git work tree keeps its vault at the work tree root; explicit roots work anywhere', async () => {
    const repo = gitRepo();
    mkdirSync(join(repo, 'src'));
    expect((await runCli(saveArgs('--scope', 'team'), { cwd: join(repo, 'src'), env: cliEnv() })).code).toBe(0);
    expect(existsSync(join(repo, '.ecc', 'memory', 'team', 'notes'))).toBe(true);
    const dir = tempDir('vault-nowhere-');
    const r = await runCli(saveArgs('--root', 'vault'), { cwd: dir, env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(dir, 'vault', 'project', 'notes'))).toHaveLength(1);
    const ok = await callOk(await startMcp(dir, { ...cliEnv(), ECC_MEMORY_HARNESS: 'cursor', ECC_MEMORY_PROJECT_ROOT: join(dir, 'vault') }), 'memory_save', {
      title: 'Through MCP',
      body: 'With an explicit root.',
    });
    expect(ok.path).toMatch(/^project\/notes\//);
  });
});
