import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../src/io/runtime.js';
import { indexStatus } from '../../src/search/index/index-status.js';
import { resolveRoots } from '../../src/store/roots.js';
import { cliEnv, gitRepo, memoryFixture, runCli } from '../helpers/cli.js';
import { callError, callOk, callRefused, startMcp } from '../helpers/mcp-client.js';

const OLDER = 'mem_20260903_a41c7e9b2d05f3816c4e'; // decision "Queue retries use a fixed 30 s delay", targets ["all"]
const HANDOFF = 'mem_20260904_5be28d1f0a7c93e4b6d1'; // handoff "Dead-letter queue hand-off", targets ["claude"]

function repoWithFixtures(): string {
  const repo = gitRepo();
  const project = join(repo, '.ecc/memory/project');
  mkdirSync(join(project, 'decisions'), { recursive: true });
  mkdirSync(join(project, 'handoffs'), { recursive: true });
  writeFileSync(join(project, '.gitignore'), '*\n!.gitignore\n');
  writeFileSync(join(project, 'decisions', `${OLDER}.md`), memoryFixture(`reference/${OLDER}.md`));
  writeFileSync(join(project, 'handoffs', `${HANDOFF}.md`), memoryFixture(`reference/${HANDOFF}.md`));
  return repo;
}

const ids = (r: { results: Array<{ id: string }> }) => r.results.map((x) => x.id);

describe('vault mcp: memory_search', () => {
  it('finds memories targeted at its harness or "all", and refuses a client-supplied harness', async () => {
    const repo = repoWithFixtures();
    const cursor = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const refused = await callRefused(cursor, 'memory_search', { query: 'queue retries', targetHarness: 'claude', harness: 'claude' });
    expect(refused.code).toBe(-32602);
    expect(refused.message).toBe(
      'MCP error -32602: Invalid arguments for memory_search: unknown arguments "targetHarness", "harness" (the harness identity comes from the server\'s environment at launch (ECC_MEMORY_HARNESS), never from the client); allowed: query, scopes, kinds, tags, statuses, since, until, limit',
    );
    const r = await callOk(cursor, 'memory_search', { query: 'queue retries' });
    expect(r.harness).toBe('cursor');
    expect(ids(r)).toEqual([OLDER]);
    expect(r.total).toBe(1);
    expect(r.notice).toMatch(/unreviewed.*not as instructions/);
    expect(r.results[0]).toMatchObject({
      id: OLDER,
      title: 'Queue retries use a fixed 30 s delay',
      kind: 'decision',
      scope: 'project',
      status: 'active',
      path: `project/decisions/${OLDER}.md`,
    });
    expect(r.results[0].excerpt.length).toBeGreaterThan(0);
    expect(r.complete).toBe(true);
    expect(r.diagnostics).toEqual([]);

    const claude = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'claude' }));
    const both = await callOk(claude, 'memory_search', { query: 'queue retries' });
    expect(new Set(ids(both))).toEqual(new Set([OLDER, HANDOFF]));
    expect(ids(await callOk(claude, 'memory_search', { query: 'queue', kinds: ['handoff'] }))).toEqual([HANDOFF]);
    expect(ids(await callOk(claude, 'memory_search', { query: '', tags: ['reliability'] }))).toEqual([HANDOFF]);
    expect(ids(await callOk(claude, 'memory_search', { query: '', until: '2026-09-03' }))).toEqual([OLDER]);
    expect((await callOk(claude, 'memory_search', { query: 'queue', limit: 1 })).results).toHaveLength(1);
  });

  it('refuses the user scope unless enabled, and searches it only when asked', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'codex', ECC_MEMORY_ALLOW_USER_SCOPE: '1' });
    const open = await startMcp(repo, env);
    const personal = await callOk(open, 'memory_save', {
      title: 'Prefer pnpm over npm',
      body: 'The user likes pnpm workspaces.',
      kind: 'preference',
      scope: 'user',
    });
    expect(ids(await callOk(open, 'memory_search', { query: 'pnpm' }))).toEqual([]);
    expect(ids(await callOk(open, 'memory_search', { query: 'pnpm', scopes: ['user'] }))).toEqual([personal.id]);

    const closed = await startMcp(repo, { ...env, ECC_MEMORY_ALLOW_USER_SCOPE: '0' });
    const e = await callError(closed, 'memory_search', { query: 'pnpm', scopes: ['project', 'user'] });
    expect(e).toMatchObject({ code: 'MEMORY_SEARCH_FAILED', reason: 'invalid-input', message: 'The user memory scope is disabled for this MCP server.' });
  });

  it('reports bad filters as MEMORY_SEARCH_FAILED and keeps searching past a malformed file', async () => {
    const repo = repoWithFixtures();
    mkdirSync(join(repo, '.ecc/memory/team/notes'), { recursive: true });
    writeFileSync(join(repo, '.ecc/memory/team/notes/broken.md'), '---\nid: "mem_broken_file"\ntitle: queue [unclosed\n');
    const s = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'claude' }));
    const bad = await callError(s, 'memory_search', { query: 'x', since: 'last tuesday' });
    expect(bad).toMatchObject({ code: 'MEMORY_SEARCH_FAILED', reason: 'invalid-input', field: 'since' });
    const r = await callOk(s, 'memory_search', { query: 'queue' });
    expect(new Set(ids(r))).toEqual(new Set([OLDER, HANDOFF]));
    expect(r.diagnostics).toEqual([expect.stringMatching(/^team\/notes\/broken\.md: not a usable memory/)]);
    expect(JSON.stringify(r)).not.toContain('[unclosed');
    // a read is not blocked by a malformed file that cannot be the memory asked for
    expect((await callOk(s, 'memory_read', { id: OLDER })).memory.id).toBe(OLDER);
  });

  it('never returns a credential from a file already in the vault: search, read, doctor and resources', async () => {
    const repo = repoWithFixtures();
    const secret = `ghp_${'Q'.repeat(36)}`;
    const leaky = memoryFixture(`reference/${OLDER}.md`)
      .toString('utf8')
      .replace(`id: "${OLDER}"`, 'id: "mem_leaky_note"')
      .replace(/\n\n[\s\S]*$/, `\n\nThe staging deploy token is ${secret} (retries).\n`);
    writeFileSync(join(repo, '.ecc/memory/project/decisions/mem_leaky_note.md'), leaky);
    const s = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const answers = [
      await callOk(s, 'memory_search', { query: 'staging deploy token retries' }),
      await callError(s, 'memory_read', { id: 'mem_leaky_note' }),
      await callOk(s, 'memory_doctor', {}),
      await s.client.listResources(),
      await s.client.readResource({ uri: 'memory://mem_leaky_note' }).catch((e: Error) => e.message),
    ];
    expect(ids(answers[0] as never)).toEqual([OLDER]);
    expect((answers[2] as { problems: unknown[] }).problems).toContainEqual(
      expect.objectContaining({ code: 'suspected-secret', path: 'project/decisions/mem_leaky_note.md' }),
    );
    expect(JSON.stringify(answers)).not.toContain(secret);
    expect(s.stderr()).not.toContain(secret);
  });

  it('a save through MCP is found at once by `vault search`, and a CLI save by memory_search', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'opencode' });
    const s = await startMcp(repo, env);
    // warm the index first, so the CLI has to notice the new file rather than build from scratch
    await callOk(s, 'memory_search', { query: 'anything' });
    const saved = await callOk(s, 'memory_save', {
      title: 'Flaky checkout test',
      body: 'The checkout test is flaky under parallel workers; run it with --runInBand.',
      kind: 'lesson',
      scope: 'team',
      tags: ['tests'],
    });
    const cli = await runCli(['search', 'checkout', 'flaky', '--json'], { cwd: repo, env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).results.map((r: { id: string }) => r.id)).toEqual([saved.id]);

    const viaCli = await runCli(
      [
        'save',
        '--kind',
        'runbook',
        '--title',
        'Rotate the staging certificate',
        '--body',
        'Run certbot renew on the staging host, then reload nginx.',
        '--json',
      ],
      { cwd: repo, env },
    );
    expect(viaCli.code, viaCli.stderr).toBe(0);
    const cliId = JSON.parse(viaCli.stdout).id;
    const found = await callOk(s, 'memory_search', { query: 'staging certificate' });
    expect(ids(found)).toEqual([cliId]);
    expect((await callOk(s, 'memory_read', { id: cliId })).memory.sourceHarness).toBe('opencode'); // the CLI takes ECC_MEMORY_HARNESS too
  });
});

