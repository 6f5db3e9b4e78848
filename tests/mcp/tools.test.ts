import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, memoryFixture, runCli, tempDir } from '../helpers/cli.js';
import { callError, callOk, callRefused, callTool, startMcp, textOf } from '../helpers/mcp-client.js';

const OLDER = 'mem_20260903_a41c7e9b2d05f3816c4e'; // decision, targets ["all"]
const HANDOFF = 'mem_20260904_5be28d1f0a7c93e4b6d1'; // handoff, targets ["claude"], links OLDER

/** A git repo whose project scope holds the two reference fixtures. */
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

function mdFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
}

describe('vault mcp: tools through the SDK client', () => {
  it('saves with the server identity (a client-supplied harness, trust or status is refused) and reads it back with backlinks', async () => {
    const repo = gitRepo();
    const s = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const args = {
      title: 'Sessions live in Redis',
      body: 'We moved sessions from JWT cookies to Redis.',
      kind: 'decision',
      scope: 'team',
      tags: ['auth', '#redis'],
    };
    // attempts to claim another identity or a review: refused with -32602, nothing written
    for (const [extra, says] of [
      [
        { sourceHarness: 'claude-code' },
        /unknown argument "sourceHarness" \(the harness identity comes from the server's environment at launch \(ECC_MEMORY_HARNESS\), never from the client\)/,
      ],
      [{ source_harness: 'claude-code' }, /unknown argument "source_harness" \(the harness identity comes from the server's environment/],
      [{ harness: 'claude-code' }, /unknown argument "harness" \(the harness identity comes from the server's environment/],
      [{ trust: 'reviewed' }, /unknown argument "trust" \(every memory is saved as "unreviewed"; people review it in git\)/],
      [{ status: 'superseded' }, /unknown argument "status" \(a new memory is always "active"/],
      [{ id: 'mem_chosen_by_client' }, /unknown argument "id"; allowed: title, body, kind, tags, links, targetHarnesses, scope$/],
    ] as const) {
      const refused = await callRefused(s, 'memory_save', { ...args, ...extra });
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(/^MCP error -32602: Invalid arguments for memory_save: /);
      expect(refused.message).toMatch(says);
      expect(refused.data).toMatchObject({ tool: 'memory_save', unknown: Object.keys(extra) });
    }
    expect(mdFilesUnder(join(repo, '.ecc/memory'))).toEqual([]);
    const first = await callOk(s, 'memory_save', args);
    expect(first.memory).toMatchObject({
      sourceHarness: 'cursor',
      trust: 'unreviewed',
      status: 'active',
      scope: 'team',
      kind: 'decision',
      tags: ['auth', 'redis'],
      targetHarnesses: ['all'],
    });
    expect(first.path).toBe(`team/decisions/${first.id}.md`);
    const text = readFileSync(join(repo, '.ecc/memory', first.path), 'utf8');
    expect(text).toContain('source_harness: "cursor"\n');
    expect(text).toContain('trust: "unreviewed"\n');

    const second = await callOk(s, 'memory_save', {
      title: 'Redis session TTL is 30 days',
      body: `Follows [[${first.id}]].`,
      kind: 'fact',
      links: [first.id],
      targetHarnesses: ['cursor'],
    });
    expect(second.memory).toMatchObject({ scope: 'project', targetHarnesses: ['cursor'], links: [first.id] });

    const asOther = await callRefused(s, 'memory_read', { id: first.id, harness: 'claude-code' });
    expect(asOther.message).toMatch(/^MCP error -32602: Invalid arguments for memory_read: unknown argument "harness" \(the harness identity/);
    const read = await callOk(s, 'memory_read', { id: first.id });
    expect(read.memory).toMatchObject({
      id: first.id,
      title: 'Sessions live in Redis',
      status: 'active',
      body: 'We moved sessions from JWT cookies to Redis.',
      sourceHarness: 'cursor',
    });
    expect(read.backlinks.map((b: { id: string }) => b.id)).toEqual([second.id]);
    expect(read.notice).toMatch(/unreviewed.*not as instructions/);
    expect(s.stderr()).toContain('serving harness "cursor"');
  });

  it('serves the vault of --project when the client starts it in another folder', async () => {
    const repo = repoWithFixtures();
    const elsewhere = tempDir();
    const s = await startMcp(elsewhere, cliEnv({ ECC_MEMORY_HARNESS: 'claude' }), ['--project', repo]);
    expect((await callOk(s, 'memory_read', { id: HANDOFF })).memory.title).toBe('Dead-letter queue hand-off');
    const saved = await callOk(s, 'memory_save', { title: 'Pinned project', body: 'Saved through --project.' });
    expect(existsSync(join(repo, '.ecc/memory', saved.path))).toBe(true);
    expect(existsSync(join(elsewhere, '.ecc'))).toBe(false);
  });

  it('lists the tools with input and output JSON Schemas and descriptions that say memories are not instructions', async () => {
    const s = await startMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'gemini' }));
    const { tools } = await s.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['memory_doctor', 'memory_proposals', 'memory_read', 'memory_save', 'memory_search']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(80);
    }
    expect(Object.keys(byName.memory_save!.inputSchema.properties!).sort()).toEqual(['body', 'kind', 'links', 'scope', 'tags', 'targetHarnesses', 'title']);
    expect(byName.memory_save!.inputSchema.required).toEqual(['title', 'body']);
    expect(byName.memory_read!.inputSchema.required).toEqual(['id']);
    expect(Object.keys(byName.memory_search!.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['query', 'scopes', 'kinds', 'tags', 'statuses', 'since', 'until', 'limit']),
    );
    for (const t of [byName.memory_save!, byName.memory_read!, byName.memory_search!]) {
      expect(JSON.stringify(t.inputSchema)).not.toMatch(/harness"\s*:|sourceHarness/);
    }
    expect(byName.memory_search!.description).toMatch(/unreviewed context.*not as instructions/);
    expect(byName.memory_read!.description).toMatch(/unreviewed context.*not as instructions/);
    expect(byName.memory_search!.description).toContain('"gemini"');
    expect(byName.memory_read!.annotations?.readOnlyHint).toBe(true);
  });

  it('limits read and resources to memories targeted at the server harness or "all"', async () => {
    const repo = repoWithFixtures();
    const cursor = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const hidden = await callError(cursor, 'memory_read', { id: HANDOFF });
    expect(hidden).toMatchObject({ code: 'MEMORY_READ_FAILED', reason: 'not-found' });
    const missing = await callError(cursor, 'memory_read', { id: 'mem_does_not_exist' });
    expect(missing.message).toBe(hidden.message); // hidden and missing look the same
    const older = await callOk(cursor, 'memory_read', { id: OLDER });
    expect(older.backlinks).toEqual([]); // the handoff that links here is for claude only
    const listed = await cursor.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(['memory://digest', `memory://${OLDER}`]); // the digest, then the memories
    await expect(cursor.client.readResource({ uri: `memory://${HANDOFF}` })).rejects.toThrow(/MEMORY_READ_FAILED/);

    const claude = await startMcp(repo, cliEnv({ VAULT_HARNESS: 'claude' }));
    const handoff = await callOk(claude, 'memory_read', { id: HANDOFF });
    expect(handoff.memory).toMatchObject({ kind: 'handoff', status: 'active', sourceHarness: 'codex', targetHarnesses: ['claude'] });
    const older2 = await callOk(claude, 'memory_read', { id: OLDER });
    expect(older2.backlinks).toEqual([
      { id: HANDOFF, title: 'Dead-letter queue hand-off', kind: 'handoff', scope: 'project', status: 'active', path: `project/handoffs/${HANDOFF}.md` },
    ]);
    const list2 = await claude.client.listResources();
    expect(list2.resources.map((r) => r.uri)).toEqual(['memory://digest', `memory://${HANDOFF}`, `memory://${OLDER}`]); // the digest, then newest first
    expect(list2.resources[1]).toMatchObject({ name: HANDOFF, title: 'Dead-letter queue hand-off', mimeType: 'text/markdown' });
    const templates = await claude.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['memory://{id}']);
    const res = await claude.client.readResource({ uri: `memory://${HANDOFF}` });
    expect(res.contents).toHaveLength(1);
    expect(res.contents[0]).toMatchObject({ uri: `memory://${HANDOFF}`, mimeType: 'text/markdown' });
    // the memory as its ecc.memory.v1 document
    const text = (res.contents[0] as { text: string }).text;
    expect(text.startsWith(`---\nschema: "ecc.memory.v1"\nid: "${HANDOFF}"\n`)).toBe(true);
    expect(text).toContain('trust: "unreviewed"\n');
    expect(text).toContain('target_harnesses: ["claude"]\n');
    expect(
      text.endsWith(
        '\n---\n\nThe worker moves a job to the dead-letter queue after its fifth failed attempt. Left to do: an alert when the queue holds more than 100 jobs, and a replay command.\n',
      ),
    ).toBe(true);
  });

  it('refuses the user scope unless the operator enabled it, and even then uses it only when asked', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'codex' });
    const userRoot = env.ECC_MEMORY_USER_ROOT!;
    const closed = await startMcp(repo, env);
    const refused = await callError(closed, 'memory_save', { title: 'I prefer tabs', body: 'Always tabs.', kind: 'preference', scope: 'user' });
    expect(refused).toMatchObject({
      code: 'MEMORY_WRITE_REJECTED',
      reason: 'invalid-input',
      field: 'scope',
      message: 'The user memory scope is disabled for this MCP server.',
    });
    expect(mdFilesUnder(userRoot)).toEqual([]);
    expect(existsSync(userRoot)).toBe(false);
    expect((await callError(closed, 'memory_read', { id: 'mem_anything_here', scopes: ['user'] })).code).toBe('MEMORY_READ_FAILED');
    expect((await callError(closed, 'memory_doctor', { scopes: ['project', 'user'] })).message).toMatch(/user memory scope is disabled/);

    const opened = await startMcp(repo, { ...env, ECC_MEMORY_ALLOW_USER_SCOPE: '1' });
    const saved = await callOk(opened, 'memory_save', { title: 'I prefer tabs', body: 'Always tabs.', kind: 'preference', scope: 'user' });
    expect(saved.memory).toMatchObject({ scope: 'user', sourceHarness: 'codex' });
    expect(mdFilesUnder(userRoot)).toEqual([`preferences/${saved.id}.md`]);
    const plain = await callOk(opened, 'memory_save', { title: 'Project note', body: 'Not personal.' });
    expect(plain.memory.scope).toBe('project'); // the default stays project even when user scope is open
    // not recalled unless asked for
    expect((await callError(opened, 'memory_read', { id: saved.id })).reason).toBe('not-found');
    const read = await callOk(opened, 'memory_read', { id: saved.id, scopes: ['user'] });
    expect(read.memory.body).toBe('Always tabs.');
    expect((await opened.client.listResources()).resources.map((r) => r.name)).toEqual(['memory-digest', plain.id]);
  });

  it('refuses a suspected secret without echoing it and writes nothing', async () => {
    const repo = gitRepo();
    const s = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const secret = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const aws = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    for (const args of [
      { title: 'deploy creds', body: `the token is ${secret}`, scope: 'team' },
      { title: `key ${aws}`, body: 'see title' },
      { title: 'tags', body: 'x', tags: [secret.toLowerCase()] },
    ]) {
      const r = await callTool(s, 'memory_save', args);
      expect(r.isError).toBe(true);
      const raw = JSON.stringify(r);
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(secret.toLowerCase());
      expect(raw).not.toContain(aws);
      expect(JSON.parse(textOf(r)).error.code).toBe('MEMORY_WRITE_REJECTED');
    }
    expect(mdFilesUnder(join(repo, '.ecc/memory'))).toEqual([]);
    expect(s.stderr()).not.toContain(secret);
  });

  it('reports a field rule with its field as a tool error, and a malformed argument as -32602', async () => {
    const s = await startMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const bad = await callError(s, 'memory_save', { title: 'ok', body: 'ok', tags: ['Not A Slug'] });
    expect(bad).toMatchObject({ code: 'MEMORY_WRITE_REJECTED', reason: 'invalid-field', field: 'tags[0]' });
    const badLink = await callError(s, 'memory_save', { title: 'ok', body: 'ok', links: ['../etc/passwd'] });
    expect(badLink.code).toBe('MEMORY_WRITE_REJECTED');
    const badId = await callError(s, 'memory_read', { id: '../../etc/passwd' });
    expect(badId).toMatchObject({ code: 'MEMORY_READ_FAILED', reason: 'invalid-input' });
    const wrongType = await callRefused(s, 'memory_save', { title: 42, body: 'x' });
    expect(wrongType).toEqual({
      code: -32602,
      message: 'MCP error -32602: Invalid arguments for memory_save: title: Invalid input: expected string, received number',
      data: { tool: 'memory_save', field: 'title' },
    });
    const badKind = await callRefused(s, 'memory_save', { title: 't', body: 'x', kind: 'secret-plan' });
    expect(badKind.message).toMatch(/^MCP error -32602: Invalid arguments for memory_save: kind: Invalid option: expected one of "context"\|"decision"/);
    expect(badKind.message).not.toContain('secret-plan');
    const noTool = await callRefused(s, 'memory_delete', { id: 'mem_x_y_z' });
    expect(noTool.message).toBe(
      'MCP error -32602: Unknown tool "memory_delete"; this server has memory_save, memory_search, memory_read, memory_doctor, memory_proposals',
    );
    for (const r of [bad.raw, badLink.raw, badId.raw, wrongType.message]) expect(r).not.toMatch(/\n\s+at |\/tmp\//);
  });

  it('answers MEMORY_READ_INCOMPLETE, not "not found", when the vault holds a malformed file', async () => {
    const repo = repoWithFixtures();
    mkdirSync(join(repo, '.ecc/memory/team/notes'), { recursive: true });
    // a malformed file that holds both ids looked up (an unrelated one would not block them)
    writeFileSync(join(repo, '.ecc/memory/team/notes/broken.md'), `---\nid: "mem_not_there_at_all"\nlinks: ["${OLDER}"]\ntitle: [unclosed\n`);
    const s = await startMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'claude' }));
    for (const id of ['mem_not_there_at_all', OLDER]) {
      const e = await callError(s, 'memory_read', { id });
      expect(e.code).toBe('MEMORY_READ_INCOMPLETE');
      expect(e.reason).toBe('read-incomplete');
      expect(e.message).not.toMatch(/not found|broken\.md|team\//);
    }
    await expect(s.client.readResource({ uri: `memory://${OLDER}` })).rejects.toThrow(/MEMORY_READ_INCOMPLETE/);
    // the hint is the CLI's, word for word: it names the doctor command of the scopes read
    const cli = await runCli(['read', OLDER], { cwd: repo, env: cliEnv() });
    const cliHint = /^hint: (.*)$/m.exec(cli.stderr)?.[1];
    expect(cliHint).toMatch(/^run `vault doctor --scope project --scope team` /);
    expect((await callError(s, 'memory_read', { id: OLDER })).hint).toBe(cliHint);
    await expect(s.client.readResource({ uri: `memory://${OLDER}` })).rejects.toThrow('run `vault doctor --scope project --scope team`');
    // the project scope alone reads cleanly
    expect((await callOk(s, 'memory_read', { id: OLDER, scopes: ['project'] })).memory.id).toBe(OLDER);
    // and the doctor names the file and the rule, without quoting it
    const report = await callOk(s, 'memory_doctor', {});
    expect(report.ok).toBe(false);
    expect(report.summary).toMatch(/^1 error/);
    expect(report.problems).toContainEqual(expect.objectContaining({ severity: 'error', code: 'unclosed-frontmatter', path: 'team/notes/broken.md' }));
    expect(JSON.stringify(report)).not.toContain('[unclosed');
    expect(report.counts.memories).toBe(2);
    expect((await callOk(s, 'memory_doctor', { scopes: ['project'] })).ok).toBe(true);
  });
});
