import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runCli } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

interface JsonProblem {
  severity: string;
  code: string;
  path: string;
  line?: number;
}

function put(repo: string, vaultPath: string, text: string | Buffer): void {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A repository with a committed team vault on main, and a feature branch with changes. */
function prRepo(): string {
  const repo = gitRepo();
  put(repo, 'team/decisions/mem_pr_a.md', memoryText({ id: 'mem_pr_a', kind: 'decision', title: 'A' }, 'Decision A.'));
  put(repo, 'team/notes/mem_pr_b.md', memoryText({ id: 'mem_pr_b', links: ['mem_pr_a'] }, 'B links A.'));
  put(repo, 'team/notes/mem_pr_c.md', memoryText({ id: 'mem_pr_c' }, 'C will be edited.'));
  put(repo, 'team/notes/mem_pr_f.md', memoryText({ id: 'mem_pr_f' }, 'F is claimed twice later.'));
  // An old problem on main that a PR did not cause: must not be reported with --changed.
  put(repo, 'team/notes/mem_pr_old_broken.md', memoryText({ id: 'mem_pr_old_broken', links: ['mem_pr_never_existed'] }, 'Old.'));
  put(repo, 'team/notes/old-stray.txt', 'stray\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'vault');
  git(repo, 'checkout', '-q', '-b', 'feature');
  // the pull request: edit C (CRLF), add D with a broken wikilink, add a second claim of F's id, delete A
  put(repo, 'team/notes/mem_pr_c.md', memoryText({ id: 'mem_pr_c' }, 'C was edited.').replace(/\n/g, '\r\n'));
  put(repo, 'team/notes/mem_pr_d.md', memoryText({ id: 'mem_pr_d' }, 'First line.\nSee [[mem_pr_missing]].'));
  put(repo, 'team/facts/mem_pr_f.md', memoryText({ id: 'mem_pr_f', kind: 'fact' }, 'Same id as F.'));
  rmSync(join(repo, '.ecc/memory/team/decisions/mem_pr_a.md'));
  return repo;
}

function summary(problems: JsonProblem[]): string[] {
  return problems.map((p) => `${p.path}:${p.line ?? '-'} ${p.code}`).sort();
}

const PR_PROBLEMS = [
  'team/facts/mem_pr_f.md:3 duplicate-id',
  'team/notes/mem_pr_b.md:12 broken-link', // unchanged file, but it links to the deleted A
  'team/notes/mem_pr_c.md:1 non-canonical',
  'team/notes/mem_pr_d.md:18 broken-link',
  'team/notes/mem_pr_f.md:3 duplicate-id', // unchanged file, vault-wide check
];

describe('doctor --changed / --staged in a real git repository', () => {
  it('--changed limits per-file checks to the PR and keeps vault-wide checks whole', async () => {
    const repo = prRepo();
    const env = cliEnv();
    const before = git(repo, 'status', '--porcelain', '--untracked-files=all', '--ignored');
    const gitIndex = statSync(join(repo, '.git/index')).mtimeMs;
    const r = await runCli(['doctor', '--changed', 'main', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { problems: JsonProblem[]; selection: { mode: string; ref: string; files: string[] } };
    expect(summary(report.problems)).toEqual(PR_PROBLEMS);
    expect(report.selection).toMatchObject({
      mode: 'changed',
      ref: 'main',
      files: ['team/facts/mem_pr_f.md', 'team/notes/mem_pr_c.md', 'team/notes/mem_pr_d.md'],
    });
    // the whole-vault run also sees the old problems
    const all = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout) as { problems: JsonProblem[] };
    expect(summary(all.problems)).toEqual([...PR_PROBLEMS, 'team/notes/mem_pr_old_broken.md:12 broken-link', 'team/notes/old-stray.txt:- stray-file'].sort());
    // doctor never writes: the working tree is exactly as before, git's index untouched
    expect(statSync(join(repo, '.git/index')).mtimeMs).toBe(gitIndex);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all', '--ignored')).toBe(before);
  });

  it('--changed also sees committed PR changes (merge base), not changes made on main since', async () => {
    const repo = prRepo();
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'pr');
    git(repo, 'checkout', '-q', 'main');
    put(repo, 'team/notes/mem_main_later.md', memoryText({ id: 'mem_main_later', links: ['mem_nowhere'] }, 'Added on main later.'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'main moves on');
    git(repo, 'checkout', '-q', 'feature');
    const r = await runCli(['doctor', '--changed', 'main', '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(1);
    expect(summary((JSON.parse(r.stdout) as { problems: JsonProblem[] }).problems)).toEqual(PR_PROBLEMS);
  });

  it('--staged checks only staged files', async () => {
    const repo = prRepo();
    git(repo, 'add', '.ecc/memory/team/notes/mem_pr_c.md');
    const r = await runCli(['doctor', '--staged', '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(0); // a warning only
    const report = JSON.parse(r.stdout) as { ok: boolean; problems: JsonProblem[]; selection: { files: string[] } };
    expect(summary(report.problems)).toEqual(['team/notes/mem_pr_c.md:1 non-canonical']);
    expect(report.selection.files).toEqual(['team/notes/mem_pr_c.md']);
    const strict = await runCli(['doctor', '--staged', '--strict'], { cwd: repo, env: cliEnv() });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/--strict: warnings fail/);
    git(repo, 'add', '.ecc/memory/team/notes/mem_pr_d.md');
    const r2 = await runCli(['doctor', '--staged', '--json'], { cwd: repo, env: cliEnv() });
    expect(r2.code).toBe(1);
    expect(summary((JSON.parse(r2.stdout) as { problems: JsonProblem[] }).problems)).toEqual([
      'team/notes/mem_pr_c.md:1 non-canonical',
      'team/notes/mem_pr_d.md:18 broken-link',
    ]);
  });

  it('--staged checks the staged content, not the working tree', async () => {
    const repo = prRepo();
    const env = cliEnv();
    const e = '.ecc/memory/team/notes/mem_pr_e.md';
    // staged: a broken link on line 12; working tree: fixed but not staged
    put(repo, 'team/notes/mem_pr_e.md', memoryText({ id: 'mem_pr_e', links: ['mem_pr_nowhere'] }, 'E.'));
    git(repo, 'add', e);
    put(repo, 'team/notes/mem_pr_e.md', memoryText({ id: 'mem_pr_e' }, 'E, fixed on disk only.'));
    // staged: fine; working tree: broken after staging (must not block this commit)
    git(repo, 'add', '.ecc/memory/team/notes/mem_pr_d.md');
    put(repo, 'team/notes/mem_pr_d.md', '---\nbroken after staging\n');
    // staged: invalid frontmatter; working tree: deleted
    put(repo, 'team/notes/mem_pr_g.md', memoryText({ id: 'mem_pr_g', kind: 'nonsense' }, 'G.'));
    git(repo, 'add', '.ecc/memory/team/notes/mem_pr_g.md');
    rmSync(join(repo, '.ecc/memory/team/notes/mem_pr_g.md'));
    // a staged symbolic link
    symlinkSync('/etc/hostname', join(repo, '.ecc/memory/team/notes/mem_pr_link.md'));
    git(repo, 'add', '.ecc/memory/team/notes/mem_pr_link.md');
    const r = await runCli(['doctor', '--staged', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { problems: JsonProblem[] };
    expect(summary(report.problems)).toEqual([
      'team/notes/mem_pr_d.md:18 broken-link', // the staged D still links to a missing memory
      'team/notes/mem_pr_e.md:12 broken-link',
      'team/notes/mem_pr_g.md:5 invalid-field',
      'team/notes/mem_pr_link.md:- symlink',
    ]);
    // the whole-vault run sees the working tree instead
    const wt = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout) as { problems: JsonProblem[] };
    const wtE = wt.problems.filter((p) => p.path.endsWith('mem_pr_e.md') || p.path.endsWith('mem_pr_d.md') || p.path.endsWith('mem_pr_g.md'));
    expect(summary(wtE)).toEqual(['team/notes/mem_pr_d.md:1 unclosed-frontmatter']);
  });

  it('--format github prints workflow annotations with repository paths and lines', async () => {
    const repo = prRepo();
    const r = await runCli(['doctor', '--changed', 'main', '--format', 'github'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    const annotation = /^::(error|warning|notice) file=([^,:]+),line=(\d+),title=([^:]+)::(.+)$/;
    const parsed = lines.slice(0, -1).map((l) => {
      const m = annotation.exec(l);
      expect(m, l).not.toBeNull();
      return { level: m![1]!, file: m![2]!, line: Number(m![3]), title: decodeURIComponent(m![4]!.replace(/%3A/g, ':').replace(/%2C/g, ',')), message: m![5]! };
    });
    expect(parsed.map((p) => `${p.level} ${p.file}:${p.line}`).sort()).toEqual(
      [
        'error .ecc/memory/team/facts/mem_pr_f.md:3',
        'error .ecc/memory/team/notes/mem_pr_b.md:12',
        'warning .ecc/memory/team/notes/mem_pr_c.md:1',
        'error .ecc/memory/team/notes/mem_pr_d.md:18',
        'error .ecc/memory/team/notes/mem_pr_f.md:3',
      ].sort(),
    );
    for (const p of parsed) {
      expect(existsSync(join(repo, p.file))).toBe(true); // GitHub maps it to the PR's file
      expect(p.title).toMatch(/^vault doctor: [a-z-]+$/);
    }
    // the annotated line really is the one named: the broken wikilink in D
    const d = parsed.find((p) => p.file.endsWith('mem_pr_d.md'))!;
    expect(readFileSync(join(repo, d.file), 'utf8').split('\n')[d.line - 1]).toContain('[[mem_pr_missing]]');
    expect(lines.at(-1)).toMatch(/^4 errors, 1 warning in 5 files/);
  });

  it('usage and environment errors have their exit codes', async () => {
    const repo = prRepo();
    const env = cliEnv();
    const both = await runCli(['doctor', '--changed', 'main', '--staged'], { cwd: repo, env });
    expect(both.code).toBe(2);
    const badRef = await runCli(['doctor', '--changed', 'no-such-branch'], { cwd: repo, env });
    expect(badRef.code).toBe(2);
    expect(badRef.stderr).toMatch(/not a commit/);
    const option = await runCli(['doctor', '--changed=--output=/tmp/x'], { cwd: repo, env });
    expect(option.code).toBe(2);
    const badFormat = await runCli(['doctor', '--format', 'xml'], { cwd: repo, env });
    expect(badFormat.code).toBe(2);
    const notGit = await runCli(['doctor', '--staged', '--root', join(repo, '.ecc/memory')], { cwd: dirname(repo), env });
    expect(notGit.code).toBe(7);
    const teamIsFile = await runCli(['doctor', '--root', join(repo, 'x')], { cwd: repo, env: { ...env } });
    expect(teamIsFile.code, teamIsFile.stdout + teamIsFile.stderr).toBe(0); // a missing vault is an empty vault
    put(repo, '../x/team', 'not a folder');
    const unreadable = await runCli(['doctor', '--root', join(repo, '.ecc/x')], { cwd: repo, env });
    expect(unreadable.code).toBe(7);
  });
});
