/**
 * Private data never lands in the working directory: an empty or relative HOME,
 * ECC_MEMORY_USER_ROOT or ECC_SESSIONS_DIR would resolve against it (often a repository, where
 * git lists the files as untracked). The CLI refuses it with one clear error naming the
 * variable, the rule and the fix; hooks stay silent, exit 0 and write nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { CLAUDE_SESSION, hook } from '../helpers/hooks.js';

const stop = (cwd: string) => ({ session_id: 'home-paths', transcript_path: CLAUDE_SESSION, cwd, hook_event_name: 'Stop', stop_hook_active: false });
const start = (cwd: string) => ({ session_id: 'next', transcript_path: '/nowhere/next.jsonl', cwd, hook_event_name: 'SessionStart', source: 'startup' });

/** The repository is exactly as made: no untracked file, no folder at all besides .git. */
function expectUntouched(repo: string, label: string): void {
  expect(git(repo, 'status', '--porcelain', '--untracked-files=all'), label).toBe('');
  expect(readdirSync(repo).sort(), label).toEqual(['.git']);
}

const BAD_HOMES = ['', 'home', './me', '../up'];

describe('an empty or relative HOME', () => {
  it.each(['/etc/hostname', '/etc/hostname/sub'])(
    'HOME=%j (a file, or a path through one): save, search and sessions list are refused naming HOME, no stack trace; hooks exit 0',
    async (home) => {
      const repo = gitRepo();
      const env = cliEnv({ HOME: home, ECC_MEMORY_USER_ROOT: undefined, ECC_SESSIONS_DIR: undefined });
      for (const args of [
        ['save', '--scope', 'user', '--title', 'Private', '--body', 'mine'],
        ['save', '--title', 'Project', '--body', 'b'],
        ['search', 'x', '--scope', 'user'],
        ['sessions', 'list'],
      ]) {
        const r = await runCli(args, { cwd: repo, env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
        expect(r.stderr, args.join(' ')).toMatch(/^error: HOME must be a folder \(got "\/etc\/hostname.*\nhint: set HOME to your home folder/);
        expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
      }
      expect(await hook('stop', stop(repo), { cwd: repo, env })).toEqual({ code: 0, stdout: '', stderr: '' });
      expectUntouched(repo, `HOME=${home}`);
    },
  );

  it.each(BAD_HOMES)('HOME=%j: hooks exit 0 silently and write nothing; save --scope user and sessions list are refused naming HOME', async (home) => {
    const repo = gitRepo();
    const env = cliEnv({ HOME: home, ECC_MEMORY_USER_ROOT: undefined, ECC_SESSIONS_DIR: undefined, ECC_HOOK_DEBUG: '1' });
    for (const [event, payload] of [
      ['stop', stop(repo)],
      ['pre-compact', { ...stop(repo), hook_event_name: 'PreCompact', trigger: 'auto' }],
      ['session-start', start(repo)],
    ] as const) {
      const r = await hook(event, payload, { cwd: repo, env });
      expect(r, event).toEqual({ code: 0, stdout: '', stderr: '' });
      expectUntouched(repo, `${event} with HOME=${JSON.stringify(home)}`);
    }
    const codex = await hook('stop', stop(repo), { cwd: repo, env, harness: 'codex' });
    expect(codex).toEqual({ code: 0, stdout: '{}\n', stderr: '' });

    const user = await runCli(['save', '--scope', 'user', '--title', 'Private', '--body', 'mine'], { cwd: repo, env });
    expect(user.code).toBe(3);
    expect(user.stderr).toContain('error: HOME must be an absolute path');
    expect(user.stderr).toMatch(/hint: set HOME to your home folder .*or set ECC_MEMORY_USER_ROOT to an absolute folder/);
    expect(user.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const json = await runCli(['save', '--scope', 'user', '--title', 'Private', '--body', 'mine', '--json'], { cwd: repo, env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'invalid-input', field: 'HOME', rule: expect.stringContaining('absolute path') });
    // a project save needs the user root too (ids are unique across scopes): refused, nothing written
    expect((await runCli(['save', '--title', 'Project', '--body', 'b'], { cwd: repo, env })).code).toBe(3);
    const list = await runCli(['sessions', 'list'], { cwd: repo, env });
    expect(list.code).toBe(3);
    expect(list.stderr).toMatch(/HOME must be an absolute path[\s\S]*or set ECC_SESSIONS_DIR/);
    // the user-scope hooks install would write <cwd>/.claude/settings.json
    for (const harness of ['claude-code', 'codex']) {
      const install = await runCli(['hooks', 'install', '--harness', harness, '--scope', 'user', '--command', 'vault'], { cwd: repo, env });
      expect(install.code, harness).toBe(3);
      expect(install.stderr).toContain('error: HOME must be an absolute path');
    }
    expectUntouched(repo, `CLI with HOME=${JSON.stringify(home)}`);
  });

  it('an absolute ECC_MEMORY_USER_ROOT and ECC_SESSIONS_DIR stand in for it', async () => {
    const repo = gitRepo();
    const elsewhere = gitRepo(); // any absolute folder outside the repository
    const env = cliEnv({ HOME: '', ECC_MEMORY_USER_ROOT: join(elsewhere, 'me'), ECC_SESSIONS_DIR: join(elsewhere, 'sessions') });
    const r = await runCli(['save', '--scope', 'user', '--title', 'Private', '--body', 'mine', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).path).toMatch(/^user\/notes\//);
    expect(await hook('stop', stop(repo), { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(readdirSync(join(elsewhere, 'sessions')).some((n) => n.endsWith('-session.tmp'))).toBe(true);
    expectUntouched(repo, 'absolute overrides');
  });
});

describe('an empty or relative ECC_MEMORY_USER_ROOT or ECC_SESSIONS_DIR', () => {
  it.each(['', 'me', 'private/memory'])('ECC_MEMORY_USER_ROOT=%j is refused naming it; nothing is written', async (value) => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_USER_ROOT: value });
    for (const args of [
      ['save', '--scope', 'user', '--title', 'Private', '--body', 'mine'],
      ['read', 'mem_20260101_aaaaaaaaaaaaaaaaaaaa', '--scope', 'user'],
      ['doctor', '--scope', 'user'],
    ]) {
      const r = await runCli(args, { cwd: repo, env });
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toContain('error: ECC_MEMORY_USER_ROOT must be an absolute path');
      expect(r.stderr).toContain('hint: unset it to use ~/.ecc/memory, or set it to an absolute folder');
    }
    expect(await hook('session-start', start(repo), { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expectUntouched(repo, `ECC_MEMORY_USER_ROOT=${JSON.stringify(value)}`);
  });

  it('ECC_MEMORY_USER_ROOT with control characters is refused, its value escaped: no folder of that name is made', async () => {
    const repo = gitRepo();
    const base = tempDir();
    const value = join(base, 'me\u001b[31m\nforged');
    const env = cliEnv({ ECC_MEMORY_USER_ROOT: value });
    const r = await runCli(['save', '--scope', 'user', '--title', 'Private', '--body', 'mine'], { cwd: repo, env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error: ECC_MEMORY_USER_ROOT must be an absolute path without control characters');
    expect(r.stderr).not.toMatch(/[\u001b]|\nforged/);
    expect(readdirSync(base)).toEqual([]);
    expect(await hook('session-start', start(repo), { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(readdirSync(base)).toEqual([]);
  });

  it.each(['', 'sessions', './.ecc/sessions'])('ECC_SESSIONS_DIR=%j: hooks write nothing in the repository; sessions list names it', async (value) => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_SESSIONS_DIR: value });
    expect(await hook('stop', stop(repo), { cwd: repo, env })).toEqual({ code: 0, stdout: '', stderr: '' });
    expectUntouched(repo, `ECC_SESSIONS_DIR=${JSON.stringify(value)}`);
    // nothing recorded in the default folder either: only the refusal is logged there
    const defaultDir = join(env.HOME!, '.ecc', 'sessions');
    expect(existsSync(defaultDir) ? readdirSync(defaultDir).filter((n) => n.endsWith('-session.tmp')) : []).toEqual([]);
    const list = await runCli(['sessions', 'list'], { cwd: repo, env });
    expect(list.code).toBe(3);
    expect(list.stderr).toContain('error: ECC_SESSIONS_DIR must be an absolute path');
  });
});
