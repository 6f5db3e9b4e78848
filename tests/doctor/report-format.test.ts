import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command-context.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string): void {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function vaultWithProblems(): string {
  const repo = gitRepo();
  put(repo, 'team/notes/mem_out_a.md', memoryText({ id: 'mem_out_a', links: ['mem_out_gone'] }, 'A.'));
  put(repo, 'team/notes/mem_out_b.md', memoryText({ id: 'mem_out_b', tags: ['2024'] }, 'B.'));
  // a hostile file name: terminal escapes must not reach the terminal
  put(repo, 'team/notes/evil\u001b[31mname.txt', 'stray');
  put(repo, 'team/notes/forged\n0 errors, 0 warnings.txt', 'stray');
  return repo;
}

/** Runs the CLI in-process with a fake terminal. */
async function inProcess(args: string[], cwd: string, tty: boolean, env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    readStdin: async () => Buffer.alloc(0),
    stdoutIsTTY: tty,
    runtime: nodeRuntime({ cwd, env, home: tempDir() }),
  };
  const code = await main(args, io);
  return { code, out };
}

describe('doctor output', () => {
  it('text: grouped by file, line, severity, code, fix, and one summary line; exit 1 on errors', async () => {
    const repo = vaultWithProblems();
    const r = await runCli(['doctor', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([
      '"team/notes/evil\\u001b[31mname.txt"', // escapes visible, JSON-quoted: never merged with "evilname.txt"
      expect.stringMatching(/^\s+-\s+warning\s+not a memory file .*stray-file$/),
      expect.stringMatching(/^\s+fix: /),
    ]);
    expect(r.stdout).toMatch(
      /team\/notes\/mem_out_a\.md\n\s+12\s+error\s+links names mem_out_gone, which is not in the vault .* broken-link\n\s+fix: remove mem_out_gone from links/,
    );
    expect(r.stdout).toMatch(/team\/notes\/mem_out_b\.md\n\s+11\s+warning\s+tag 2024 is purely numeric/);
    expect(r.stdout).toContain('"team/notes/forged\\n0 errors, 0 warnings.txt"\n');
    expect(r.stdout.split('\n').filter((l) => /^\d+ errors?,/.test(l))).toEqual(['1 error, 3 warnings in 4 files (2 memory files checked, 2 valid)']);
  });

  it('colour only on a terminal, and never with NO_COLOR', async () => {
    const repo = vaultWithProblems();
    const base = { PATH: process.env.PATH, HOME: tempDir() };
    const tty = await inProcess(['doctor', '--no-index-check'], repo, true, base);
    expect(tty.code).toBe(1);
    expect(tty.out).toContain('\u001b[31merror\u001b[39m');
    expect(tty.out).not.toContain('\u001b[31mname'); // the file name's own escape is removed
    const noColor = await inProcess(['doctor', '--no-index-check'], repo, true, { ...base, NO_COLOR: '1' });
    expect(noColor.out).not.toContain('\u001b');
    const pipe = await inProcess(['doctor', '--no-index-check'], repo, false, base);
    expect(pipe.out).not.toContain('\u001b');
    expect(pipe.out.replace(/\s+/g, ' ')).toBe(noColor.out.replace(/\s+/g, ' '));
  });

  it('json has the documented shape; --strict turns warnings into exit 1; a clean vault exits 0', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/mem_out_ok.md', memoryText({ id: 'mem_out_ok' }, 'ok'));
    const clean = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({
      ok: true,
      problems: [],
      counts: { errors: 0, warnings: 0, infos: 0, memories: 1, files: 0, checked: 1, ignored: 0 },
      scopes: ['project', 'team'],
      complete: true,
    });
    expect((await runCli(['doctor', '--no-index-check'], { cwd: repo, env })).stdout).toMatch(/^no problems \(1 memory file checked, 1 valid\)\n$/);
    put(repo, 'team/notes/mem_out_warn.md', memoryText({ id: 'mem_out_warn', tags: ['2024'] }, 'warn'));
    const warn = await runCli(['doctor', '--format', 'json', '--no-index-check'], { cwd: repo, env });
    expect(warn.code).toBe(0);
    const report = JSON.parse(warn.stdout);
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([
      {
        severity: 'warning',
        code: 'obsidian-tag',
        path: 'team/notes/mem_out_warn.md',
        line: 11,
        message: 'tag 2024 is purely numeric, so Obsidian does not treat it as a tag',
        hint: 'add a letter (e.g. y2024 instead of 2024) or use "-" instead of "."',
      },
    ]);
    const strict = await runCli(['doctor', '--strict', '--json', '--no-index-check'], { cwd: repo, env });
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout).ok).toBe(false);
  });

  it('reports a missing or wrong project .gitignore, and a symlinked vault folder', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'project/notes/mem_out_p.md', memoryText({ id: 'mem_out_p', scope: 'project' }, 'local'));
    const missing = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(missing.problems.map((p: { code: string; path: string }) => `${p.path} ${p.code}`)).toEqual(['project/.gitignore gitignore-missing']);
    put(repo, 'project/.gitignore', '*\n');
    const wrong = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(wrong.problems.map((p: { code: string; line?: number }) => `${p.code}:${p.line}`)).toEqual(['gitignore-wrong:2']);
    put(repo, 'project/.gitignore', '*\n!.gitignore\n');
    expect((await runCli(['doctor', '--no-index-check'], { cwd: repo, env })).code).toBe(0);
    // a symlinked scope folder, and a symlinked .ecc/memory: never followed, reported, incomplete
    const elsewhere = tempDir();
    mkdirSync(join(elsewhere, 'notes'));
    writeFileSync(join(elsewhere, 'notes', 'mem_out_x.md'), memoryText({ id: 'mem_out_x' }, 'x'));
    symlinkSync(elsewhere, join(repo, '.ecc/memory/team'));
    const linkedScope = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(linkedScope.problems.map((p: { code: string; path: string }) => `${p.path} ${p.code}`)).toEqual(['team/ scan-incomplete', 'team/ symlink']);
    expect(linkedScope.complete).toBe(false);
    const moved = join(tempDir(), 'memory');
    renameSync(join(repo, '.ecc/memory'), moved);
    symlinkSync(moved, join(repo, '.ecc/memory'));
    const linkedVault = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(linkedVault.code).toBe(1);
    const codes = JSON.parse(linkedVault.stdout).problems.map((p: { code: string; path: string }) => `${p.path} ${p.code}`);
    expect(codes).toContain('.ecc/memory/ symlink');
    expect(codes.filter((c: string) => c.endsWith('scan-incomplete'))).toHaveLength(2);
    expect(linkedVault.stdout).not.toContain('mem_out_p');
  });
});
