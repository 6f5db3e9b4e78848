import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runCli, tempDir } from '../helpers/cli.js';

describe('vault init --obsidian', () => {
  it('writes a minimal .obsidian config only when asked', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const plain = await runCli(['init'], { cwd: repo, env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(existsSync(join(repo, '.ecc/memory/.obsidian'))).toBe(false);

    const r = await runCli(['init', '--obsidian', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).obsidian).toEqual([
      {
        dir: '.ecc/memory/.obsidian',
        written: ['app.json', 'types.json', '.gitignore'],
        kept: [],
        gitignore: { path: '.ecc/memory/.gitignore', written: true },
      },
    ]);
    const dir = join(repo, '.ecc/memory/.obsidian');
    const app = JSON.parse(readFileSync(join(dir, 'app.json'), 'utf8'));
    expect(app).toMatchObject({
      userIgnoreFilters: ['.index/', '.trash/'],
      newFileLocation: 'folder',
      newFileFolderPath: 'inbox',
      attachmentFolderPath: 'attachments',
      useMarkdownLinks: false,
    });
    const types = JSON.parse(readFileSync(join(dir, 'types.json'), 'utf8')).types;
    // Declared text so that Obsidian never offers its "Date & time" type, which would rewrite them.
    expect(types).toMatchObject({ created_at: 'text', updated_at: 'text', tags: 'tags', links: 'multitext', target_harnesses: 'multitext' });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('workspace.json\nworkspace-mobile.json\n');
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'app.json', 'types.json']);
  });

  it('never overwrites an existing config file, and says so', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const mine = '{\n  "vimMode": true\n}';
    mkdirSync(join(repo, '.ecc/memory/.obsidian'), { recursive: true });
    writeFileSync(join(repo, '.ecc/memory/.obsidian/app.json'), mine);
    const r = await runCli(['init', '--obsidian'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('obsidian .ecc/memory/.obsidian: wrote types.json, .gitignore; kept existing app.json');
    expect(readFileSync(join(repo, '.ecc/memory/.obsidian/app.json'), 'utf8')).toBe(mine);
    const again = await runCli(['init', '--obsidian'], { cwd: repo, env });
    expect(again.stdout).toContain('nothing written; kept existing app.json, types.json, .gitignore');
  });

  it('refuses a symlinked .obsidian folder and writes nothing through it', async () => {
    const repo = gitRepo();
    const elsewhere = tempDir();
    mkdirSync(join(repo, '.ecc/memory'), { recursive: true });
    symlinkSync(elsewhere, join(repo, '.ecc/memory/.obsidian'));
    const r = await runCli(['init', '--obsidian'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('for the user scope, writes a private config into the user root', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await runCli(['init', '--scope', 'user', '--obsidian'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const app = join(env.ECC_MEMORY_USER_ROOT!, '.obsidian/app.json');
    expect(statSync(app).mode & 0o777).toBe(0o600);
    expect(existsSync(join(repo, '.ecc/memory/.obsidian'))).toBe(false);
  });

  it("ignores Obsidian's .trash/, inbox/ and attachments/: git never lists them, the scanner never reads them", async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const args of [
      ['init', '--obsidian'],
      ['init', '--obsidian', '--scope', 'user'],
    ]) {
      const r = await runCli(args, { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
    }
    const user = env.ECC_MEMORY_USER_ROOT!;
    expect(readFileSync(join(repo, '.ecc/memory/.gitignore'), 'utf8')).toBe('/.trash/\n/inbox/\n/attachments/\n');
    expect(existsSync(join(user, '.gitignore'))).toBe(false); // the user vault is outside git
    for (const vault of [join(repo, '.ecc/memory'), user]) {
      for (const [rel, text] of [
        ['inbox/Untitled.md', '# started in Obsidian\n'],
        ['attachments/diagram.png', 'png'],
        ['.trash/old.md', '# deleted in Obsidian\n'],
      ] as const) {
        mkdirSync(join(vault, rel, '..'), { recursive: true });
        writeFileSync(join(vault, rel), text);
      }
    }
    const status = git(repo, 'status', '--porcelain', '--untracked-files=all');
    expect(status).not.toMatch(/inbox|attachments|\.trash/);
    expect(status).toContain('.ecc/memory/.gitignore');
    // the user vault's root holds its kind folders: inbox/ and attachments/ there are skipped too
    const saved = await runCli(['save', '--scope', 'user', '--title', 'Prefers pnpm', '--body', 'Use pnpm.', '--json'], { cwd: repo, env });
    expect(saved.code, saved.stderr).toBe(0);
    const read = await runCli(['read', JSON.parse(saved.stdout).id, '--scope', 'user'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    for (const scope of ['user', 'project']) {
      const doctor = await runCli(['doctor', '--scope', scope, '--strict'], { cwd: repo, env });
      expect(doctor.code, doctor.stdout).toBe(0);
      expect(doctor.stdout).toMatch(/^no problems/);
    }
  });

  it('keeps an existing vault .gitignore and says so', async () => {
    const repo = gitRepo({ '.ecc/memory/.gitignore': '/scratch/\n' });
    const r = await runCli(['init', '--obsidian'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ignore   .ecc/memory/.gitignore: kept existing (add /.trash/, /inbox/, /attachments/ to it yourself if missing)');
    expect(readFileSync(join(repo, '.ecc/memory/.gitignore'), 'utf8')).toBe('/scratch/\n');
  });
});
