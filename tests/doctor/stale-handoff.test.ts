/**
 * doctor's stale-handoff warning: an active handoff older than `ECC_HANDOFF_STALE_DAYS` days
 * (default 30, counted from created_at) is reported with the `vault retire` fix; a retired one,
 * a younger one and other kinds are not. Through the CLI, on a real git repository.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

const DAY_MS = 86_400_000;

/** Saves a team memory of `kind`, then dates it `days` ago (created_at and updated_at lines). */
async function savedDaysAgo(repo: string, env: Record<string, string>, kind: string, title: string, days: number): Promise<{ id: string; path: string }> {
  const r = await runCli(['save', '--scope', 'team', '--kind', kind, '--title', title, '--body', `Next: ${title}.`, '--json'], { cwd: repo, env });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const { id, path } = JSON.parse(r.stdout) as { id: string; path: string };
  const abs = join(repo, '.ecc', 'memory', ...path.split('/'));
  const at = new Date(Date.now() - days * DAY_MS).toISOString();
  writeFileSync(
    abs,
    readFileSync(abs, 'utf8')
      .replace(/^created_at: ".*"$/m, `created_at: "${at}"`)
      .replace(/^updated_at: ".*"$/m, `updated_at: "${at}"`),
  );
  return { id, path };
}

async function staleOf(repo: string, env: Record<string, string>): Promise<Array<{ path: string; line: number; message: string; hint: string }>> {
  const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
  return JSON.parse(r.stdout).problems.filter((p: { code: string }) => p.code === 'stale-handoff');
}

describe('doctor: stale handoffs', () => {
  it('warns about an active handoff older than 30 days, with the vault retire fix; ECC_HANDOFF_STALE_DAYS moves the bound', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const old = await savedDaysAgo(repo, env, 'handoff', 'Finish the migration', 40);
    const young = await savedDaysAgo(repo, env, 'handoff', 'Review the PR', 20);
    await savedDaysAgo(repo, env, 'decision', 'Use Postgres', 400);

    const found = await staleOf(repo, env);
    expect(found.map((p) => p.path)).toEqual([old.path]);
    expect(found[0]!.line).toBe(13); // the created_at line
    expect(found[0]!.message).toMatch(/^active handoff written 40 days ago \(\d{4}-\d\d-\d\d\); handoffs older than 30 days are stale$/);
    expect(found[0]!.hint).toContain(`vault retire ${old.id} --rejected`);
    expect((await runCli(['doctor', '--strict', '--no-index-check'], { cwd: repo, env })).code).toBe(1);

    expect((await staleOf(repo, { ...env, ECC_HANDOFF_STALE_DAYS: '60' })).map((p) => p.path)).toEqual([]);
    expect((await staleOf(repo, { ...env, ECC_HANDOFF_STALE_DAYS: '10' })).map((p) => p.path).sort()).toEqual([old.path, young.path].sort());
    // not a whole number of days ≥ 1: the default
    expect((await staleOf(repo, { ...env, ECC_HANDOFF_STALE_DAYS: 'soon' })).map((p) => p.path)).toEqual([old.path]);

    // retiring it is the fix: doctor --strict is clean again
    const retired = await runCli(['retire', old.id, '--rejected'], { cwd: repo, env });
    expect(retired.code, retired.stdout + retired.stderr).toBe(0);
    expect(await staleOf(repo, env)).toEqual([]);
    const strict = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(strict.code, strict.stdout).toBe(0);
  });
});
