/**
 * Cursor, end to end as it runs the hooks: the documented sessionStart, beforeSubmitPrompt and
 * stop payloads (tests/fixtures/hooks/cursor, sources in its README) on stdin, a real git
 * repository with a real vault, a temp HOME. sessionStart answers with Cursor's top-level
 * `additional_context`; the events Cursor gives no way to add context through (beforeSubmitPrompt)
 * or no transcript we read for (stop) answer `{}` and write nothing.
 */
import { readFileSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORICAL_MARKER } from '../../src/sessions/start/injection-text.js';
import { cliEnv, FIXTURES, gitRepo } from '../helpers/cli.js';
import { hook, sessionsDirOf, snapshotNames } from '../helpers/hooks.js';
import { memory, putMemories } from '../helpers/search.js';

const DIR = join(FIXTURES, 'hooks', 'cursor');
const fixture = (name: string, over: Record<string, unknown>) => ({ ...(JSON.parse(readFileSync(join(DIR, name), 'utf8')) as object), ...over });

/** The additional_context of a Cursor answer, asserting its exact shape; '' for `{}`. */
function contextOf(stdout: string): string {
  expect(stdout.endsWith('\n')).toBe(true);
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  if (Object.keys(doc).length === 0) return '';
  expect(Object.keys(doc)).toEqual(['additional_context']);
  expect(typeof doc.additional_context).toBe('string');
  return doc.additional_context as string;
}

function vault() {
  const repo = gitRepo();
  const env = cliEnv();
  const redis = memory({
    kind: 'decision',
    title: 'Redis keeps the login sessions',
    body: 'Login sessions live in Redis with a 14 day expiry. Postgres was too slow for session reads.',
  });
  const forCursor = memory({ kind: 'preference', title: 'Cursor by its alias', targetHarnesses: ['cursor-agent'], body: 'Targeted with an alias.' });
  const forCodex = memory({ kind: 'preference', title: 'Only for codex', targetHarnesses: ['codex'], body: 'Codex only.' });
  putMemories(repo, redis, forCursor, forCodex);
  const past = new Date(Date.now() - 60_000);
  const root = join(repo, '.ecc', 'memory');
  for (const rel of ['', ...readdirSync(root, { recursive: true }).map(String)].reverse()) utimesSync(join(root, rel), past, past);
  return { repo, env, redis, forCursor, forCodex };
}

describe('Cursor hooks', () => {
  it('sessionStart: the memory digest for Cursor (aliases resolved) as additional_context, from workspace_roots; its memories count as injected', async () => {
    const { repo, env, redis, forCursor, forCodex } = vault();
    const payload = fixture('session-start.json', { workspace_roots: [repo] });
    // run from elsewhere: the workspace root in the payload names the vault
    const r = await hook('sessionStart', payload, { cwd: env.HOME!, env, harness: 'cursor' });
    expect(r.code).toBe(0);
    const ctx = contextOf(r.stdout);
    expect(ctx.startsWith(HISTORICAL_MARKER)).toBe(true);
    expect(ctx).toContain(forCursor.id);
    expect(ctx).toContain(redis.id);
    expect(ctx).not.toContain(forCodex.id);
    // every sessionStart is a new conversation: injected again for another one (no `source` to tell resume)
    const other = await hook('session-start', { ...payload, session_id: 'another', conversation_id: 'another' }, { cwd: repo, env, harness: 'cursor-agent' });
    expect(contextOf(other.stdout)).toContain(redis.id);
    // the digest's memories are recorded as injected for the session (the recall record)
    const recall = readdirSync(join(sessionsDirOf(env), '.recall'));
    expect(recall.length).toBeGreaterThan(0);
    // switched off: `{}`
    for (const off of [{ ECC_SESSION_START_CONTEXT: 'off' }, { ECC_DISABLED_HOOKS: 'sessionStart' }, { ECC_HOOKS_ENABLED: '0' }])
      expect(await hook('sessionStart', payload, { cwd: repo, env: { ...env, ...off }, harness: 'cursor' })).toMatchObject({ code: 0, stdout: '{}\n' });
  });

  it('beforeSubmitPrompt and stop: `{}`, nothing injected, no snapshot (Cursor documents no context field there, nor its transcript format)', async () => {
    const { repo, env } = vault();
    const ask = await hook('beforeSubmitPrompt', fixture('before-submit-prompt.json', { workspace_roots: [repo] }), { cwd: repo, env, harness: 'cursor' });
    expect(ask).toMatchObject({ code: 0, stdout: '{}\n' });
    for (const event of ['stop', 'sessionEnd', 'preCompact', 'afterAgentResponse'])
      expect(await hook(event, fixture('stop.json', { workspace_roots: [repo], hook_event_name: event }), { cwd: repo, env, harness: 'cursor' })).toMatchObject(
        {
          code: 0,
          stdout: '{}\n',
        },
      );
    expect(snapshotNames(env)).toEqual([]);
  });

  it('exits 0 with `{}` on garbage, huge or odd payloads', async () => {
    const { repo, env } = vault();
    for (const payload of ['not json', '[1,2]', 'null', Buffer.alloc(1024 * 1024 + 10, 0x41)])
      expect(await hook('sessionStart', payload, { cwd: repo, env, harness: 'cursor' }), String(payload).slice(0, 20)).toMatchObject({
        code: 0,
        stdout: '{}\n',
      });
    // workspace_roots that are no usable path fall back to the working folder (Cursor runs project hooks from the root)
    for (const roots of [['relative/path'], [7], 'nope', [`/a\u0000b`]]) {
      const r = await hook('sessionStart', fixture('session-start.json', { workspace_roots: roots }), { cwd: repo, env, harness: 'cursor' });
      expect(r.code).toBe(0);
      expect(contextOf(r.stdout).startsWith(HISTORICAL_MARKER)).toBe(true);
    }
  });

  it('runs from the real binary (the CommonJS hook bundle)', async () => {
    const { repo, env, redis } = vault();
    const r = await hook('sessionStart', fixture('session-start.json', { workspace_roots: [repo] }), { cwd: repo, env, harness: 'cursor', bin: true });
    expect(r.code).toBe(0);
    expect(contextOf(r.stdout)).toContain(redis.id);
  });
});
