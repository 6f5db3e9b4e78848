/**
 * What a new user met in a fresh-clone trial of the CLI, each as they met it: help and version
 * flags, values that start with "-", harness aliases, typos in sub-actions and choices, and
 * commands run outside any vault.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateVault, NO_VAULT_HINT } from '../../src/store/roots.js';
import { cliEnv, fixture, gitRepo, REPO, runBin, runCli } from '../helpers/cli.js';

const VERSION = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string;

describe('outside any vault', () => {
  it('vault watch and watch --detach refuse like save and create nothing', async () => {
    const cwd = fixture();
    expect(locateVault(cwd), 'a vault above the temp folder (a stray /.ecc/memory?) makes this test meaningless').toBeUndefined();
    const env = cliEnv();
    // the binary: an in-process --detach would start this test runner as the server
    for (const [args, what] of [
      [['watch', '--detach'], 'run the index server'],
      [['watch'], 'run the index server'],
      [['watch', '--status'], "show an index server's status"],
      [['watch', '--stop'], 'stop an index server'],
    ] as const) {
      const r = await runBin([...args], { cwd, env });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain(`cannot ${what}: no vault here`);
      expect(r.stderr).toContain(NO_VAULT_HINT);
      expect(readdirSync(cwd)).toEqual([]);
    }
    const save = await runCli(['save', '--title', 't', '--body', 'b'], { cwd, env });
    expect(save.code).toBe(7);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('vault index says there is no vault (not "index folder not writable"), unless only the user scope is asked', async () => {
    const cwd = fixture();
    const env = cliEnv();
    const r = await runCli(['index'], { cwd, env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('cannot index the project and team scopes: no vault here');
    expect(r.stderr).toContain(NO_VAULT_HINT);
    expect(r.stdout).not.toContain('kept in memory');
    expect(readdirSync(cwd)).toEqual([]);
    const user = await runCli(['index', '--scope', 'user'], { cwd, env });
    expect(user.code, user.stderr).toBe(0);
  });
});

describe('values that start with "-"', () => {
  it('a Markdown list body, a "-" title and a template section are saved as typed', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    const body = '- first item\n- second item';
    const r = await runCli(['save', '--title', '-5 things to check', '--body', body, '--json'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    const { id } = JSON.parse(r.stdout) as { id: string };
    const read = JSON.parse((await runCli(['read', id, '--json'], { cwd, env })).stdout);
    expect(read).toMatchObject({ title: '-5 things to check', body });
    const list = await runCli(['save', '--title', 'list', '--body', '- first item'], { cwd, env });
    expect(list.code, list.stderr).toBe(0);
    const t = await runCli(['save', '--kind', 'runbook', '--template', '--section', 'Steps=- df -h', '--title', 'Disk', '--json'], { cwd, env });
    expect(t.code, t.stderr).toBe(0);
    const rb = JSON.parse((await runCli(['read', JSON.parse(t.stdout).id, '--json'], { cwd, env })).stdout);
    expect(rb.body).toContain('- df -h');
  });

  it('a flag still is not a value: `--title --body x` says the title is missing its value', async () => {
    const r = await runCli(['save', '--title', '--body', 'x'], { cwd: gitRepo() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --title needs a value');
    expect(r.stderr).toContain('hint: run `vault save --help`');
  });

  it('`vault search -- --kind` looks for the literal words', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    await runCli(['save', '--title', 'unrelated', '--body', 'nothing here'], { cwd, env });
    const r = await runCli(['search', '--', '--kind'], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no memories match "--kind"');
    const quoted = await runCli(['search', '"exact phrase"'], { cwd, env });
    expect(quoted.stdout).toContain('no memories match "exact phrase"');
    expect(quoted.stdout).not.toContain('""');
  });
});

describe('-h and -v', () => {
  it('-h is --help for the top level and every command; -v and -V print the version', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    for (const [args, usage] of [
      [['-h'], 'vault <command> [options]'],
      [['save', '-h'], 'vault save'],
      [['search', '-h'], 'vault search [query..]'],
      [['hooks', 'install', '-h'], 'vault hooks <action>'],
    ] as const) {
      const r = await runCli([...args], { cwd, env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(usage);
    }
    for (const flag of ['-v', '-V', '--version']) {
      const r = await runCli([flag], { cwd, env });
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(VERSION);
    }
  });

  it('the binary answers `vault search -h` with help (the lean path hands it over)', async () => {
    const r = await runBin(['search', '-h'], { cwd: gitRepo() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('vault search [query..]');
  });
});

describe('typos', () => {
  it('a misspelt sub-action or choice value gets a did-you-mean and a hint naming the real command', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    const action = await runCli(['hooks', 'instal', '--harness', 'codex'], { cwd, env });
    expect(action.code).toBe(2);
    expect(action.stderr).toBe(
      'error: unknown action "instal"; did you mean install?\nhint: action is one of: install, uninstall; run `vault hooks --help` for its arguments and flags\n',
    );
    const kind = await runCli(['save', '--title', 't', '--body', 'b', '--kind', 'decison'], { cwd, env });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('error: unknown --kind value "decison"; did you mean decision?');
    expect(kind.stderr).toContain('run `vault save --help`');
    const sessions = await runCli(['sessions', 'lst'], { cwd, env });
    expect(sessions.stderr).toContain('did you mean list?');
    for (const r of [action, kind, sessions]) expect(r.stderr).not.toContain('<command>');
  });

  it('a one-letter flag that does not exist offers the long flag it starts', async () => {
    const r = await runCli(['save', '--title', 't', '--body', 'b', '-k', 'decision'], { cwd: gitRepo() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: unknown flag -k; did you mean --kind?\nhint: run `vault save --help` for its flags\n');
  });
});

describe('--harness aliases', () => {
  it('hooks install accepts gemini and claude; hook --help lists gemini-cli', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    const gemini = await runCli(['hooks', 'install', '--harness', 'gemini', '--dry-run', '--json'], { cwd, env });
    expect(gemini.code, gemini.stderr).toBe(0);
    expect(JSON.parse(gemini.stdout)).toMatchObject({ harness: 'gemini-cli', file: join(cwd, '.gemini', 'settings.json'), dryRun: true });
    const claude = await runCli(['hooks', 'install', '--harness', 'Claude', '--dry-run', '--json'], { cwd, env });
    expect(JSON.parse(claude.stdout)).toMatchObject({ harness: 'claude-code' });
    const help = await runCli(['hook', '--help'], { cwd, env });
    expect(help.stdout).toContain('gemini-cli');
    const sessions = await runCli(['sessions', 'import', '--harness', 'claude', join(cwd, 'none')], { cwd, env });
    expect(sessions.stderr).not.toContain('Choices');
  });
});

describe('folder variables', () => {
  it('a relative or empty CODEX_HOME is refused like HOME, and nothing is written in the repository', async () => {
    const cwd = gitRepo();
    for (const value of ['codex-home', '']) {
      const env = cliEnv({ CODEX_HOME: value });
      const r = await runCli(['hooks', 'install', '--harness', 'codex', '--scope', 'user'], { cwd, env });
      expect(r.code, r.stdout).toBe(3);
      expect(r.stderr).toContain('error: CODEX_HOME must be an absolute path');
      expect(r.stderr).toContain('hint: set CODEX_HOME');
      expect(existsSync(join(cwd, 'codex-home'))).toBe(false);
      expect(existsSync(join(cwd, 'hooks.json'))).toBe(false);
    }
    const ok = await runCli(['hooks', 'install', '--harness', 'codex', '--scope', 'user', '--dry-run'], {
      cwd,
      env: cliEnv({ CODEX_HOME: join(cwd, '..', 'ch') }),
    });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe('vault fmt with a path that does not exist', () => {
  it('says the file does not exist (exit 4), not "not inside a scope folder"', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    await runCli(['init'], { cwd, env });
    const r = await runCli(['fmt', '--check', 'nonexist.md'], { cwd, env });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('refused       nonexist.md: does not exist [not-found]');
    expect(r.stdout).not.toContain('not inside a scope folder');
  });
});