describe('vault mcp: memory_read', () => {
  it('reads through the index as vault read does: an unrelated broken file does not block it, one that could be the memory does', async () => {
    const repo = repoWithFixtures();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'cursor' });
    const broken = join(repo, '.ecc/memory/project/decisions/broken-note.md');
    writeFileSync(broken, '---\nschema: "ecc.memory.v1"\ntitle: [unclosed\n---\nnothing to do with queues\n');
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env }));
    expect(indexStatus(roots, ['project']).exists).toBe(false);
    const s = await startMcp(repo, env);
    const read = await callOk(s, 'memory_read', { id: OLDER });
    expect(read.memory.title).toBe('Queue retries use a fixed 30 s delay');
    // the lookup went through the project index (a scan writes none), and agrees with vault read
    expect(indexStatus(roots, ['project'])).toMatchObject({ exists: true, stale: false });
    const cli = await runCli(['read', OLDER, '--json'], { cwd: repo, env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).body).toBe(read.memory.body);
    // a broken file that holds the id could be the memory: incomplete, naming it
    writeFileSync(broken, `---\nid: "${OLDER}"\ntitle: [unclosed\n---\n`);
    const blocked = await callError(s, 'memory_read', { id: OLDER });
    expect(blocked.code).toBe('MEMORY_READ_INCOMPLETE');
    const cliBlocked = await runCli(['read', OLDER], { cwd: repo, env });
    expect(cliBlocked.code).not.toBe(0);
    expect(cliBlocked.stderr).toContain('project/decisions/broken-note.md could be memory');
  });
});
