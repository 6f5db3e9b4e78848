import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../src/document/parse.js';
import { cliEnv, gitRepo, memoryFixture, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string | Buffer): string {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const OBSIDIAN = memoryFixture('obsidian/mem_20260904_5be28d1f0a7c93e4b6d1.md');

describe('vault fmt', () => {
  it('treats both list spellings as canonical and never rewrites one into the other; saves write the reference form', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const compact = put(
      repo,
      'team/notes/mem_lists_compact.md',
      memoryText({ id: 'mem_lists_compact', tags: ['auth', 'db'] }, 'Compact lists.').replace('["auth", "db"]', '["auth","db"]'),
    );
    const spaced = put(repo, 'team/notes/mem_lists_spaced.md', memoryText({ id: 'mem_lists_spaced', tags: ['auth', 'db'] }, 'Spaced lists.'));
    expect(readFileSync(compact, 'utf8')).toContain('tags: ["auth","db"]\n');
    expect(readFileSync(spaced, 'utf8')).toContain('tags: ["auth", "db"]\n');
    const before = [readFileSync(compact), readFileSync(spaced)];
    const fmt = await runCli(['fmt', '--json'], { cwd: repo, env });
    expect(fmt.code, fmt.stderr).toBe(0);
    expect(JSON.parse(fmt.stdout).counts).toMatchObject({ unchanged: 2, formatted: 0 });
    expect(readFileSync(compact).equals(before[0]!)).toBe(true);
    expect(readFileSync(spaced).equals(before[1]!)).toBe(true);
    const doctor = await runCli(['doctor', '--strict', '--no-index-check'], { cwd: repo, env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const saved = await runCli(
      ['save', '--scope', 'team', '--title', 'Compact on disk', '--body', 'New files use the reference form.', '--tag', 'a', '--tag', 'b', '--json'],
      { cwd: repo, env },
    );
    expect(saved.code, saved.stderr).toBe(0);
    const text = readFileSync(join(repo, '.ecc/memory', JSON.parse(saved.stdout).path), 'utf8');
    expect(text).toContain('target_harnesses: ["all"]\ntags: ["a","b"]\nlinks: []\n');
  });

  it('rewrites BOM, CRLF and Obsidian block-style YAML to the canonical form with the same values', async () => {
    const repo = gitRepo();
    // its handoffs are dated 2026: their age is not what this test checks (tests/doctor/stale-handoff.test.ts does)
    const env = cliEnv({ ECC_HANDOFF_STALE_DAYS: '36500' });
    const files = {
      obsidian: put(repo, 'team/handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md', OBSIDIAN),
      crlf: put(repo, 'team/notes/mem_fmt_crlf.md', memoryText({ id: 'mem_fmt_crlf', tags: ['a', 'b'] }, 'Line one.\nLine two.').replace(/\n/g, '\r\n')),
      bom: put(repo, 'team/notes/mem_fmt_bom.md', `\uFEFF${memoryText({ id: 'mem_fmt_bom' }, 'BOM.')}`),
      canonical: put(repo, 'team/notes/mem_fmt_ok.md', memoryText({ id: 'mem_fmt_ok' }, 'Fine.')),
    };
    put(
      repo,
      'team/handoffs/mem_20260903_a41c7e9b2d05f3816c4e.md',
      memoryText({ id: 'mem_20260903_a41c7e9b2d05f3816c4e', kind: 'handoff' }, 'So the link resolves.'),
    );
    put(repo, 'team/notes/mem_20260910_dlqalert.md', memoryText({ id: 'mem_20260910_dlqalert' }, 'So the wikilink resolves.'));
    chmodSync(files.crlf, 0o600);
    const before = Object.fromEntries(
      Object.entries(files).map(([k, f]) => [
        k,
        { bytes: readFileSync(f), memory: parseMemory(readFileSync(f)).memory, mtime: statSync(f).mtimeMs, mode: statSync(f).mode & 0o777 },
      ]),
    );

    const check = await runCli(['fmt', '--check'], { cwd: repo, env });
    expect(check.code, check.stderr).toBe(1);
    expect(check.stdout).toMatch(/3 would change, 3 already canonical/);
    for (const [k, f] of Object.entries(files)) expect(readFileSync(f).equals(before[k]!.bytes)).toBe(true);

    const doctorBefore = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(doctorBefore.problems.filter((p: { code: string }) => p.code === 'non-canonical')).toHaveLength(3);

    const fmt = await runCli(['fmt', '--json'], { cwd: repo, env });
    expect(fmt.code, fmt.stderr).toBe(0);
    expect(JSON.parse(fmt.stdout).counts).toEqual({ unchanged: 3, formatted: 3, 'would-format': 0, refused: 0 });
    for (const [k, f] of Object.entries(files)) {
      const parsed = parseMemory(readFileSync(f));
      expect(parsed.canonical).toBe(true);
      expect(parsed.memory).toEqual(before[k]!.memory); // values never change
    }
    expect(readFileSync(files.canonical).equals(before.canonical!.bytes)).toBe(true);
    expect(statSync(files.canonical).mtimeMs).toBe(before.canonical!.mtime); // untouched
    expect(readFileSync(files.obsidian, 'utf8')).toContain('target_harnesses: ["claude"]\ntags: ["queue","reliability"]\n');
    expect(statSync(files.crlf).mode & 0o777).toBe(before.crlf!.mode); // permissions kept
    // no temp files left behind
    expect(readdirSync(dirname(files.crlf)).filter((n) => n.startsWith('.'))).toEqual([]);
    const again = await runCli(['fmt', '--check'], { cwd: repo, env });
    expect(again.code).toBe(0);
    const doctorAfter = JSON.parse((await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env })).stdout);
    expect(doctorAfter.problems).toEqual([]);
  });

  it('refuses an invalid file and a symlink, leaves them untouched, and accepts vault-relative paths', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const bad = put(repo, 'team/notes/mem_fmt_bad.md', memoryText({ id: 'mem_fmt_bad', kind: 'nonsense' }).replace(/\n/g, '\r\n'));
    const good = put(repo, 'team/notes/mem_fmt_good.md', memoryText({ id: 'mem_fmt_good' }).replace(/\n/g, '\r\n'));
    const target = join(tempDir(), 'outside.md');
    writeFileSync(target, memoryText({ id: 'mem_fmt_outside' }).replace(/\n/g, '\r\n'));
    symlinkSync(target, join(repo, '.ecc/memory/team/notes/mem_fmt_link.md'));
    const badBytes = readFileSync(bad);
    const r = await runCli(['fmt', 'team/notes/mem_fmt_bad.md', 'team/notes/mem_fmt_link.md', 'team/notes/mem_fmt_good.md'], { cwd: repo, env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/refused\s+team\/notes\/mem_fmt_bad.md:5: invalid document, not formatted: kind: must be one of/);
    expect(r.stdout).toMatch(/refused\s+team\/notes\/mem_fmt_link.md: symbolic link/);
    expect(r.stdout).toMatch(/formatted\s+team\/notes\/mem_fmt_good.md \(crlf\)/);
    expect(readFileSync(bad).equals(badBytes)).toBe(true);
    expect(lstatSync(join(repo, '.ecc/memory/team/notes/mem_fmt_link.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('\r\n');
    expect(parseMemory(readFileSync(good)).canonical).toBe(true);
    const missing = await runCli(['fmt', 'nope.md'], { cwd: repo, env });
    expect(missing.code).toBe(4); // not found
    expect(missing.stdout).toContain('nope.md: does not exist [not-found]');
  });
});

describe('vault share', () => {
  it('moves a project memory into the team scope, same values but scope, and prints git add', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = JSON.parse(
      (await runCli(['save', '--kind', 'lesson', '--title', 'Share me', '--body', 'Useful for the team.', '--tag', 'ci', '--json'], { cwd: repo, env })).stdout,
    );
    const projectFile = join(repo, '.ecc/memory/project/lessons', `${saved.id}.md`);
    const before = parseMemory(readFileSync(projectFile)).memory;
    const r = await runCli(['share', saved.id], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const teamRel = `.ecc/memory/team/lessons/${saved.id}.md`;
    expect(r.stdout).toContain(`git add ${teamRel}`);
    expect(existsSync(projectFile)).toBe(false);
    const after = parseMemory(readFileSync(join(repo, teamRel)));
    expect(after.canonical).toBe(true);
    expect(after.memory).toEqual({ ...before, scope: 'team' });
    expect(after.memory.trust).toBe('unreviewed');
    expect(statSync(join(repo, teamRel)).mode & 0o777).toBe(0o644);
    const read = await runCli(['read', saved.id, '--json'], { cwd: repo, env });
    expect(JSON.parse(read.stdout)).toMatchObject({ scope: 'team', path: `team/lessons/${saved.id}.md` });
    const again = await runCli(['share', saved.id, '--json'], { cwd: repo, env });
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout).error.message).toMatch(/already in the team scope/);
  });

  it('keeps the original when the team write fails, and refuses when the vault is not fully readable', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = JSON.parse((await runCli(['save', '--kind', 'fact', '--title', 'Stay', '--body', 'Must not be lost.', '--json'], { cwd: repo, env })).stdout);
    const projectFile = join(repo, '.ecc/memory/project/facts', `${saved.id}.md`);
    const bytes = readFileSync(projectFile);
    // the team kind folder is a symbolic link: the lookup is incomplete (the link may hold
    // memories) and the create-only writer would refuse it too
    const elsewhere = tempDir();
    mkdirSync(join(repo, '.ecc/memory/team'), { recursive: true });
    symlinkSync(elsewhere, join(repo, '.ecc/memory/team/facts'));
    const r = await runCli(['share', saved.id], { cwd: repo, env });
    expect(r.code).toBe(6);
    expect(readFileSync(projectFile).equals(bytes)).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(join(repo, '.ecc/memory/team/facts'));
    // an invalid file in project/team that could be this memory: fail-closed, nothing moves
    put(repo, 'team/notes/mem_broken.md', `---\nid: ${saved.id}\n`);
    const incomplete = await runCli(['share', saved.id], { cwd: repo, env });
    expect(incomplete.code).toBe(6);
    expect(readFileSync(projectFile).equals(bytes)).toBe(true);
    rmSync(join(repo, '.ecc/memory/team/notes/mem_broken.md'));
    const notFound = await runCli(['share', 'mem_no_such_memory'], { cwd: repo, env });
    expect(notFound.code).toBe(4);
    const ok = await runCli(['share', saved.id], { cwd: repo, env });
    expect(ok.code, ok.stderr).toBe(0);
  });
});
