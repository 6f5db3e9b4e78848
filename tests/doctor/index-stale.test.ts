/**
 * Doctor's "index stale or missing" warnings, through the search module's indexStatus.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/run-doctor.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { resolveRoots } from '../../src/store/roots.js';
import { refreshIndex } from '../../src/search/index/index-status.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string): void {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  // written well before the index refresh, so no same-second change detection applies
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(file, past, past);
}

describe('doctor and the search index', () => {
  it('warns when the index is missing, is quiet when fresh, warns again when a file changed', async () => {
    const repo = gitRepo();
    put(repo, 'team/notes/mem_idx_a.md', memoryText({ id: 'mem_idx_a' }, 'Alpha.'));
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: {}, home: tempDir() }));
    const codes = async (opts = {}) => (await runDoctor(roots, opts)).problems.map((p) => `${p.path} ${p.code}`);
    expect(await codes()).toEqual(['team/ index-missing']); // project scope is empty: nothing to index
    expect(await codes({ checkIndex: false })).toEqual([]);
    refreshIndex(roots);
    expect(await codes()).toEqual([]);
    put(repo, 'team/notes/mem_idx_b.md', memoryText({ id: 'mem_idx_b' }, 'Beta.'));
    const report = await runDoctor(roots);
    expect(report.problems.map((p) => `${p.path} ${p.code} ${p.severity}`)).toEqual(['team/ index-stale warning']);
    expect(report.problems[0]!.message).toMatch(/1 added since the last refresh/);
    expect(report.ok).toBe(true);
    // the index is a cache: --strict reports it but does not fail on it
    const strict = await runDoctor(roots, { strict: true });
    expect(strict.problems.map((p) => p.code)).toEqual(['index-stale']);
    expect(strict.ok).toBe(true);
  });

  it('through the CLI: doctor warns, vault index fixes it, doctor is clean', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/mem_idx_c.md', memoryText({ id: 'mem_idx_c' }, 'Gamma.'));
    const before = await runCli(['doctor', '--json'], { cwd: repo, env });
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).problems.map((p: { code: string }) => p.code)).toEqual(['index-missing']);
    const strict = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(strict.stdout).toMatch(/index-missing/);
    expect(strict.stdout).not.toMatch(/--strict: warnings fail/);
    expect(strict.code).toBe(0); // a cache warning: --strict does not fail on it
    const index = await runCli(['index'], { cwd: repo, env });
    expect(index.code, index.stderr).toBe(0);
    const after = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(after.stdout).toMatch(/^no problems/);
    expect(after.code).toBe(0);
  });
});
