/**
 * Regression tests for the security review of doctor / fmt / share / read (all through the CLI):
 * fmt through a linked folder, reads of an id whose only file is a skipped link, file names that
 * sanitising would merge, hidden characters, and team memories linking to local-only memories.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string | Buffer): string {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

interface FmtJson {
  counts: Record<string, number>;
  files: Array<{ path: string; status: string; code?: string; message?: string }>;
}

interface DoctorJson {
  problems: Array<{ severity: string; code: string; path: string; line?: number; message: string; hint: string }>;
}

describe('vault fmt never writes through a symbolic link', () => {
  it('a symlinked kind folder: fmt <path>, fmt <folder> and fmt with no paths leave the outside file alone', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    expect((await runCli(['init'], { cwd: repo, env })).code).toBe(0);
    const outside = tempDir('vault-outside-');
    const crlf = memoryText({ id: 'mem_sec_outside' }, 'Outside the vault.').replace(/\n/g, '\r\n');
    writeFileSync(join(outside, 'm.md'), crlf);
    rmdirSync(join(repo, '.ecc/memory/team/notes'));
    symlinkSync(outside, join(repo, '.ecc/memory/team/notes'));
    // a normal file that must still be formatted
    const inside = put(repo, 'team/facts/mem_sec_inside.md', memoryText({ id: 'mem_sec_inside', kind: 'fact' }, 'Inside.').replace(/\n/g, '\r\n'));

    for (const args of [
      ['fmt', 'team/notes/m.md'],
      ['fmt', '.ecc/memory/team/notes/m.md'],
      ['fmt', join(repo, '.ecc/memory/team/notes/m.md')],
    ]) {
      const r = await runCli([...args, '--json'], { cwd: repo, env });
      expect(r.code, r.stdout + r.stderr).toBe(3);
      const out = JSON.parse(r.stdout) as FmtJson;
      expect(out.files).toHaveLength(1);
      expect(out.files[0]).toMatchObject({ status: 'refused', code: 'symlink' });
      expect(out.files[0]!.message).toMatch(/folder on the path is a symbolic link/);
      expect(readFileSync(join(outside, 'm.md'), 'utf8')).toBe(crlf);
    }
    const text = await runCli(['fmt', 'team/notes/m.md'], { cwd: repo, env });
    expect(text.stdout).toMatch(/refused\s+team\/notes\/m\.md: a folder on the path is a symbolic link/);
    const linkedFolder = await runCli(['fmt', 'team/notes', '--json'], { cwd: repo, env });
    expect(linkedFolder.code).toBe(3);
    expect((JSON.parse(linkedFolder.stdout) as FmtJson).files[0]).toMatchObject({ status: 'refused', code: 'symlink' });

    for (const args of [
      ['fmt', '--json'],
      ['fmt', 'team', '--json'],
      ['fmt', '.', '--json'],
    ]) {
      const r = await runCli(args, { cwd: repo, env });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as FmtJson;
      expect(out.files.map((f) => f.path)).not.toContain('team/notes/m.md');
      expect(readFileSync(join(outside, 'm.md'), 'utf8')).toBe(crlf);
    }
    expect(readFileSync(inside, 'utf8')).not.toContain('\r\n'); // the real file was formatted
    expect(readdirSync(outside)).toEqual(['m.md']); // no temp file either
  });

  it('a symlinked scope folder or .ecc/memory: refused; a path outside the scope folders: refused with a clear error', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const crlf = memoryText({ id: 'mem_sec_scope' }, 'Moved scope.').replace(/\n/g, '\r\n');
    const elsewhere = tempDir('vault-outside-');
    mkdirSync(join(elsewhere, 'notes'));
    writeFileSync(join(elsewhere, 'notes', 'mem_sec_scope.md'), crlf);
    mkdirSync(join(repo, '.ecc/memory/project'), { recursive: true });
    symlinkSync(elsewhere, join(repo, '.ecc/memory/team'));
    for (const args of [['fmt', 'team/notes/mem_sec_scope.md'], ['fmt'], ['fmt', 'team']]) {
      const r = await runCli([...args, '--json'], { cwd: repo, env });
      const out = JSON.parse(r.stdout) as FmtJson;
      expect(out.counts.formatted).toBe(0);
      expect(readFileSync(join(elsewhere, 'notes', 'mem_sec_scope.md'), 'utf8')).toBe(crlf);
    }
    // the whole .ecc/memory behind a link
    const moved = join(tempDir(), 'memory');
    renameSync(join(repo, '.ecc/memory'), moved);
    symlinkSync(moved, join(repo, '.ecc/memory'));
    mkdirSync(join(moved, 'project', 'notes'), { recursive: true });
    writeFileSync(join(moved, 'project', 'notes', 'mem_sec_p.md'), memoryText({ id: 'mem_sec_p', scope: 'project' }, 'p').replace(/\n/g, '\r\n'));
    const viaRoot = await runCli(['fmt', 'project/notes/mem_sec_p.md', '--json'], { cwd: repo, env });
    expect(viaRoot.code).toBe(3);
    expect((JSON.parse(viaRoot.stdout) as FmtJson).files[0]).toMatchObject({ status: 'refused', code: 'symlink' });
    expect((await runCli(['fmt', '--json'], { cwd: repo, env })).stdout).not.toContain('mem_sec_p');
    expect(readFileSync(join(moved, 'project', 'notes', 'mem_sec_p.md'), 'utf8')).toContain('\r\n');

    // outside every scope folder
    const stray = join(tempDir(), 'mem_sec_stray.md');
    writeFileSync(stray, memoryText({ id: 'mem_sec_stray' }, 'stray').replace(/\n/g, '\r\n'));
    const r = await runCli(['fmt', stray, '--json'], { cwd: repo, env });
    expect(r.code).toBe(3);
    const f = (JSON.parse(r.stdout) as FmtJson).files[0]!;
    expect(f).toMatchObject({ status: 'refused', code: 'outside-vault' });
    expect(f.message).toMatch(/not inside a scope folder of the vault/);
    expect(readFileSync(stray, 'utf8')).toContain('\r\n');
  });

  it('vault share never moves a memory found only behind a linked project kind folder', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = JSON.parse((await runCli(['save', '--kind', 'fact', '--title', 'Linked', '--body', 'Stays.', '--json'], { cwd: repo, env })).stdout);
    const facts = join(repo, '.ecc/memory/project/facts');
    const real = join(tempDir(), 'facts');
    renameSync(facts, real);
    symlinkSync(real, facts);
    const r = await runCli(['share', saved.id, '--json'], { cwd: repo, env });
    expect(r.code).toBe(6); // the scan never enters the linked folder: the lookup is incomplete, nothing moves
    expect(existsSync(join(real, `${saved.id}.md`))).toBe(true);
    expect(existsSync(join(repo, '.ecc/memory/team/facts', `${saved.id}.md`))).toBe(false);
  });
});

describe('vault read: a skipped symlink named <id>.md fails closed', () => {
  it('answers "incomplete" (exit 6), not "not found", when the only <id>.md is a symlink', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/mem_sec_real.md', memoryText({ id: 'mem_sec_real' }, 'Real.'));
    const target = join(tempDir(), 'target.md');
    writeFileSync(target, memoryText({ id: 'mem_sec_linked' }, 'Behind a link.'));
    symlinkSync(target, join(repo, '.ecc/memory/team/notes/mem_sec_linked.md'));
    const linked = await runCli(['read', 'mem_sec_linked', '--json'], { cwd: repo, env });
    expect(linked.code).toBe(6);
    const err = JSON.parse(linked.stdout).error;
    expect(err.code).toBe('read-incomplete');
    expect(err.message).toContain('team/notes/mem_sec_linked.md is a symbolic link');
    // in a deeper folder of another scope too
    const deeper = join(repo, '.ecc/memory/project/notes/sub');
    mkdirSync(deeper, { recursive: true });
    symlinkSync(target, join(deeper, 'mem_sec_other.md'));
    expect((await runCli(['read', 'mem_sec_other'], { cwd: repo, env })).code).toBe(6);
    // other ids are unaffected
    const real = await runCli(['read', 'mem_sec_real'], { cwd: repo, env });
    expect(real.code, real.stdout + real.stderr).toBe(0);
    const absent = await runCli(['read', 'mem_sec_absent'], { cwd: repo, env });
    expect(absent.code, absent.stdout + absent.stderr).toBe(4);
  });
});

describe('file names that needed cleaning stay distinct', () => {
  it('doctor and fmt text print them JSON-quoted; --format github escapes by the annotation rules', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/fi\u001b[1mfo.md', '---\nbroken\n');
    put(repo, 'team/notes/fifo.md', '---\nbroken\n');
    put(repo, 'team/notes/a,b:c%d.txt', 'stray');
    const text = await runCli(['doctor', '--no-index-check'], { cwd: repo, env });
    expect(text.code).toBe(1);
    expect(text.stdout).not.toContain('\u001b');
    const headers = text.stdout.split('\n').filter((l) => l.startsWith('team/') || l.startsWith('"'));
    expect(headers, text.stdout).toEqual(['team/notes/a,b:c%d.txt', '"team/notes/fi\\u001b[1mfo.md"', 'team/notes/fifo.md']);

    const gh = await runCli(['doctor', '--format', 'github', '--no-index-check'], { cwd: repo, env });
    expect(gh.code).toBe(1);
    expect(gh.stdout).toContain('::error file=.ecc/memory/team/notes/fi\u001b[1mfo.md,');
    expect(gh.stdout).toContain('::error file=.ecc/memory/team/notes/fifo.md,');
    expect(gh.stdout).toContain('file=.ecc/memory/team/notes/a%2Cb%3Ac%25d.txt,');

    const fmt = await runCli(['fmt'], { cwd: repo, env });
    expect(fmt.code).toBe(3);
    expect(fmt.stdout).toMatch(/refused\s+"team\/notes\/fi\\u001b\[1mfo\.md":/);
    expect(fmt.stdout).toMatch(/refused\s+team\/notes\/fifo\.md:/);
    expect(fmt.stdout).not.toContain('\u001b');
  });
});

describe('doctor: invisible-characters and team-links-local', () => {
  it('warns about zero-width and tag characters in a title or body, with the line; ZWJ emoji are fine', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/mem_sec_zw_title.md', memoryText({ id: 'mem_sec_zw_title', title: 'Deploy\u200b steps' }, 'Plain body.'));
    put(
      repo,
      'team/notes/mem_sec_tag_body.md',
      memoryText({ id: 'mem_sec_tag_body' }, `Line one.\n\nLooks empty:${String.fromCodePoint(0xe0049, 0xe0067, 0xe006e)} here.`),
    );
    put(repo, 'team/notes/mem_sec_wj.md', memoryText({ id: 'mem_sec_wj' }, 'word\u2060joiner'));
    put(repo, 'team/notes/mem_sec_emoji.md', memoryText({ id: 'mem_sec_emoji' }, 'Family: 👨\u200d👩\u200d👧 fine.'));
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0); // warnings only
    const got = (JSON.parse(r.stdout) as DoctorJson).problems.map((p) => [p.path, p.code, p.line, p.severity, p.message]);
    expect(got).toEqual([
      ['team/notes/mem_sec_tag_body.md', 'invisible-characters', 19, 'warning', 'body contains an invisible character (U+E0049)'],
      ['team/notes/mem_sec_wj.md', 'invisible-characters', 17, 'warning', 'body contains an invisible character (U+2060)'],
      ['team/notes/mem_sec_zw_title.md', 'invisible-characters', 4, 'warning', 'title contains an invisible character (U+200B)'],
    ]);
    expect((await runCli(['doctor', '--strict', '--no-index-check'], { cwd: repo, env })).code).toBe(1);
  });

  it('warns when a team memory links to a project memory (frontmatter or wikilink), with the share hint', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'project/.gitignore', '*\n!.gitignore\n');
    put(repo, 'project/notes/mem_sec_local.md', memoryText({ id: 'mem_sec_local', scope: 'project' }, 'Local only.'));
    put(repo, 'team/notes/mem_sec_shared.md', memoryText({ id: 'mem_sec_shared' }, 'Team.'));
    put(repo, 'team/notes/mem_sec_fm.md', memoryText({ id: 'mem_sec_fm', links: ['mem_sec_local', 'mem_sec_shared'] }, 'Links in frontmatter.'));
    put(repo, 'team/notes/mem_sec_wiki.md', memoryText({ id: 'mem_sec_wiki' }, 'See [[mem_sec_shared]].\n\nAnd [[mem_sec_local|the local one]].'));
    // project → project or project → team links are fine
    put(repo, 'project/notes/mem_sec_local2.md', memoryText({ id: 'mem_sec_local2', scope: 'project', links: ['mem_sec_local', 'mem_sec_shared'] }, 'ok'));
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const problems = (JSON.parse(r.stdout) as DoctorJson).problems;
    expect(problems.map((p) => [p.path, p.code, p.line, p.severity])).toEqual([
      ['team/notes/mem_sec_fm.md', 'team-links-local', 12, 'warning'],
      ['team/notes/mem_sec_wiki.md', 'team-links-local', 19, 'warning'],
    ]);
    expect(problems[0]!.message).toMatch(/links names mem_sec_local, a project-scope memory: it is not committed/);
    expect(problems[1]!.message).toMatch(/wikilink \[\[mem_sec_local\]\]/);
    expect(problems[0]!.hint).toBe('share the target with `vault share mem_sec_local` (then commit it), or drop the link');
    // following the hint clears the warning
    expect((await runCli(['share', 'mem_sec_local'], { cwd: repo, env })).code).toBe(0);
    const after = await runCli(['doctor', '--json', '--strict', '--no-index-check'], { cwd: repo, env });
    expect(after.code, after.stdout).toBe(0);
  });
});
