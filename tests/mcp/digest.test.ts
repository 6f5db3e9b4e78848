/**
 * The memory digest over MCP (src/mcp/memory-digest.ts): the `memory_digest` prompt and the
 * `memory://digest` resource return the text the session-start hook shows, for the server's harness.
 */
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FRESH_LABEL } from '../../src/sessions/start/digest-render.js';
import { cliEnv, gitRepo } from '../helpers/cli.js';
import { CLAUDE_SESSION, contextOf, hook } from '../helpers/hooks.js';
import { startMcp } from '../helpers/mcp-client.js';
import { memory, putMemories } from '../helpers/search.js';

describe('memory_digest prompt and memory://digest resource', () => {
  it('return the same text as the session-start digest, for the server’s harness (an alias is the same harness)', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'claude' });
    const pref = memory({ kind: 'preference', title: 'Small commits', body: 'One change per commit, with the why in the message.' });
    const dec = memory({ kind: 'decision', title: 'Postgres for billing', body: 'Billing data lives in Postgres. It needs transactions.' });
    const codexOnly = memory({ kind: 'decision', title: 'Codex only', targetHarnesses: ['codex'], body: 'Not for Claude.' });
    putMemories(repo, pref, dec, codexOnly);
    const start = await hook('session-start', { session_id: 's', cwd: repo, hook_event_name: 'SessionStart', source: 'startup' }, { cwd: repo, env });
    const injected = contextOf(start.stdout);
    const s = await startMcp(repo, env);
    const resource = await s.client.readResource({ uri: 'memory://digest' });
    const text = (resource.contents[0] as { text: string }).text;
    expect(text).toContain(pref.id);
    expect(text).not.toContain(codexOnly.id);
    expect(injected).toBe(text); // no snapshot: the session-start context is the digest alone
    const prompt = await s.client.getPrompt({ name: 'memory_digest' });
    expect(prompt.messages).toHaveLength(1);
    expect((prompt.messages[0]!.content as { text: string }).text).toBe(text);
    const listed = await s.client.listPrompts();
    expect(listed.prompts.map((p) => p.name)).toContain('memory_digest');
    // with a snapshot of the worktree: the digest after the summary is the resource's text
    await hook(
      'stop',
      { session_id: 'prev', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false },
      { cwd: repo, env },
    );
    const withSnapshot = contextOf((await hook('session-start', { session_id: 's2', cwd: repo, source: 'startup' }, { cwd: repo, env })).stdout);
    const again = ((await s.client.readResource({ uri: 'memory://digest' })).contents[0] as { text: string }).text;
    expect(withSnapshot).toContain('--- END PRIOR-SESSION SUMMARY ---');
    expect(withSnapshot.endsWith(`\n\n${again}`)).toBe(true);
  });

  it('after a memory was saved since the last snapshot: the same text as the hook, the new memory on top', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'claude' });
    const pref = memory({ kind: 'preference', title: 'Small commits', body: 'One change per commit, with the why in the message.' });
    putMemories(repo, pref);
    // a digest record is only made from a vault unchanged for 2 s
    const past = new Date(Date.now() - 60_000);
    const root = join(repo, '.ecc', 'memory');
    for (const rel of ['', ...readdirSync(root, { recursive: true }).map(String)].reverse()) utimesSync(join(root, rel), past, past);
    const stop = { session_id: 'prev', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false };
    expect((await hook('stop', stop, { cwd: repo, env })).code).toBe(0);
    const added = memory({ kind: 'preference', title: 'Queues are FIFO', body: 'Order matters in the invoice queue.' });
    putMemories(repo, added);
    const injected = contextOf((await hook('session-start', { session_id: 's', cwd: repo, source: 'startup' }, { cwd: repo, env })).stdout);
    const s = await startMcp(repo, env);
    const text = ((await s.client.readResource({ uri: 'memory://digest' })).contents[0] as { text: string }).text;
    expect(text).toContain(FRESH_LABEL);
    expect(text.indexOf(added.id)).toBeLessThan(text.indexOf(pref.id));
    expect(injected.endsWith(`\n\n${text}`)).toBe(true);
  });
});
