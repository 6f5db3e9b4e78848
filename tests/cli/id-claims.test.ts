/**
 * One id, one file (hardening item 4): saves of one explicit --id racing into different kinds and
 * scopes, and an id already inside a file of another name.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runBin, runCli } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function memoryFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.md') && !f.split('/').some((p) => p.startsWith('.')));
  } catch {
    return [];
  }
}

describe('one id, one file', () => {
  it('20 racers of one --id across kinds and scopes (project, team, user) give exactly one file', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const id = 'mem_claimed_once';
    const scopes = ['project', 'team', 'user'];
    const kinds = ['note', 'decision', 'fact', 'lesson', 'runbook'];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runBin(['save', '--scope', scopes[i % 3]!, '--kind', kinds[i % 5]!, '--id', id, '--title', `racer ${i}`, '--body', `Body ${i}.`], { cwd: repo, env }),
      ),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    for (const r of results.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/already exists|being saved by another process/);
    }
    const files = [...memoryFiles(join(repo, '.ecc/memory')), ...memoryFiles(env.ECC_MEMORY_USER_ROOT!)];
    expect(files, JSON.stringify(files)).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`${id}\\.md$`));
    // no claim survives a finished save
    expect(readdirSync(join(repo, '.git/ecc-memory-claims'))).toEqual([]);
  }, 60_000);

  it('refuses --id X when X is already inside a file with another name (also as a dry run)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    mkdirSync(join(repo, '.ecc/memory/team/notes'), { recursive: true });
    writeFileSync(join(repo, '.ecc/memory/team/notes/other-name.md'), memoryText({ id: 'mem_inside_other' }, 'Held under another name.'));
    for (const scope of ['team', 'project', 'user']) {
      for (const dry of [[], ['--dry-run']]) {
        const r = await runCli(['save', '--scope', scope, '--id', 'mem_inside_other', '--title', 't', '--body', 'b', '--json', ...dry], { cwd: repo, env });
        expect(r.code, `${scope} ${dry}`).toBe(5);
        expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'already-exists' });
        expect(JSON.parse(r.stdout).error.message).toContain('team/notes/other-name.md');
      }
    }
    expect(memoryFiles(join(repo, '.ecc/memory'))).toEqual(['team/notes/other-name.md']);
  });

  it('a claim left by a killed save does not block the id for ever', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    mkdirSync(join(repo, '.git/ecc-memory-claims'), { recursive: true });
    // a claim of a process that no longer exists
    writeFileSync(join(repo, '.git/ecc-memory-claims/mem_was_claimed'), '999999999 0\n');
    const r = await runCli(['save', '--id', 'mem_was_claimed', '--title', 't', '--body', 'b'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(repo, '.git/ecc-memory-claims'))).toEqual([]);
  });
});
