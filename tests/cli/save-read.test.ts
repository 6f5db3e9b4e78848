import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, memoryFixture, runBin, runCli, tempDir } from '../helpers/cli.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

describe('vault save / read through the CLI', () => {
  it('saves a team decision, prints id and vault-relative path, and reads it back', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const title = "Use “Redis” sessions: C:\\tmp / 🎉 中文 'quoted'";
    const save = await runCli(
      ['save', '--scope', 'team', '--kind', 'decision', '--title', title, '--body', 'We store sessions in Redis.', '--tag', '#auth', '--json'],
      { cwd: repo, env },
    );
    expect(save.code, save.stderr).toBe(0);
    const out = JSON.parse(save.stdout);
    expect(out.id).toMatch(/^mem_\d{8}_[0-9a-f]{20}$/);
    expect(out).toMatchObject({ scope: 'team', kind: 'decision', path: `team/decisions/${out.id}.md` });
    const file = join(repo, '.ecc/memory/team/decisions', `${out.id}.md`);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`title: ${JSON.stringify(title)}\n`);
    expect(text).toContain('tags: ["auth"]\n');
    expect(text).toContain('trust: "unreviewed"\n');
    const read = await runCli(['read', out.id, '--json'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    const m = JSON.parse(read.stdout);
    expect(m).toMatchObject({
      id: out.id,
      title,
      kind: 'decision',
      scope: 'team',
      trust: 'unreviewed',
      status: 'active',
      tags: ['auth'],
      targetHarnesses: ['all'],
      sourceHarness: 'unknown',
      body: 'We store sessions in Redis.',
      path: out.path,
    });
  });

  it('defaults to a private project-scope note with a fail-closed .gitignore', async () => {
    const repo = gitRepo();
    const r = await runCli(['save', '--title', 't', '--body', 'b', '--json'], { cwd: repo, env: cliEnv({ ECC_MEMORY_HARNESS: 'codex' }) });
    expect(r.code, r.stderr).toBe(0);
    const { id } = JSON.parse(r.stdout);
    const proj = join(repo, '.ecc/memory/project');
    expect(readFileSync(join(proj, '.gitignore'), 'utf8')).toBe('*\n!.gitignore\n');
    const file = join(proj, 'notes', `${id}.md`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(proj, 'notes')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toContain('source_harness: "codex"');
  });

  it('accepts a 64 KiB body', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const ok = await runCli(['save', '--title', 'big', '--stdin', '--json'], { cwd: repo, env, input: 'x'.repeat(65536) });
    expect(ok.code, ok.stderr).toBe(0);
    // 64 KiB + 1 is refused (exit 3): tests/cli/cases.test.ts
  });

  it('20 processes saving the same --id: exactly one file, 19 clear errors', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const id = 'mem_race_condition_test';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runBin(['save', '--scope', 'team', '--id', id, '--title', `writer ${i}`, '--body', `body ${i}`], { cwd: repo, env }),
      ),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    const failures = results.filter((r) => r.code !== 0);
    expect(failures).toHaveLength(19);
    for (const f of failures) {
      expect(f.code).toBe(5);
      expect(f.stderr).toMatch(/already exists.*writes are create-only/);
    }
    // (the staging folder keeps only its .gitignore and the leftover sweep's mark: no temporary file survives)
    const files = filesUnder(join(repo, '.ecc/memory/team')).filter((f) => !/\.staging\/\.swept-[a-z]+$/.test(f));
    expect(files.map((f) => f.split('/').pop())).toEqual(['.gitignore', `${id}.md`]);
    expect(files[0]).toMatch(/\.staging\/\.gitignore$/);
  });

  it('refuses to write through a symlinked kind folder', async () => {
    const repo = gitRepo();
    const elsewhere = tempDir();
    mkdirSync(join(repo, '.ecc/memory/team'), { recursive: true });
    symlinkSync(elsewhere, join(repo, '.ecc/memory/team/notes'));
    const r = await runCli(['save', '--scope', 'team', '--title', 't', '--body', 'b'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('reads the reference fixtures and reports not-found, incomplete and ambiguous distinctly', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const older = memoryFixture('reference/mem_20260903_a41c7e9b2d05f3816c4e.md');
    const handoff = memoryFixture('reference/mem_20260904_5be28d1f0a7c93e4b6d1.md');
    mkdirSync(join(repo, '.ecc/memory/project/decisions'), { recursive: true });
    mkdirSync(join(repo, '.ecc/memory/project/handoffs'), { recursive: true });
    writeFileSync(join(repo, '.ecc/memory/project/.gitignore'), '*\n!.gitignore\n');
    writeFileSync(join(repo, '.ecc/memory/project/decisions/mem_20260903_a41c7e9b2d05f3816c4e.md'), older);
    writeFileSync(join(repo, '.ecc/memory/project/handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md'), handoff);
    const r = await runCli(['read', 'mem_20260903_a41c7e9b2d05f3816c4e', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout);
    expect(m.title).toBe('Queue retries use a fixed 30 s delay');
    expect(m.backlinks.map((b: { id: string }) => b.id)).toEqual(['mem_20260904_5be28d1f0a7c93e4b6d1']);
    expect((await runCli(['read', 'mem_missing_one'], { cwd: repo, env })).code).toBe(4);
    writeFileSync(join(repo, '.ecc/memory/project/notes-broken.md'), 'not a memory');
    mkdirSync(join(repo, '.ecc/memory/project/notes'), { recursive: true });
    writeFileSync(join(repo, '.ecc/memory/project/notes/broken.md'), '---\nid: x\n');
    // unrelated broken files do not block a lookup; one that holds the id does
    expect((await runCli(['read', 'mem_missing_one'], { cwd: repo, env })).code).toBe(4);
    writeFileSync(join(repo, '.ecc/memory/project/notes/broken.md'), '---\nid: mem_missing_one\n');
    const inc = await runCli(['read', 'mem_missing_one'], { cwd: repo, env });
    expect(inc.code).toBe(6);
    expect(inc.stderr).toMatch(/incomplete/);
  });
});
