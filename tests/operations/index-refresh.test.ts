import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

describe('vault save keeps the search index current', () => {
  it('doctor --strict is clean right after saves, and search finds the new memory', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const title of ['Rotate the staging certificates monthly', 'Postgres migrations take a lock']) {
      const r = await runCli(['save', '--scope', 'team', '--kind', 'runbook', '--title', title, '--body', `${title}.`, '--json'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
    }
    const doctor = await runCli(['doctor', '--strict', '--json'], { cwd: repo, env });
    expect(doctor.stdout).not.toContain('index-stale');
    expect(doctor.code, doctor.stdout).toBe(0);
    const search = await runCli(['search', 'certificate', '--json'], { cwd: repo, env });
    const out = JSON.parse(search.stdout) as { results: Array<{ title: string }>; diagnostics: { index: Array<{ scope: string; action: string }> } };
    expect(out.results.map((r) => r.title)).toEqual(['Rotate the staging certificates monthly']);
    // the save already put it in the index: the search only re-checks the file written within the racy window
    expect(out.diagnostics.index.find((i) => i.scope === 'team')?.action).not.toBe('rebuilt');
  });

  it('share and handoff keep it current too', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = await runCli(['save', '--title', 'Local note to share', '--body', 'Shared later.', '--json'], { cwd: repo, env });
    expect(saved.code, saved.stderr).toBe(0);
    const share = await runCli(['share', JSON.parse(saved.stdout).id], { cwd: repo, env });
    expect(share.code, share.stderr).toBe(0);
    const handoff = await runCli(
      ['handoff', '--from', 'codex', '--target', 'all', '--title', 'Where the migration stands', '--body', 'Step 3 of 5 is done.', '--scope', 'team'],
      { cwd: repo, env },
    );
    expect(handoff.code, handoff.stderr).toBe(0);
    const doctor = await runCli(['doctor', '--strict', '--json'], { cwd: repo, env });
    expect(doctor.stdout).not.toContain('index-');
    expect(doctor.code, doctor.stdout).toBe(0);
  });
});
