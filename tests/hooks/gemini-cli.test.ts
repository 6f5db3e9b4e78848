/**
 * Gemini CLI, end to end as it runs the hooks: the documented SessionStart and BeforeAgent payloads
 * (tests/fixtures/hooks/gemini-cli, sources in its README) on stdin, a real git repository with a
 * real vault, a temp HOME; the answer in Gemini CLI's shape (`hookSpecificOutput.hookEventName`
 * and `additionalContext`), nothing on garbage, no snapshot ever (its transcript is not read).
 */
import { readFileSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORICAL_MARKER } from '../../src/sessions/start/injection-text.js';
import { RECALL_MARKER } from '../../src/sessions/prompt-recall.js';
import { cliEnv, FIXTURES, gitRepo } from '../helpers/cli.js';
import { hook, snapshotNames } from '../helpers/hooks.js';
import { memory, putMemories } from '../helpers/search.js';

const DIR = join(FIXTURES, 'hooks', 'gemini-cli');
const fixture = (name: string, over: Record<string, unknown>) => ({ ...(JSON.parse(readFileSync(join(DIR, name), 'utf8')) as object), ...over });

/** The additionalContext of a Gemini CLI answer, asserting its exact shape; '' for no answer. */
function contextOf(stdout: string, event: 'SessionStart' | 'BeforeAgent'): string {
  if (stdout === '') return '';
  const doc = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(Object.keys(doc)).toEqual(['hookSpecificOutput']);
  expect(Object.keys(doc.hookSpecificOutput).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(doc.hookSpecificOutput.hookEventName).toBe(event);
  expect(typeof doc.hookSpecificOutput.additionalContext).toBe('string');
  return doc.hookSpecificOutput.additionalContext;
}

function vault() {
  const repo = gitRepo();
  const env = cliEnv();
  const redis = memory({
    kind: 'decision',
    title: 'Redis keeps the login sessions',
    body: 'Login sessions live in Redis with a 14 day expiry. Postgres was too slow for session reads.',
  });
  const deploy = memory({
    kind: 'runbook',
    title: 'Deploying the billing service',
    body: 'Run the billing deploy pipeline, then watch the invoice queue drain.',
  });
  const forGemini = memory({ kind: 'preference', title: 'Gemini by its alias', targetHarnesses: ['gemini'], body: 'Targeted with the short name.' });
  const forCodex = memory({ kind: 'preference', title: 'Only for codex', targetHarnesses: ['codex'], body: 'Codex only.' });
  putMemories(repo, redis, deploy, forGemini, forCodex);
  const past = new Date(Date.now() - 60_000);
  const root = join(repo, '.ecc', 'memory');
  for (const rel of ['', ...readdirSync(root, { recursive: true }).map(String)].reverse()) utimesSync(join(root, rel), past, past);
  return { repo, env, redis, deploy, forGemini, forCodex };
}

const opts = (repo: string, env: Record<string, string>) => ({ cwd: repo, env, harness: 'gemini-cli' });

describe('Gemini CLI hooks', () => {
  it('BeforeAgent: the relevant memories as additionalContext, marked unreviewed, never twice in a session', async () => {
    const { repo, env, redis, deploy } = vault();
    const payload = fixture('before-agent.json', { cwd: repo });
    const r = await hook('user-prompt-submit', payload, opts(repo, env));
    expect(r.code).toBe(0);
    const text = contextOf(r.stdout, 'BeforeAgent');
    expect(text.startsWith(RECALL_MARKER)).toBe(true);
    expect(text).toContain(redis.id);
    expect(text).not.toContain(deploy.id);
    expect(text.length).toBeLessThanOrEqual(1500);
    // the same session again: nothing new to add, so nothing printed
    expect((await hook('user-prompt-submit', payload, opts(repo, env))).stdout).toBe('');
    // the harness's own event name and the alias work too
    const again = await hook('BeforeAgent', { ...payload, session_id: 'other' }, { cwd: repo, env, harness: 'gemini' });
    expect(contextOf(again.stdout, 'BeforeAgent')).toContain(redis.id);
    // Gemini's event name switches it off too
    expect(await hook('user-prompt-submit', { ...payload, session_id: 's4' }, opts(repo, { ...env, ECC_DISABLED_HOOKS: 'BeforeAgent' }))).toMatchObject({
      code: 0,
      stdout: '',
    });
    // an unrelated prompt gets nothing
    expect(
      (await hook('user-prompt-submit', { ...payload, session_id: 's3', prompt: 'please translate this poem about autumn leaves' }, opts(repo, env))).stdout,
    ).toBe('');
  });

  it('SessionStart: the memory digest for Gemini CLI (aliases resolved), inside the marker; resume gets nothing; its memories count as injected', async () => {
    const { repo, env, redis, forGemini, forCodex } = vault();
    const payload = fixture('session-start.json', { cwd: repo });
    const r = await hook('session-start', payload, opts(repo, env));
    expect(r.code).toBe(0);
    const ctx = contextOf(r.stdout, 'SessionStart');
    expect(ctx.startsWith(HISTORICAL_MARKER)).toBe(true);
    expect(ctx).toContain(forGemini.id);
    expect(ctx).toContain(redis.id);
    expect(ctx).not.toContain(forCodex.id);
    expect((await hook('session-start', { ...payload, source: 'resume' }, opts(repo, env))).stdout).toBe('');
    expect(contextOf((await hook('session-start', { ...payload, source: 'clear' }, opts(repo, env))).stdout, 'SessionStart')).toContain(redis.id);
    // shown in the digest of this session: prompt recall does not inject it again
    const ask = fixture('before-agent.json', { cwd: repo });
    expect((await hook('user-prompt-submit', ask, opts(repo, env))).stdout).not.toContain(redis.id);
  });

  it('exits 0 with empty output on garbage, huge or missing payloads, for events it has no hook for, and never writes a snapshot', async () => {
    const { repo, env } = vault();
    for (const event of ['session-start', 'user-prompt-submit'])
      for (const payload of ['', 'not json', '[1,2]', 'null', Buffer.alloc(1024 * 1024 + 10, 0x41), JSON.stringify({ prompt: { nested: true }, source: 7 })])
        expect(await hook(event, payload, opts(repo, env)), `${event} ${String(payload).slice(0, 20)}`).toMatchObject({ code: 0, stdout: '' });
    for (const event of ['stop', 'pre-compact', 'session-end', 'AfterAgent', 'PreCompress'])
      expect(await hook(event, fixture('session-start.json', { cwd: repo, hook_event_name: event }), opts(repo, env))).toMatchObject({ code: 0, stdout: '' });
    expect(snapshotNames(env)).toEqual([]);
  });

  it('runs from the real binary (the CommonJS hook bundle)', async () => {
    const { repo, env, redis } = vault();
    const r = await hook('user-prompt-submit', fixture('before-agent.json', { cwd: repo }), { ...opts(repo, env), bin: true });
    expect(r.code).toBe(0);
    expect(contextOf(r.stdout, 'BeforeAgent')).toContain(redis.id);
  });
});
