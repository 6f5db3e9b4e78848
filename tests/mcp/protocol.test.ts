import { describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CompleteResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliEnv, gitRepo, tempDir } from '../helpers/cli.js';
import { runRawMcp, startMcp } from '../helpers/mcp-client.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number, name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('vault mcp: protocol hygiene', () => {
  it.each([
    ['missing', {}, /ECC_MEMORY_HARNESS is not set/],
    ['empty', { ECC_MEMORY_HARNESS: '' }, /ECC_MEMORY_HARNESS is not set/],
    ['not a slug', { ECC_MEMORY_HARNESS: 'Claude Code' }, /ECC_MEMORY_HARNESS must be a harness name/],
    ['the "all" target', { VAULT_HARNESS: 'all' }, /VAULT_HARNESS must be a harness name/],
    ['a control character', { ECC_MEMORY_HARNESS: 'cursor\u001b[2J' }, /ECC_MEMORY_HARNESS must be a harness name/],
  ])('refuses to start when the harness identity is %s: exit 1, one stderr line, nothing on stdout', async (_name, extra, message) => {
    const r = await runRawMcp(gitRepo(), cliEnv(extra), [INIT]);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBe(0);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^vault mcp: startup failed: /);
    expect(lines[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+|\u001b/);
  });

  it('refuses a --project folder that does not exist instead of creating a vault there', async () => {
    const repo = gitRepo();
    const r = await runRawMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), [INIT], ['--project', 'no-such-folder']);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr.trim()).toBe('vault mcp: startup failed: --project no-such-folder is not an existing folder');
  });

  it('writes nothing but newline-delimited JSON-RPC on stdout, whatever the session does', async () => {
    const repo = gitRepo();
    const secret = 'xoxb-' + '123456789012-abcdefghijkl';
    const messages = [
      INIT,
      INITIALIZED,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      call(3, 'memory_save', { title: 'Logs go to stderr', body: 'MCP servers keep stdout for JSON-RPC.', kind: 'lesson', tags: ['mcp'] }),
      call(4, 'memory_save', { title: 'leak', body: `slack ${secret}` }),
      call(5, 'memory_read', { id: 'mem_not_there_at_all' }),
      call(6, 'memory_save', { title: 7 }),
      call(7, 'no_such_tool', {}),
      { jsonrpc: '2.0', id: 8, method: 'resources/list' },
      { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'memory://mem_not_there_at_all' } },
      call(10, 'memory_search', { query: 'stdout stderr' }),
      call(11, 'memory_doctor', {}),
      'this line is not JSON',
      { jsonrpc: '2.0', id: 12, method: 'ping' },
    ];
    const r = await runRawMcp(repo, cliEnv({ ECC_MEMORY_HARNESS: 'opencode' }), messages);
    expect(r.code, r.stderr).toBe(0);
    const text = r.stdout.toString('utf8');
    expect(Buffer.from(text, 'utf8').equals(r.stdout)).toBe(true); // valid UTF-8
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    const ids: unknown[] = [];
    const byId = new Map<unknown, any>();
    for (const line of lines) {
      const msg = JSON.parse(line);
      expect(msg.jsonrpc).toBe('2.0');
      expect('result' in msg !== 'error' in msg).toBe(true);
      ids.push(msg.id);
      byId.set(msg.id, msg);
    }
    // the session did real work on the same stream
    const saved = byId.get(3).result.structuredContent;
    expect(saved.memory.sourceHarness).toBe('opencode');
    expect(JSON.parse(byId.get(4).result.content[0].text).error.code).toBe('MEMORY_WRITE_REJECTED');
    expect(Array.isArray(byId.get(10).result.structuredContent.results)).toBe(true); // requests run concurrently: the save may not be indexed yet
    expect(byId.get(11).result.structuredContent.ok).toBe(true);
    expect(byId.get(9).error).toMatchObject({ code: -32002, message: 'MEMORY_READ_FAILED: memory was not found, or is not visible to this harness' });
    // every request got exactly one answer, the notification none, the line that is not JSON a parse error
    expect(byId.get(null).error).toEqual({ code: -32700, message: 'Parse error' });
    expect(ids.filter((id) => id !== null).sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(ids.filter((id) => id === null)).toHaveLength(1);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(repo); // no absolute paths
    expect(text).not.toMatch(/\n\s+at [\w.<>]+ \(/); // no stack traces
    expect(r.stderr).toContain('vault mcp: serving harness "opencode"');
  });

  it('answers resource and tool refusals with their code once, not "MCP error -32002: MCP error -32002: ..."', async () => {
    const s = await startMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const messageOf = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: Error) => e.message,
      );
    expect(await messageOf(s.client.readResource({ uri: 'memory://mem_not_there_at_all' }))).toBe(
      'MCP error -32002: MEMORY_READ_FAILED: memory was not found, or is not visible to this harness',
    );
    expect(await messageOf(s.client.readResource({ uri: 'memory://NOT_AN_ID' }))).toBe(
      'MCP error -32002: MEMORY_READ_FAILED: memory was not found, or is not visible to this harness',
    );
    // the SDK's own refusals (an unknown URI scheme, an unknown method) lose the doubled prefix too
    expect(await messageOf(s.client.readResource({ uri: 'file:///etc/passwd' }))).toBe('MCP error -32602: Resource file:///etc/passwd not found');
    expect(
      await messageOf(
        s.client.request(
          { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'memory_digest' }, argument: { name: 'x', value: '' } } },
          CompleteResultSchema,
        ),
      ),
    ).toMatch(/^MCP error -32\d{3}: (?!MCP error)/);
    expect(await messageOf(s.client.callTool({ name: 'memory_read', arguments: { id: 'mem_x_y_z', trust: 'high' } }))).toMatch(
      /^MCP error -32602: Invalid arguments for memory_read: unknown argument "trust"/,
    );
  });

  it('warns on stderr (one line, with the hint) when started with no repository or vault, and serves anyway', async () => {
    const nowhere = tempDir('vault-nowhere-');
    const r = await runRawMcp(nowhere, cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), [INIT, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString('utf8')).toMatch(/"id":2/);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    expect(warnings).toEqual([
      `vault mcp: warning: no vault here (no git repository or .ecc/memory folder at or above ${nowhere}); hint: start the server in the project folder, pass --project <repo>, set ECC_MEMORY_PROJECT_ROOT, or run \`vault init --here\` there`,
    ]);
    // the home folder's ~/.ecc (hook sessions and the user root live there) is not a project vault
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'cursor' });
    const sub = join(env.HOME!, 'notes');
    mkdirSync(join(env.HOME!, '.ecc', 'sessions'), { recursive: true });
    mkdirSync(join(env.HOME!, '.ecc', 'memory', 'notes'), { recursive: true });
    mkdirSync(sub);
    const inHome = await runRawMcp(sub, env, [INIT]);
    expect(inHome.stderr).toContain(`vault mcp: warning: no vault here (no git repository or .ecc/memory folder at or above ${sub}); hint: `);
    // in a repository, or with an explicit root, no warning
    for (const [cwd, extra] of [
      [gitRepo(), {}],
      [nowhere, { ECC_MEMORY_PROJECT_ROOT: join(nowhere, 'vault') }],
    ] as const) {
      const quiet = await runRawMcp(cwd, cliEnv({ ECC_MEMORY_HARNESS: 'cursor', ...extra }), [INIT]);
      expect(quiet.stderr).not.toContain('warning');
    }
  });

  it('refuses tool arguments that are not an object, and keys such as __proto__ and constructor, with -32602', async () => {
    const raw = (id: number, params: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
    const r = await runRawMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), [
      INIT,
      INITIALIZED,
      raw(2, '{"name":"memory_read","arguments":{"id":"mem_abc_def","__proto__":{"x":1}}}'),
      raw(3, '{"name":"memory_read","arguments":{"id":"mem_abc_def","constructor":1}}'),
      raw(4, '{"name":"memory_read","arguments":[1,2]}'),
      raw(5, '{"name":"memory_read","arguments":null}'),
      raw(6, '{"name":"__proto__","arguments":{}}'),
      raw(7, '{"name":"memory_doctor"}'),
    ]);
    const byId = new Map(
      r.stdout
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((m) => [m.id, m]),
    );
    expect(byId.get(2).error.message).toBe('Invalid arguments for memory_read: unknown argument "__proto__"; allowed: id, scopes');
    expect(byId.get(3).error.message).toBe('Invalid arguments for memory_read: unknown argument "constructor"; allowed: id, scopes');
    for (const id of [4, 5])
      expect(byId.get(id).error).toEqual({
        code: -32602,
        message: 'Invalid arguments for memory_read: arguments must be an object',
        data: { tool: 'memory_read' },
      });
    expect(byId.get(6).error.message).toBe(
      'Unknown tool "__proto__"; this server has memory_save, memory_search, memory_read, memory_doctor, memory_proposals',
    );
    expect(byId.get(7).result.structuredContent.ok).toBe(true); // no arguments at all is an empty object
  });
});

describe('vault mcp: a credential in a name the client sends is never echoed', () => {
  it('an unknown tool, an unknown argument, an unknown prompt and an unknown resource: neither message nor data holds it', async () => {
    const token = `ghp_${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7d'}`;
    const r = await runRawMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), [
      INIT,
      INITIALIZED,
      call(2, token, {}),
      call(3, 'memory_save', { title: 'x', body: 'y', [`${'k'.repeat(40)}${token}`]: 1 }),
      { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: token } },
      { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: `file:///${token}` } },
    ]);
    const answers = r.stdout
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; error?: { message: string } });
    for (const id of [2, 3, 4, 5]) expect(answers.find((a) => a.id === id)?.error?.message, `answer ${id}`).toBeTruthy();
    expect(r.stdout.toString('utf8')).not.toContain(token.slice(0, 12));
    expect(r.stderr).not.toContain(token.slice(0, 12));
  });
});
