/**
 * memory_save goes through the one save operation, like `vault save`: it reports similar memories
 * in its structured result (the `similar` list of `vault save --json`) and leaves the search index
 * current, so `vault doctor --strict` is clean right after and a search finds the new memory.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { callOk, startMcp } from '../helpers/mcp-client.js';

describe('vault mcp: memory_save is the save operation', () => {
  it('reports similar memories like vault save --json and refreshes the index', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'cursor' });
    const s = await startMcp(repo, env);
    const first = await callOk(s, 'memory_save', { title: 'Use Redis sessions', body: 'We store sessions in Redis for 14 days.', scope: 'team' });
    expect(first.similar).toEqual([]);
    expect(first.written).toBe(true);

    // the index is current without any search having run: doctor's index check is clean
    const doctor = await runCli(['doctor', '--strict', '--json'], { cwd: repo, env });
    expect(doctor.stdout).not.toContain('index-');
    expect(doctor.code, doctor.stdout).toBe(0);
    const index = JSON.parse((await runCli(['index', '--json'], { cwd: repo, env })).stdout);
    expect(index.scopes.find((x: { scope: string }) => x.scope === 'team')).toMatchObject({ exists: true, stale: false, documents: 1 });

    // the same title, folded: saved (no `unique` over MCP), with the similar memory named
    const dup = await callOk(s, 'memory_save', { title: 'use redis  SESSIONS!', body: 'Other words entirely.', scope: 'team' });
    expect(dup.written).toBe(true);
    expect(dup.similar).toEqual([{ id: first.id, path: `team/notes/${first.id}.md`, reason: 'same-title' }]);
    // a near-identical body under another title
    const body = await callOk(s, 'memory_save', { title: 'Where sessions are kept', body: 'We store sessions in Redis for 14 days.', scope: 'team' });
    expect(body.similar.map((x: { id: string; reason: string }) => [x.id, x.reason])).toContainEqual([first.id, 'similar-body']);
    // the CLI sees the same thing the same way
    const cli = await runCli(['save', '--scope', 'team', '--title', 'Use Redis sessions', '--body', 'x', '--json'], { cwd: repo, env });
    expect(JSON.parse(cli.stdout).similar).toContainEqual({ id: first.id, path: `team/notes/${first.id}.md`, reason: 'same-title' });

    expect(readdirSync(join(repo, '.ecc/memory/team/notes')).sort()).toEqual(
      [first.id, dup.id, body.id, JSON.parse(cli.stdout).id].map((id) => `${id}.md`).sort(),
    );
    const after = await runCli(['doctor', '--strict', '--json'], { cwd: repo, env });
    expect(after.stdout).not.toContain('index-');
    const search = JSON.parse((await runCli(['search', 'redis sessions', '--json'], { cwd: repo, env })).stdout);
    expect(search.results.map((r: { id: string }) => r.id)).toContain(dup.id);
  });
});
