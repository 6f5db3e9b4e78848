/**
 * `vault hooks install --instructions` (src/operations/install-instructions.ts): the recall
 * protocol as a Claude Code skill and as a delimited block in AGENTS.md for Codex (GEMINI.md for Gemini CLI); idempotent,
 * shown in the dry-run diff, removed exactly by uninstall.
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS_BLOCK, BLOCK_BEGIN, SKILL_TEXT } from '../../src/operations/install-instructions.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';

const run = (repo: string, env: Record<string, string>, ...args: string[]) => runCli(['hooks', ...args, '--command', 'vault'], { cwd: repo, env });

describe('vault hooks install --instructions', () => {
  it('claude-code: a skill in .claude/skills/vault-recall/SKILL.md, idempotent, in the dry run, removed with its folder by uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const skill = join(repo, '.claude', 'skills', 'vault-recall', 'SKILL.md');
    const dry = await run(repo, env, 'install', '--harness', 'claude-code', '--instructions', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: would change ${skill}`);
    expect(dry.stdout).toContain('+ name: vault-recall');
    expect(existsSync(skill)).toBe(false);
    const first = await run(repo, env, 'install', '--harness', 'claude-code', '--instructions');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('meant to be committed');
    expect(readFileSync(skill, 'utf8')).toBe(SKILL_TEXT);
    expect(SKILL_TEXT).toMatch(/vault search/);
    expect(SKILL_TEXT).toMatch(/vault save/);
    expect(SKILL_TEXT).toMatch(/unreviewed/);
    const again = await run(repo, env, 'install', '--harness', 'claude-code', '--instructions', '--json');
    expect(JSON.parse(again.stdout).instructions).toMatchObject({ file: skill, changed: false, changes: [] });
    const gone = await run(repo, env, 'uninstall', '--harness', 'claude-code');
    expect(gone.code, gone.stderr).toBe(0);
    expect(existsSync(join(repo, '.claude', 'skills', 'vault-recall'))).toBe(false);
  });

  it('codex: a delimited block in AGENTS.md after the existing text, idempotent; uninstall gives back the exact bytes', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const agents = join(repo, 'AGENTS.md');
    const original = '# Agents\n\nRun `npm test` before every commit.\n';
    writeFileSync(agents, original);
    const dry = await run(repo, env, 'install', '--harness', 'codex', '--instructions', '--dry-run', '--json');
    expect(JSON.parse(dry.stdout).instructions.diff).toContain(`+ ${BLOCK_BEGIN}`);
    expect(readFileSync(agents, 'utf8')).toBe(original);
    expect((await run(repo, env, 'install', '--harness', 'codex', '--instructions')).code).toBe(0);
    const installed = readFileSync(agents, 'utf8');
    expect(installed).toBe(`${original}\n${AGENTS_BLOCK}\n`);
    expect((await run(repo, env, 'install', '--harness', 'codex', '--instructions')).code).toBe(0);
    expect(readFileSync(agents, 'utf8')).toBe(installed);
    // text the user adds after the block stays; the block's content is refreshed in place
    writeFileSync(agents, `${installed.replace('Memories are unreviewed', 'Memories are UNREVIEWED')}\n## Later\n`);
    expect((await run(repo, env, 'install', '--harness', 'codex', '--instructions')).code).toBe(0);
    expect(readFileSync(agents, 'utf8')).toBe(`${installed}\n## Later\n`);
    writeFileSync(agents, installed);
    expect((await run(repo, env, 'uninstall', '--harness', 'codex')).code).toBe(0);
    expect(readFileSync(agents, 'utf8')).toBe(original);
    // an AGENTS.md that held only the block is removed
    const fresh = gitRepo();
    expect((await run(fresh, env, 'install', '--harness', 'codex', '--instructions')).code).toBe(0);
    expect(readFileSync(join(fresh, 'AGENTS.md'), 'utf8')).toBe(`${AGENTS_BLOCK}\n`);
    expect((await run(fresh, env, 'uninstall', '--harness', 'codex')).code).toBe(0);
    expect(existsSync(join(fresh, 'AGENTS.md'))).toBe(false);
  });

  it('gemini-cli: the same block in GEMINI.md (the file Gemini CLI reads), AGENTS.md untouched; uninstall gives back the exact bytes', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const gemini = join(repo, 'GEMINI.md');
    const original = '# Shop\n\nUse pnpm.\n';
    writeFileSync(gemini, original);
    const r = await run(repo, env, 'install', '--harness', 'gemini-cli', '--instructions');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(gemini, 'utf8')).toBe(`${original}\n${AGENTS_BLOCK}\n`);
    expect(existsSync(join(repo, 'AGENTS.md'))).toBe(false);
    expect((await run(repo, env, 'install', '--harness', 'gemini-cli', '--instructions')).stdout).toContain('recall protocol already installed');
    expect((await run(repo, env, 'uninstall', '--harness', 'gemini-cli')).code).toBe(0);
    expect(readFileSync(gemini, 'utf8')).toBe(original);
  });

  it('cursor: the block in AGENTS.md (Cursor reads it as project instructions), removed by uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await run(repo, env, 'install', '--harness', 'cursor', '--instructions');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(repo, 'AGENTS.md'), 'utf8')).toBe(`${AGENTS_BLOCK}\n`);
    expect((await run(repo, env, 'uninstall', '--harness', 'cursor')).code).toBe(0);
    expect(existsSync(join(repo, 'AGENTS.md'))).toBe(false);
    expect(existsSync(join(repo, '.cursor', 'hooks.json'))).toBe(false);
  });

  it('on a terminal, install asks one y/N question when neither --instructions nor --no-instructions is given', async () => {
    const ask = (repo: string, env: Record<string, string>, keys: string[] | undefined, ...extra: string[]) =>
      runCli(['hooks', 'install', '--harness', 'codex', '--command', 'vault', ...extra], { cwd: repo, env, ...(keys ? { keys, tty: true } : {}) });
    const question = /Also install the recall protocol in .*AGENTS\.md \(a file meant to be committed\)\? \[y\/N\] /;
    // y: asked once, answered, installed
    const yes = gitRepo();
    const env = cliEnv();
    const keysYes = ['y'];
    const r = await ask(yes, env, keysYes);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(question);
    expect(r.stdout.match(/\[y\/N\]/g)).toHaveLength(1);
    expect(keysYes).toEqual([]);
    expect(readFileSync(join(yes, 'AGENTS.md'), 'utf8')).toBe(`${AGENTS_BLOCK}\n`);
    expect(existsSync(join(yes, '.codex', 'hooks.json'))).toBe(true);
    // n, Enter, anything else: no protocol, the hooks still installed
    for (const key of ['n', '\r', 'x', '\u0003']) {
      const no = gitRepo();
      const n = await ask(no, env, [key]);
      expect(n.code, n.stderr).toBe(0);
      expect(n.stdout).toMatch(question);
      expect(existsSync(join(no, 'AGENTS.md')), JSON.stringify(key)).toBe(false);
      expect(existsSync(join(no, '.codex', 'hooks.json'))).toBe(true);
    }
    // not a terminal: no question, no protocol
    const plain = gitRepo();
    const p = await ask(plain, env, undefined);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).not.toMatch(/\[y\/N\]/);
    expect(existsSync(join(plain, 'AGENTS.md'))).toBe(false);
    // a flag answers the question beforehand; --json never asks; a dry run asks and shows the diff
    for (const [flag, installed] of [
      ['--instructions', true],
      ['--no-instructions', false],
    ] as const) {
      const repo = gitRepo();
      const keys = ['y'];
      const f = await ask(repo, env, keys, flag);
      expect(f.stdout).not.toMatch(/\[y\/N\]/);
      expect(keys).toEqual(['y']);
      expect(existsSync(join(repo, 'AGENTS.md'))).toBe(installed);
    }
    const json = gitRepo();
    const j = await ask(json, env, ['y'], '--json');
    expect(JSON.parse(j.stdout).instructions).toBeUndefined();
    const dry = gitRepo();
    const d = await ask(dry, env, ['y'], '--dry-run');
    expect(d.stdout).toMatch(question);
    expect(d.stdout).toContain(`+ ${BLOCK_BEGIN}`);
    expect(existsSync(join(dry, 'AGENTS.md'))).toBe(false);
  });

  it('never writes through a symbolic link, and leaves a changed skill alone on uninstall', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const elsewhere = join(tempDir(), 'theirs.md');
    writeFileSync(elsewhere, 'theirs\n');
    symlinkSync(elsewhere, join(repo, 'AGENTS.md'));
    const r = await run(repo, env, 'install', '--harness', 'codex', '--instructions');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('theirs\n');
    expect((await run(repo, env, 'install', '--harness', 'claude-code', '--instructions')).code).toBe(0);
    const skill = join(repo, '.claude', 'skills', 'vault-recall', 'SKILL.md');
    writeFileSync(skill, `${SKILL_TEXT}\nMy own note.\n`);
    const u = await run(repo, env, 'uninstall', '--harness', 'claude-code');
    expect(u.code).toBe(0);
    expect(u.stderr).toMatch(/changed since vault installed it/);
    expect(readFileSync(skill, 'utf8')).toContain('My own note.');
  });

  it('--scope user: the files each harness reads for every project (skill in ~/.claude, $CODEX_HOME/AGENTS.md, ~/.gemini/GEMINI.md), never the worktree; Cursor is refused', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const codexHome = join(tempDir(), 'codex-home');
    const home = env.HOME!;
    const skill = join(home, '.claude', 'skills', 'vault-recall', 'SKILL.md');
    const c = await run(repo, env, 'install', '--harness', 'claude-code', '--scope', 'user', '--instructions');
    expect(c.code, c.stderr).toBe(0);
    expect(readFileSync(skill, 'utf8')).toBe(SKILL_TEXT);
    expect(c.stdout).not.toContain('meant to be committed');
    const x = await run(repo, { ...env, CODEX_HOME: codexHome }, 'install', '--harness', 'codex', '--scope', 'user', '--instructions');
    expect(x.code, x.stderr).toBe(0);
    expect(readFileSync(join(codexHome, 'AGENTS.md'), 'utf8')).toBe(`${AGENTS_BLOCK}\n`);
    const g = await run(repo, env, 'install', '--harness', 'gemini-cli', '--scope', 'user', '--instructions');
    expect(g.code, g.stderr).toBe(0);
    expect(readFileSync(join(home, '.gemini', 'GEMINI.md'), 'utf8')).toBe(`${AGENTS_BLOCK}\n`);
    for (const f of ['.claude/skills', 'AGENTS.md', 'GEMINI.md']) expect(existsSync(join(repo, f)), f).toBe(false);
    const cursor = await run(repo, env, 'install', '--harness', 'cursor', '--scope', 'user', '--instructions');
    expect(cursor.code).toBe(3);
    expect(cursor.stderr).toMatch(/Cursor reads no user-level instructions file/);
    expect(existsSync(join(home, '.cursor', 'hooks.json'))).toBe(false);
    // uninstall at user scope removes the user files and leaves the worktree's own alone
    writeFileSync(join(repo, 'AGENTS.md'), `# Ours\n\n${AGENTS_BLOCK}\n`);
    const u = await run(repo, env, 'uninstall', '--harness', 'claude-code', '--scope', 'user');
    expect(u.code, u.stderr).toBe(0);
    expect(existsSync(join(home, '.claude', 'skills', 'vault-recall'))).toBe(false);
    expect((await run(repo, { ...env, CODEX_HOME: codexHome }, 'uninstall', '--harness', 'codex', '--scope', 'user')).code).toBe(0);
    expect(existsSync(join(codexHome, 'AGENTS.md'))).toBe(false);
    expect(readFileSync(join(repo, 'AGENTS.md'), 'utf8')).toBe(`# Ours\n\n${AGENTS_BLOCK}\n`);
  });
});
