import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEADLINE_MS, INSTALLED_TIMEOUT_S } from '../../src/sessions/hook-events.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';

type Settings = { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout: number }> }>> } & Record<
  string,
  unknown
>;

const unrelated = {
  permissions: { allow: ['Bash(npm test:*)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo lint', timeout: 5 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
};

describe('vault hooks install / uninstall', () => {
  it('claude-code project scope: merges into .claude/settings.local.json, idempotent, backup, exact uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const file = join(repo, '.claude', 'settings.local.json');
    mkdirSync(join(repo, '.claude'));
    const original = `${JSON.stringify(unrelated, null, 2)}\n`;
    writeFileSync(file, original);

    const dry = await runCli(['hooks', 'install', '--harness', 'claude-code', '--dry-run'], { cwd: repo, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run: would change .*settings\.local\.json/);
    expect(dry.stdout).toContain('+ ');
    expect(dry.stdout).toMatch(/\+\s+"command": ".* hook session-start --harness claude-code"/);
    expect(readFileSync(file, 'utf8')).toBe(original);

    const first = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault', '--json'], { cwd: repo, env });
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout) as { changed: boolean; backup: string; changes: string[] };
    expect(out.changed).toBe(true);
    expect(out.changes).toHaveLength(5);
    expect(readFileSync(out.backup, 'utf8')).toBe(original);
    const s = JSON.parse(readFileSync(file, 'utf8')) as Settings;
    expect(s.permissions).toEqual(unrelated.permissions);
    expect(s.hooks.PreToolUse).toEqual(unrelated.hooks.PreToolUse);
    expect(s.hooks.Stop![0]).toEqual(unrelated.hooks.Stop[0]);
    expect(s.hooks.Stop![1]!.hooks[0]).toEqual({ type: 'command', command: 'vault hook stop --harness claude-code', timeout: 30 });
    expect(s.hooks.SessionStart).toEqual([
      { matcher: 'startup|clear|compact', hooks: [{ type: 'command', command: 'vault hook session-start --harness claude-code', timeout: 10 }] },
    ]);
    expect(s.hooks.PreCompact![0]!.hooks[0]!.command).toBe('vault hook pre-compact --harness claude-code');
    expect(s.hooks.SessionEnd![0]!.hooks[0]!.command).toBe('vault hook session-end --harness claude-code');

    const installed = readFileSync(file, 'utf8');
    const second = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault'], { cwd: repo, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/already installed, nothing to change/);
    expect(readFileSync(file, 'utf8')).toBe(installed);

    const removed = await runCli(['hooks', 'uninstall', '--harness', 'claude-code'], { cwd: repo, env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/Removed 5 hook entries/);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect((await runCli(['hooks', 'uninstall', '--harness', 'claude-code'], { cwd: repo, env })).stdout).toMatch(/already clean/);
  });

  it('dry run: groups that stay are shown unchanged, even in a compactly written file', async () => {
    const repo = gitRepo();
    const file = join(repo, '.claude', 'settings.local.json');
    mkdirSync(join(repo, '.claude'));
    // compact JSON, as people write it by hand; our SessionStart group goes after theirs
    writeFileSync(
      file,
      '{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]}]}}',
    );
    const dry = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault', '--dry-run'], { cwd: repo, env: cliEnv() });
    expect(dry.code, dry.stderr).toBe(0);
    const lines = dry.stdout.split('\n');
    expect(lines[1]).toBe('  (the file is rewritten as 2-space JSON; shown below in that form, so only real changes are marked)');
    // nothing of the existing settings is removed, and their lines are kept as they are
    expect(lines.filter((l) => l.startsWith('- '))).toEqual([]);
    for (const kept of ['  "permissions": {', '      "Bash(npm test)"', '            "command": "echo hi"', '      },'])
      expect(lines, kept).toContain(`  ${kept}`);
    expect(lines.filter((l) => l.startsWith('+ ')).some((l) => l.includes('echo hi'))).toBe(false);
    expect(lines).toContain('+             "command": "vault hook session-start --harness claude-code",');
  });

  it('keeps at most one backup per settings file, and removes per-run backups of earlier versions', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const dir = join(repo, '.claude');
    const file = join(dir, 'settings.local.json');
    mkdirSync(dir);
    const original = `${JSON.stringify(unrelated, null, 2)}\n`;
    writeFileSync(file, original);
    writeFileSync(`${file}.vault-backup-20261101T101010.123Z`, original); // left by an earlier version
    writeFileSync(join(dir, 'settings.local.json.mine'), 'a file of the user');
    const steps = [['install', '--command', 'vault'], ['uninstall'], ['install', '--command', 'vault'], ['install', '--command', 'vault2']];
    let previous = original;
    for (const step of steps) {
      const r = await runCli(['hooks', step[0]!, '--harness', 'claude-code', ...step.slice(1)], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(['settings.local.json', 'settings.local.json.mine', 'settings.local.json.vault-backup']);
      expect(readFileSync(`${file}.vault-backup`, 'utf8')).toBe(previous); // the content before the latest change
      previous = readFileSync(file, 'utf8');
    }
  });

  it('project scope: offers the .gitignore lines git does not have yet, and none once they are ignored', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const first = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault', '--dry-run'], { cwd: repo, env });
    // the backup too: an uninstall (or any later change) writes one even where this install made none
    expect(first.stdout).toContain(
      "  git does not ignore these files (they hold this machine's paths); add to .gitignore:\n    /.claude/settings.local.json\n    /.claude/settings.local.json.vault-backup\n",
    );
    await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault'], { cwd: repo, env });
    const second = await runCli(['hooks', 'install', '--harness', 'codex', '--command', 'vault', '--json'], { cwd: repo, env });
    expect(JSON.parse(second.stdout).gitignoreLines).toEqual(['/.codex/hooks.json', '/.codex/hooks.json.vault-backup']);
    const change = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault2'], { cwd: repo, env });
    expect(change.stdout).toContain('add to .gitignore:\n    /.claude/settings.local.json\n    /.claude/settings.local.json.vault-backup\n');
    writeFileSync(join(repo, '.gitignore'), '/.claude/settings.local.json*\n');
    const ignored = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault3', '--json'], { cwd: repo, env });
    expect(JSON.parse(ignored.stdout).gitignoreLines).toBeUndefined();
    const user = await runCli(['hooks', 'install', '--harness', 'claude-code', '--scope', 'user', '--command', 'vault'], { cwd: repo, env });
    expect(user.stdout).not.toContain('.gitignore');
  });

  it('every installed timeout is longer than the hook’s own deadline', () => {
    for (const [event, seconds] of Object.entries(INSTALLED_TIMEOUT_S))
      expect(seconds * 1000, event).toBeGreaterThan(DEADLINE_MS[event as keyof typeof DEADLINE_MS] * 2);
  });

  it('codex: creates .codex/hooks.json with SessionStart, Stop, PreCompact, UserPromptSubmit; uninstall deletes the file it created', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await runCli(['hooks', 'install', '--harness', 'codex'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const file = join(repo, '.codex', 'hooks.json');
    const s = JSON.parse(readFileSync(file, 'utf8')) as Settings;
    expect(Object.keys(s.hooks)).toEqual(['SessionStart', 'Stop', 'PreCompact', 'UserPromptSubmit']);
    expect(s.hooks.UserPromptSubmit![0]!.hooks[0]!.command).toMatch(/ hook user-prompt-submit --harness codex$/);
    const cmd = s.hooks.Stop![0]!.hooks[0]!.command;
    expect(cmd).toMatch(/^"[^"]*node[^"]*" "[^"]*bin\/vault\.js" hook stop --harness codex$/);
    expect(s.hooks.Stop![0]!.hooks[0]!.timeout).toBe(30);
    // the installed command really runs the hook
    const payload = { session_id: 'x', cwd: repo, hook_event_name: 'Stop' };
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync('sh', ['-c', cmd], { cwd: repo, env, input: JSON.stringify(payload), encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('{}\n');
    expect((await runCli(['hooks', 'uninstall', '--harness', 'codex'], { cwd: repo, env })).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    // uninstalling codex never touches claude settings, and vice versa
    expect(existsSync(join(repo, '.claude'))).toBe(false);
  });

  it('gemini-cli: merges SessionStart and BeforeAgent into .gemini/settings.json (named, timeouts in ms), idempotent, dry-run diff, exact uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const file = join(repo, '.gemini', 'settings.json');
    mkdirSync(join(repo, '.gemini'));
    // someone's settings: other keys, another hook, Gemini's own non-event keys under "hooks"
    const theirs = {
      general: { vimMode: true },
      hooks: {
        disabled: ['secret-scanner'],
        BeforeTool: [{ matcher: 'write_file', hooks: [{ name: 'lint', type: 'command', command: 'npm run lint', timeout: 30000 }] }],
      },
    };
    const original = `${JSON.stringify(theirs, null, 2)}\n`;
    writeFileSync(file, original);
    const dry = await runCli(['hooks', 'install', '--harness', 'gemini-cli', '--command', 'vault', '--dry-run'], { cwd: repo, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: would change ${file}`);
    expect(dry.stdout).toMatch(/^\+ .*"command": "vault hook user-prompt-submit --harness gemini-cli"/m);
    expect(readFileSync(file, 'utf8')).toBe(original);
    const r = await runCli(['hooks', 'install', '--harness', 'gemini-cli', '--command', 'vault'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Gemini CLI: session start and prompt recall only');
    const s = JSON.parse(readFileSync(file, 'utf8')) as Settings;
    expect(s.general).toEqual({ vimMode: true });
    expect(Object.keys(s.hooks)).toEqual(['disabled', 'BeforeTool', 'SessionStart', 'BeforeAgent']);
    expect(s.hooks.SessionStart).toEqual([
      { hooks: [{ name: 'vault-session-start', type: 'command', command: 'vault hook session-start --harness gemini-cli', timeout: 10_000 }] },
    ]);
    expect(s.hooks.BeforeAgent).toEqual([
      { hooks: [{ name: 'vault-user-prompt-submit', type: 'command', command: 'vault hook user-prompt-submit --harness gemini-cli', timeout: 5000 }] },
    ]);
    // timeouts in milliseconds, still longer than the hooks' own deadlines
    expect(s.hooks.SessionStart![0]!.hooks[0]!.timeout).toBeGreaterThan(DEADLINE_MS['session-start']);
    expect(s.hooks.BeforeAgent![0]!.hooks[0]!.timeout).toBeGreaterThan(DEADLINE_MS['user-prompt-submit']);
    const installed = readFileSync(file, 'utf8');
    const twice = await runCli(['hooks', 'install', '--harness', 'gemini-cli', '--command', 'vault'], { cwd: repo, env });
    expect(twice.stdout).toContain('already installed, nothing to change');
    expect(readFileSync(file, 'utf8')).toBe(installed);
    // a claude-code or codex uninstall leaves them alone; gemini-cli's removes exactly them
    expect((await runCli(['hooks', 'uninstall', '--harness', 'claude-code'], { cwd: repo, env })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(installed);
    const un = await runCli(['hooks', 'uninstall', '--harness', 'gemini-cli'], { cwd: repo, env });
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect((await runCli(['hooks', 'uninstall', '--harness', 'gemini-cli'], { cwd: repo, env })).stdout).toContain('already clean');
    // user scope: ~/.gemini/settings.json, created and deleted again
    expect((await runCli(['hooks', 'install', '--harness', 'gemini-cli', '--scope', 'user'], { cwd: repo, env })).code).toBe(0);
    const userFile = join(env.HOME!, '.gemini', 'settings.json');
    const cmd = (JSON.parse(readFileSync(userFile, 'utf8')) as Settings).hooks.BeforeAgent![0]!.hooks[0]!.command;
    expect(cmd).toMatch(/^"[^"]*node[^"]*" "[^"]*bin\/vault\.js" hook user-prompt-submit --harness gemini-cli$/);
    // the installed command really runs the hook: garbage in, nothing out
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync('sh', ['-c', cmd], { cwd: repo, env, input: 'not json', encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect((await runCli(['hooks', 'uninstall', '--harness', 'gemini-cli', '--scope', 'user'], { cwd: repo, env })).code).toBe(0);
    expect(existsSync(userFile)).toBe(false);
  });

  it('cursor: sessionStart into .cursor/hooks.json (flat entries, timeout in seconds), idempotent, dry-run diff, exact uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const file = join(repo, '.cursor', 'hooks.json');
    // a new file: version 1 and our one entry; uninstall deletes it again
    const fresh = await runCli(['hooks', 'install', '--harness', 'cursor', '--command', 'vault'], { cwd: repo, env });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('Cursor: session start only');
    expect(fresh.stdout).toContain('/.cursor/hooks.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      hooks: { sessionStart: [{ command: 'vault hook session-start --harness cursor', timeout: INSTALLED_TIMEOUT_S['session-start'] }] },
    });
    expect(INSTALLED_TIMEOUT_S['session-start'] * 1000).toBeGreaterThan(DEADLINE_MS['session-start']);
    expect((await runCli(['hooks', 'uninstall', '--harness', 'cursor'], { cwd: repo, env })).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    // someone's file: their hooks (one on sessionStart too) and keys stay as they are
    const theirs = {
      version: 1,
      hooks: {
        sessionStart: [{ command: './hooks/session-init.sh' }],
        beforeShellExecution: [{ command: './hooks/approve-network.sh', timeout: 30, matcher: 'curl|wget|nc' }],
        stop: [{ command: './hooks/audit.sh', loop_limit: 10 }],
      },
    };
    const original = `${JSON.stringify(theirs, null, 2)}\n`;
    writeFileSync(file, original);
    const dry = await runCli(['hooks', 'install', '--harness', 'cursor', '--command', 'vault', '--dry-run'], { cwd: repo, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: would change ${file}`);
    expect(dry.stdout).toMatch(/^\+ .*"command": "vault hook session-start --harness cursor"/m);
    expect(dry.stdout).toMatch(/^ {2} .*"command": "\.\/hooks\/session-init\.sh"/m);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect((await runCli(['hooks', 'install', '--harness', 'cursor', '--command', 'vault'], { cwd: repo, env })).code).toBe(0);
    const s = JSON.parse(readFileSync(file, 'utf8')) as { version: number; hooks: Record<string, unknown[]> };
    expect(Object.keys(s.hooks)).toEqual(['sessionStart', 'beforeShellExecution', 'stop']);
    expect(s.hooks.sessionStart).toEqual([{ command: './hooks/session-init.sh' }, { command: 'vault hook session-start --harness cursor', timeout: 10 }]);
    expect(s.hooks.stop).toEqual(theirs.hooks.stop);
    const installed = readFileSync(file, 'utf8');
    const twice = await runCli(['hooks', 'install', '--harness', 'cursor', '--command', 'vault'], { cwd: repo, env });
    expect(twice.stdout).toContain('already installed, nothing to change');
    expect(readFileSync(file, 'utf8')).toBe(installed);
    // another command prefix updates our entry in place
    expect((await runCli(['hooks', 'install', '--harness', 'cursor', '--command', '/opt/bin/vault'], { cwd: repo, env })).code).toBe(0);
    expect((JSON.parse(readFileSync(file, 'utf8')) as typeof s).hooks.sessionStart).toHaveLength(2);
    // other harnesses' uninstall leaves it alone; cursor's gives back the exact bytes
    expect((await runCli(['hooks', 'uninstall', '--harness', 'codex'], { cwd: repo, env })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toBe(original);
    const un = await runCli(['hooks', 'uninstall', '--harness', 'cursor'], { cwd: repo, env });
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
    // a list that is no list is refused untouched
    writeFileSync(file, '{"hooks":{"sessionStart":{"command":"x"}}}');
    const bad = await runCli(['hooks', 'install', '--harness', 'cursor'], { cwd: repo, env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('hooks.sessionStart');
    expect(readFileSync(file, 'utf8')).toBe('{"hooks":{"sessionStart":{"command":"x"}}}');
    // user scope: ~/.cursor/hooks.json; the installed command really runs: garbage in, `{}` out
    expect((await runCli(['hooks', 'install', '--harness', 'cursor', '--scope', 'user'], { cwd: repo, env })).code).toBe(0);
    const userFile = join(env.HOME!, '.cursor', 'hooks.json');
    const cmd = (JSON.parse(readFileSync(userFile, 'utf8')) as typeof s).hooks.sessionStart![0] as { command: string };
    expect(cmd.command).toMatch(/^"[^"]*node[^"]*" "[^"]*bin\/vault\.js" hook session-start --harness cursor$/);
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync('sh', ['-c', cmd.command], { cwd: repo, env, input: 'not json', encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('{}\n');
    expect((await runCli(['hooks', 'uninstall', '--harness', 'cursor', '--scope', 'user'], { cwd: repo, env })).code).toBe(0);
    expect(existsSync(userFile)).toBe(false);
  });

  it('user scope writes ~/.claude/settings.json and $CODEX_HOME/hooks.json', async () => {
    const repo = gitRepo();
    const codexHome = tempDir();
    const env = cliEnv({ CODEX_HOME: codexHome });
    expect((await runCli(['hooks', 'install', '--harness', 'claude-code', '--scope', 'user', '--command', 'vault'], { cwd: repo, env })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(env.HOME!, '.claude', 'settings.json'), 'utf8')).hooks.Stop[0].hooks[0].command).toBe(
      'vault hook stop --harness claude-code',
    );
    expect((await runCli(['hooks', 'install', '--harness', 'codex', '--scope', 'user', '--command', 'vault'], { cwd: repo, env })).code).toBe(0);
    expect(readdirSync(codexHome)).toEqual(['hooks.json']);
    expect(existsSync(join(repo, '.claude'))).toBe(false);
    // installed at both scopes, every event would run twice: said, in text and in JSON
    const both = await runCli(['hooks', 'install', '--harness', 'claude-code', '--command', 'vault'], { cwd: repo, env });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toMatch(/warning: vault hooks for claude-code are also installed at user scope \(.*settings\.json\); Claude Code runs both/);
    const json = await runCli(['hooks', 'install', '--harness', 'codex', '--command', 'vault', '--json'], { cwd: repo, env });
    expect(JSON.parse(json.stdout)).toMatchObject({ alsoInstalledAt: join(codexHome, 'hooks.json') });
  });

  it('refuses invalid JSON and symlinked settings without touching them', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    mkdirSync(join(repo, '.claude'));
    writeFileSync(join(repo, '.claude', 'settings.local.json'), '{ "hooks": ');
    const bad = await runCli(['hooks', 'install', '--harness', 'claude-code'], { cwd: repo, env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/not valid JSON; not touching it/);
    expect(readFileSync(join(repo, '.claude', 'settings.local.json'), 'utf8')).toBe('{ "hooks": ');
    const elsewhere = join(tempDir(), 'real.json');
    writeFileSync(elsewhere, '{}');
    mkdirSync(join(repo, '.codex'));
    symlinkSync(elsewhere, join(repo, '.codex', 'hooks.json'));
    const link = await runCli(['hooks', 'install', '--harness', 'codex'], { cwd: repo, env });
    expect(link.code).toBe(7);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{}');
    // an event that is not a list of groups is someone's mistake: refused, never replaced
    const malformed = '{"hooks":{"Stop":{"x":1}},"model":"opus"}';
    writeFileSync(join(repo, '.claude', 'settings.local.json'), malformed);
    const shape = await runCli(['hooks', 'install', '--harness', 'claude-code'], { cwd: repo, env });
    expect(shape.code).toBe(3);
    expect(shape.stderr).toMatch(/"hooks\.Stop" is not a list; not touching it/);
    expect(readFileSync(join(repo, '.claude', 'settings.local.json'), 'utf8')).toBe(malformed);
  });

  it('accepts a settings file that starts with a byte order mark', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    mkdirSync(join(repo, '.claude'));
    writeFileSync(join(repo, '.claude', 'settings.local.json'), '\ufeff{"model":"opus"}\n');
    const r = await runCli(['hooks', 'install', '--harness', 'claude-code'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(readFileSync(join(repo, '.claude', 'settings.local.json'), 'utf8')) as { model: string; hooks: Record<string, unknown> };
    expect(after.model).toBe('opus');
    expect(Object.keys(after.hooks).sort()).toEqual(['PreCompact', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
  });
});
