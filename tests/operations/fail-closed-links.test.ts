/**
 * Fail-closed answers where the vault cannot be seen (hardening item 7): a symbolic link that may
 * be a folder of memories, a FIFO named like a memory, and a save --id through a linked `.ecc`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

async function readCode(repo: string, env: Record<string, string>, id: string): Promise<{ exit: number; code: string; message: string }> {
  const r = await runCli(['read', id, '--json'], { cwd: repo, env });
  const err = r.code === 0 ? { code: 'found', message: '' } : JSON.parse(r.stdout).error;
  return { exit: r.code, code: err.code, message: err.message };
}

describe('fail-closed: what the vault cannot see', () => {
  it('a symlinked kind folder or subfolder holding memories makes read "incomplete" and search complete: false', async () => {
    for (const linkAt of ['team/notes', 'team/notes/archive', 'project/decisions']) {
      const repo = gitRepo();
      const env = cliEnv();
      const outside = tempDir('vault-outside-');
      put(outside, 'mem_fc_outside.md', memoryText({ id: 'mem_fc_outside' }, 'Outside the vault: queue retries.'));
      put(repo, '.ecc/memory/team/decisions/mem_fc_inside.md', memoryText({ id: 'mem_fc_inside', kind: 'decision' }, 'Inside: queue retries.'));
      mkdirSync(dirname(join(repo, '.ecc/memory', linkAt)), { recursive: true });
      symlinkSync(outside, join(repo, '.ecc/memory', linkAt));
      for (const id of ['mem_fc_outside', 'mem_fc_inside', 'mem_fc_nowhere']) {
        const r = await readCode(repo, env, id);
        expect(r, `${linkAt}: ${id}`).toMatchObject({ exit: 6, code: 'read-incomplete' });
        expect(r.message).not.toMatch(/not found/);
      }
      const s = await runCli(['search', 'queue retries', '--json'], { cwd: repo, env });
      const out = JSON.parse(s.stdout);
      expect(out.diagnostics.complete, linkAt).toBe(false);
      expect(out.diagnostics.incompleteReasons.join(' ')).toMatch(/symbolic link/);
      expect(JSON.stringify(out.results)).not.toContain('mem_fc_outside');
    }
  });

  it.skipIf(process.platform === 'win32')(
    'a symlink named <name>.md that points to a folder: read is "incomplete" (exit 6), doctor reports a symlink',
    async () => {
      for (const built of [false, true]) {
        const repo = gitRepo();
        const env = cliEnv();
        const outside = tempDir('vault-outside-');
        put(outside, 'mem_fc_outside.md', memoryText({ id: 'mem_fc_outside' }, 'Outside the vault: queue retries.'));
        put(repo, '.ecc/memory/team/notes/mem_fc_inside.md', memoryText({ id: 'mem_fc_inside' }, 'Inside: queue retries.'));
        if (built) expect((await runCli(['search', 'queue'], { cwd: repo, env })).code).toBe(0); // the index exists before the link
        symlinkSync(outside, join(repo, '.ecc/memory/team/notes/folder.md'));
        for (const id of ['mem_fc_outside', 'mem_fc_inside', 'mem_fc_nowhere']) {
          expect(await readCode(repo, env, id), `built=${built} ${id}`).toMatchObject({ exit: 6, code: 'read-incomplete' });
        }
        const s = JSON.parse((await runCli(['search', 'queue retries', '--json'], { cwd: repo, env })).stdout);
        expect(s.diagnostics.complete).toBe(false);
        expect(JSON.stringify(s.results)).not.toContain('mem_fc_outside');
        const d = await runCli(['doctor', '--json'], { cwd: repo, env });
        const found = JSON.parse(d.stdout).problems.filter((x: { code: string }) => x.code === 'symlink');
        expect(found.map((x: { path: string }) => x.path)).toContain('team/notes/folder.md');
      }
    },
  );

  it.skipIf(process.platform === 'win32')('a FIFO named <id>.md: read is "incomplete", save --id says it exists, nothing blocks', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, '.ecc/memory/team/notes/mem_fc_other.md', memoryText({ id: 'mem_fc_other' }, 'Other.'));
    mkdirSync(join(repo, '.ecc/memory/team/notes'), { recursive: true });
    expect(spawnSync('mkfifo', [join(repo, '.ecc/memory/team/notes/mem_fc_fifo.md')]).status).toBe(0);
    expect(await readCode(repo, env, 'mem_fc_fifo')).toMatchObject({ exit: 6, code: 'read-incomplete' });
    const saved = await runCli(['save', '--scope', 'team', '--id', 'mem_fc_fifo', '--title', 't', '--body', 'b', '--json'], { cwd: repo, env });
    expect(JSON.parse(saved.stdout).error.code).toBe('already-exists');
    const s = JSON.parse((await runCli(['search', 'other', '--json'], { cwd: repo, env })).stdout);
    expect(s.diagnostics.complete).toBe(false);
  });

  it.skipIf(process.platform === 'win32')(
    'a FIFO or socket named <id>.md after the index was built: read is still "incomplete" (the folder check falls back)',
    async () => {
      const repo = gitRepo();
      const env = cliEnv();
      put(repo, '.ecc/memory/team/notes/mem_fc_other.md', memoryText({ id: 'mem_fc_other' }, 'Other.'));
      expect((await runCli(['search', 'other'], { cwd: repo, env })).code).toBe(0); // builds the index
      expect(spawnSync('mkfifo', [join(repo, '.ecc/memory/team/notes/mem_fc_fifo.md')]).status).toBe(0);
      expect(await readCode(repo, env, 'mem_fc_fifo')).toMatchObject({ exit: 6, code: 'read-incomplete' });
      expect(await readCode(repo, env, 'mem_fc_nothing')).toMatchObject({ exit: 6, code: 'read-incomplete' });
      const s = JSON.parse((await runCli(['search', 'other', '--json'], { cwd: repo, env })).stdout);
      expect(s.diagnostics.complete).toBe(false);
    },
  );

  it('save --id through a symlinked .ecc gives one answer whether or not the file exists behind it', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const outside = tempDir('vault-outside-');
    put(outside, 'memory/project/notes/mem_fc_behind.md', memoryText({ id: 'mem_fc_behind', scope: 'project' }, 'Behind the link.'));
    put(outside, 'memory/team/notes/mem_fc_behind_team.md', memoryText({ id: 'mem_fc_behind_team' }, 'Behind the link.'));
    symlinkSync(outside, join(repo, '.ecc'));
    for (const scope of ['project', 'team']) {
      const answers = [];
      for (const id of ['mem_fc_behind', 'mem_fc_behind_team', 'mem_fc_absent']) {
        for (const dry of [[], ['--dry-run']]) {
          const r = await runCli(['save', '--scope', scope, '--id', id, '--title', 't', '--body', 'b', '--json', ...dry], { cwd: repo, env });
          answers.push({ exit: r.code, error: JSON.stringify(JSON.parse(r.stdout).error).replaceAll(id, 'ID') });
        }
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size, JSON.stringify(answers)).toBe(1);
      expect(answers[0]!.error).toMatch(/symlink-refused/);
      expect(answers[0]!.error).not.toMatch(/already exists/);
    }
  });
});
