/**
 * doctor's duplicate-memory warning: an active memory with the same title and body as an older
 * active one (after NFKC, case folding and collapsing whitespace) is one memory saved twice, e.g.
 * once on each of two branches. The newer copy is reported with the `vault retire --rejected` fix;
 * retired copies, different bodies and a user-scope copy of a team memory (read apart) are not.
 * Through the CLI, on a real git repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function plant(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

describe('doctor: duplicate memories', () => {
  it('warns on the newer of two active copies with the retire fix, and not on near misses', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const mem = join(repo, '.ecc', 'memory');
    expect((await runCli(['init'], { cwd: repo, env })).code).toBe(0);
    const body = 'We store sessions in Redis.\nTTL 14 days.';
    const saved = await runCli(['save', '--scope', 'team', '--kind', 'decision', '--title', 'Use Redis sessions', '--body', body, '--json'], {
      cwd: repo,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    const first = JSON.parse(saved.stdout) as { id: string; path: string };
    // the same memory saved on another branch: other id, other case and spacing, a project copy
    const copy = {
      id: 'mem_20991231_copyofredis',
      scope: 'project',
      kind: 'decision',
      title: 'use  REDIS sessions',
      created_at: '2099-12-31T00:00:00.000Z',
      updated_at: '2099-12-31T00:00:00.000Z',
    };
    plant(mem, 'project/decisions/mem_20991231_copyofredis.md', memoryText(copy, 'We store sessions in Redis.   TTL 14 days.'));
    // near misses: another body; a retired copy; a user-scope copy (the user scope is read apart)
    plant(
      mem,
      'team/decisions/mem_20991231_otherbody.md',
      memoryText({ ...copy, id: 'mem_20991231_otherbody', scope: 'team' }, 'We store sessions in Postgres.'),
    );
    plant(mem, 'team/decisions/mem_20991231_retired.md', memoryText({ ...copy, id: 'mem_20991231_retired', scope: 'team', status: 'rejected' }, body));
    const userRoot = env.ECC_MEMORY_USER_ROOT!;
    plant(userRoot, 'decisions/mem_20991231_usercopy.md', memoryText({ ...copy, id: 'mem_20991231_usercopy', scope: 'user' }, body));

    const r = await runCli(['doctor', '--json', '--no-index-check', '--scope', 'team', 'project', 'user'], { cwd: repo, env });
    const report = JSON.parse(r.stdout) as { problems: Array<{ code: string; path: string; line: number; severity: string; message: string; hint: string }> };
    const dups = report.problems.filter((p) => p.code === 'duplicate-memory');
    expect(dups).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: 'project/decisions/mem_20991231_copyofredis.md',
        line: 4,
        message: expect.stringContaining(first.id),
        hint: expect.stringContaining('vault retire mem_20991231_copyofredis --rejected'),
      }),
    ]);
    expect(r.code, JSON.stringify(report.problems)).toBe(0);
    expect((await runCli(['doctor', '--strict', '--no-index-check'], { cwd: repo, env })).code).toBe(1);

    // the fix the hint gives clears it
    const retire = await runCli(['retire', 'mem_20991231_copyofredis', '--rejected'], { cwd: repo, env });
    expect(retire.code, retire.stderr).toBe(0);
    const after = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(JSON.parse(after.stdout).problems.filter((p: { code: string }) => p.code === 'duplicate-memory')).toEqual([]);
  });
});
