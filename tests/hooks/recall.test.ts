/**
 * Recall at the moment of need, end to end as the harness runs the hooks: payload on stdin, a real
 * git repository with a real vault, a temp HOME. The session-start memory digest
 * (src/sessions/start/memory-digest.ts, start-digest.ts) and prompt recall
 * (`vault hook user-prompt-submit`, src/sessions/prompt-recall.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { FRESH_LABEL, RANKED_LABEL } from '../../src/sessions/start/digest-render.js';
import { HISTORICAL_MARKER } from '../../src/sessions/start/injection-text.js';
import { RECALL_MARKER } from '../../src/sessions/prompt-recall.js';
import { cliEnv, git, gitRepo } from '../helpers/cli.js';
import { CLAUDE_SESSION, contextOf, hook, sessionsDirOf } from '../helpers/hooks.js';
import { memory, memoryPath, putMemories } from '../helpers/search.js';

type Answer = { hookSpecificOutput: { hookEventName: string; additionalContext: string } };

/** The additionalContext of a user-prompt-submit answer (asserting its exact shape), '' for none. */
function recallOf(stdout: string, harness = 'claude-code'): string {
  if (stdout === '' || (harness === 'codex' && stdout === '{}\n')) return '';
  const doc = JSON.parse(stdout) as Answer;
  expect(Object.keys(doc)).toEqual(['hookSpecificOutput']);
  expect(Object.keys(doc.hookSpecificOutput).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(doc.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
  return doc.hookSpecificOutput.additionalContext;
}

const prompt = (repo: string, text: unknown, session = 'sess-1') => ({ session_id: session, cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: text });
const idsIn = (text: string) => [...text.matchAll(/mem_test_\d{4}/g)].map((m) => m[0]);
const AWS = ['AKIA', 'Z7QW3ERT5YU8IO9P'].join('');

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
  const tabs = memory({ kind: 'preference', title: 'Tabs in Go files', body: 'gofmt decides the indentation of Go files.' });
  const hidden = memory({
    kind: 'lesson',
    title: 'Flaky webhook tests',
    body: 'The webhook\u200b tests flake when the retry queue is warm.\u200d\u{E0041}\u{E0042} The old fixture was wrong.',
  });
  // a memory holding a credential is quarantined by the search layer: never shown
  const leaked = memory({ kind: 'lesson', title: 'Webhook tests token', body: `The webhook tests used the key ${AWS} when the retry queue was warm.` });
  putMemories(repo, redis, deploy, tabs, hidden, leaked);
  age(repo);
  return { repo, env, redis, deploy, tabs, hidden, leaked };
}

/** Dates the vault's folders and files a minute back: a digest record is never made from a vault modified within the last 2 s. */
function age(repo: string): void {
  const past = new Date(Date.now() - 60_000);
  const root = join(repo, '.ecc', 'memory');
  for (const rel of ['', ...readdirSync(root, { recursive: true }).map(String)].reverse()) utimesSync(join(root, rel), past, past);
}

describe('vault hook user-prompt-submit', () => {
  it('injects the relevant memories in the harness JSON, marked unreviewed, within 3 memories and 1,500 characters, never twice in a session', async () => {
    const { repo, env, redis, deploy } = vault();
    const first = await hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis and not postgres?'), { cwd: repo, env });
    expect(first.code).toBe(0);
    const text = recallOf(first.stdout);
    expect(text.startsWith(RECALL_MARKER)).toBe(true);
    expect(text).toContain(`${redis.id} [team/decision] Redis keeps the login sessions`);
    expect(text).toContain('14 day expiry');
    expect(text).not.toContain(deploy.id);
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(idsIn(text).length).toBeLessThanOrEqual(3);
    // the same prompt again in the same session: never the same memory again
    expect(
      (await hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis and not postgres?'), { cwd: repo, env })).stdout,
    ).not.toContain(redis.id);
    // another session gets it again; an unrelated prompt gets nothing
    expect(recallOf((await hook('user-prompt-submit', prompt(repo, 'login sessions in redis, why?', 'sess-2'), { cwd: repo, env })).stdout)).toContain(
      redis.id,
    );
    expect((await hook('user-prompt-submit', prompt(repo, 'please translate this poem about autumn leaves', 'sess-3'), { cwd: repo, env })).stdout).toBe('');
    // the per-session record lives in the sessions folder's .recall/ subfolder
    expect(readdirSync(join(sessionsDirOf(env), '.recall')).every((n) => /^[0-9a-f]{8}\.json$/.test(n))).toBe(true);
  });

  it('never twice across a compaction of the same session; the records are pruned with the snapshots', async () => {
    const { repo, env, redis } = vault();
    const ask = (session: string) =>
      hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis and not postgres?', session), { cwd: repo, env });
    expect(recallOf((await ask('sess-c')).stdout)).toContain(redis.id);
    // the session compacts (PreCompact, then SessionStart with source compact) and goes on under its id
    expect((await hook('pre-compact', { session_id: 'sess-c', transcript_path: CLAUDE_SESSION, cwd: repo, trigger: 'auto' }, { cwd: repo, env })).code).toBe(0);
    const after = await hook('session-start', { session_id: 'sess-c', cwd: repo, source: 'compact' }, { cwd: repo, env });
    expect(after.code).toBe(0);
    expect((await ask('sess-c')).stdout).not.toContain(redis.id);
    // retention: a record untouched for longer than ECC_SESSION_RETENTION_DAYS goes when the snapshots are pruned
    const dir = join(sessionsDirOf(env), '.recall');
    expect(recallOf((await ask('sess-old')).stdout)).toContain(redis.id);
    const records = readdirSync(dir).sort();
    expect(records).toHaveLength(2);
    const stale = readdirSync(dir).find((n) => readFileSync(join(dir, n), 'utf8').includes('"sess-old"'))!;
    const past = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(join(dir, stale), past, past);
    // not pruned when retention is off, nor by a prompt alone
    await hook(
      'stop',
      { session_id: 'sess-c', transcript_path: CLAUDE_SESSION, cwd: repo },
      { cwd: repo, env: { ...env, ECC_SESSION_RETENTION_DAYS: 'never' } },
    );
    expect(readdirSync(dir)).toContain(stale);
    expect(recallOf((await ask('sess-new')).stdout)).toContain(redis.id);
    expect(readdirSync(dir)).toContain(stale);
    // the next prune (due: the last one more than an hour ago) takes it, and keeps the live ones
    const index = join(sessionsDirOf(env), '.snapshot-index.json');
    writeFileSync(index, readFileSync(index, 'utf8').replace(/^(vault-snapshot-index \d+ )\d+/, `$1${Date.now() - 7_200_000}`));
    await hook('stop', { session_id: 'sess-c', transcript_path: CLAUDE_SESSION, cwd: repo }, { cwd: repo, env });
    expect(readdirSync(dir)).not.toContain(stale);
    expect(readdirSync(dir)).toHaveLength(2);
    // the pruned session starts afresh; the live one still remembers
    expect(recallOf((await ask('sess-old')).stdout)).toContain(redis.id);
    expect((await ask('sess-c')).stdout).not.toContain(redis.id);
  });

  it('Codex gets the same shape, and {} when there is nothing to add', async () => {
    const { repo, env, deploy } = vault();
    const r = await hook('user-prompt-submit', prompt(repo, 'how do we deploy the billing service?'), { cwd: repo, env, harness: 'codex' });
    expect(recallOf(r.stdout, 'codex')).toContain(deploy.id);
    expect((await hook('user-prompt-submit', prompt(repo, '/compact now'), { cwd: repo, env, harness: 'codex' })).stdout).toBe('{}\n');
  });

  it('skips slash commands, short prompts and bare paths; honours ECC_PROMPT_RECALL=off and the other kill switches', async () => {
    const { repo, env } = vault();
    for (const text of ['/review redis login sessions', 'redis sessions', 'src/sessions/redis-login.ts', '  ', 42]) {
      expect((await hook('user-prompt-submit', prompt(repo, text), { cwd: repo, env })).stdout, String(text)).toBe('');
    }
    const ask = prompt(repo, 'why do the login sessions live in redis?');
    for (const off of [{ ECC_PROMPT_RECALL: 'off' }, { ECC_HOOKS_ENABLED: '0' }, { ECC_DISABLED_HOOKS: 'UserPromptSubmit' }]) {
      expect(await hook('user-prompt-submit', ask, { cwd: repo, env: { ...env, ...off } })).toMatchObject({ code: 0, stdout: '' });
    }
    // a prompt over 8 KiB is searched by its start
    const long = `why do the login sessions live in redis? ${'and so on '.repeat(1200)}`;
    expect(recallOf((await hook('user-prompt-submit', prompt(repo, long, 'sess-long'), { cwd: repo, env })).stdout)).toContain(
      'Redis keeps the login sessions',
    );
  });

  it('never prints secrets or invisible characters', async () => {
    const { repo, env, hidden } = vault();
    const text = recallOf(
      (await hook('user-prompt-submit', prompt(repo, 'why are the webhook tests flaky when the retry queue is warm?'), { cwd: repo, env })).stdout,
    );
    expect(text).toContain(hidden.id);
    expect(text).toContain('The webhook tests flake');
    expect(text).not.toContain(AWS);
    expect(text).not.toMatch(/[\u200b\u200d]|\u{E0041}/u);
  });

  it('exits 0 with empty output on garbage, huge or missing payloads and on a broken vault or index', async () => {
    const { repo, env } = vault();
    for (const payload of ['', 'not json', '[1,2]', 'null', Buffer.alloc(1024 * 1024 + 10, 0x41), JSON.stringify({ prompt: { nested: true } })]) {
      expect(await hook('user-prompt-submit', payload, { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    }
    // a damaged index is rebuilt; a vault folder that is a file gives nothing, quietly
    const indexDir = join(repo, '.ecc', 'memory', '.index');
    rmSync(indexDir, { recursive: true, force: true });
    mkdirSync(indexDir, { recursive: true });
    writeFileSync(join(indexDir, 'state-team.json'), '{"v":');
    const ask = prompt(repo, 'why do the login sessions live in redis?', 'sess-broken');
    expect((await hook('user-prompt-submit', ask, { cwd: repo, env })).code).toBe(0);
    rmSync(join(repo, '.ecc', 'memory', 'team'), { recursive: true, force: true });
    writeFileSync(join(repo, '.ecc', 'memory', 'team'), 'not a folder');
    expect(await hook('user-prompt-submit', { ...ask, session_id: 'sess-broken-2' }, { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
  });

  it('runs from the real binary (the CommonJS hook bundle)', async () => {
    const { repo, env, redis } = vault();
    const r = await hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis?'), { cwd: repo, env, bin: true });
    expect(r.code).toBe(0);
    expect(recallOf(r.stdout)).toContain(redis.id);
  });
});

/** A branch `feature` with one commit that adds src/billing/invoice-queue.ts (the digest's changed paths). */
function onFeatureBranch(repo: string): void {
  git(repo, 'checkout', '-q', '-b', 'feature');
  mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
  writeFileSync(join(repo, 'src', 'billing', 'invoice-queue.ts'), 'export {};\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'billing');
}

describe('the memory digest at session start', () => {
  const start = (repo: string, source = 'startup', session = 'new-session') => ({ session_id: session, cwd: repo, hook_event_name: 'SessionStart', source });

  it('shows hand-offs first, then preferences, decisions, runbooks, lessons, with a lead of each body, inside the marker and the budgets', async () => {
    const { repo, env, redis, deploy, tabs, hidden } = vault();
    const handoff = memory({
      kind: 'handoff',
      title: 'Hand-off: finish the cache migration',
      body: 'Half of the callers use the new cache. Next: the admin pages.',
    });
    const other = memory({ kind: 'decision', title: 'Only for codex', targetHarnesses: ['codex'], body: 'Codex only.' });
    const viaAlias = memory({ kind: 'fact', title: 'For claude by its alias', targetHarnesses: ['claude'], body: 'Targeted with the alias.' });
    const old = memory({ kind: 'decision', title: 'Superseded choice', status: 'superseded', body: 'Old.' });
    putMemories(repo, handoff, other, viaAlias, old);
    const ctx = contextOf((await hook('session-start', start(repo), { cwd: repo, env })).stdout);
    expect(ctx.startsWith(HISTORICAL_MARKER)).toBe(true);
    const order = [handoff, tabs, redis, deploy, hidden, viaAlias].map((m) => ctx.indexOf(m.id));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(ctx).not.toContain(other.id);
    expect(ctx).not.toContain(old.id);
    expect(ctx).toContain('Half of the callers use the new cache.');
    expect(ctx).toContain('vault search');
    expect(ctx).not.toContain(AWS);
    expect(ctx).not.toMatch(/[\u200b\u200d]|\u{E0041}/u);
    // its own budget, inside the total
    const small = contextOf((await hook('session-start', start(repo), { cwd: repo, env: { ...env, ECC_SESSION_START_MEMORY_CHARS: '600' } })).stdout);
    expect(small.length).toBeLessThanOrEqual(600);
    expect(small).toContain(handoff.id);
    expect(idsIn(small).length).toBeLessThan(idsIn(ctx).length);
    // resume injects nothing; clear and compact do
    expect((await hook('session-start', start(repo, 'resume'), { cwd: repo, env })).stdout).toBe('');
    for (const source of ['clear', 'compact'])
      expect(contextOf((await hook('session-start', start(repo, source), { cwd: repo, env })).stdout)).toContain(handoff.id);
  });

  it('is precomputed when a snapshot is written (with the branch’s changed paths) and reused while the vault is unchanged; its memories count as injected', async () => {
    const { repo, env, redis } = vault();
    onFeatureBranch(repo);
    const stop = { session_id: 'prev', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false };
    expect((await hook('stop', stop, { cwd: repo, env: { ...env, ECC_HOOK_DEBUG: '1' } })).code).toBe(0);
    const record = readdirSync(join(sessionsDirOf(env), '.start')).find((n) => n.startsWith('digest-'));
    expect(record).toBeDefined();
    const r = await hook('session-start', start(repo, 'startup', 'sess-d'), { cwd: repo, env: { ...env, ECC_HOOK_DEBUG: '1' } });
    const ctx = contextOf(r.stdout);
    expect(ctx).toContain('--- END PRIOR-SESSION SUMMARY ---');
    expect(ctx.indexOf('--- END PRIOR-SESSION SUMMARY ---')).toBeLessThan(ctx.indexOf(redis.id));
    const log = readFileSync(join(sessionsDirOf(env), 'hooks.log'), 'utf8');
    expect(log).toMatch(/digest of \d+ memories \(digest record\)/);
    // the digest's memories are not injected again on a prompt of the same session
    expect((await hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis?', 'sess-d'), { cwd: repo, env })).stdout).not.toContain(
      redis.id,
    );
    // a new memory changes the vault: searched again, and shown
    const fresh = memory({ kind: 'preference', title: 'Invoice queue naming', body: 'Queues are named after their service.' });
    putMemories(repo, fresh);
    age(repo);
    const again = contextOf((await hook('session-start', start(repo, 'startup', 'sess-e'), { cwd: repo, env })).stdout);
    expect(again).toContain(fresh.id);
  });
});

describe('the digest record after a change of the vault', () => {
  const start = (repo: string, session: string) => ({ session_id: session, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
  const lastLog = (env: Record<string, string>) =>
    readFileSync(join(sessionsDirOf(env), 'hooks.log'), 'utf8')
      .trim()
      .split('\n')
      .at(-1) ?? '';

  it('a start after a change that is not only additions searches once and stores the digest: the same text as a full recompute, reused by the next start', async () => {
    const { repo, env, leaked } = vault();
    const debug = { ...env, ECC_HOOK_DEBUG: '1' };
    onFeatureBranch(repo);
    const stop = { session_id: 'prev', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false };
    expect((await hook('stop', stop, { cwd: repo, env: debug })).code).toBe(0); // the record, with the branch's changed paths
    const before = contextOf((await hook('session-start', start(repo, 's0'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
    // new memories (one of a kind with a quota, one matching the changed paths) and a file renamed: the record no
    // longer holds, nor does it prove that memories were only added (that case: the next describe)
    const fresh = memory({ kind: 'preference', title: 'Invoice queue naming', body: 'Queues are named after their service.' });
    const billing = memory({ kind: 'decision', title: 'Billing invoice queue is FIFO', body: 'The billing invoice queue keeps order.' });
    putMemories(repo, fresh, billing);
    renameSync(memoryPath(repo, leaked), join(dirname(memoryPath(repo, leaked)), 'renamed.md'));
    age(repo);
    const first = await hook('session-start', start(repo, 's1'), { cwd: repo, env: debug });
    expect(first.code).toBe(0);
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    const refreshed = contextOf(first.stdout);
    expect(refreshed).not.toBe(before);
    expect(refreshed).toContain(fresh.id);
    // the next start takes the stored digest, the same text
    const second = await hook('session-start', start(repo, 's2'), { cwd: repo, env: debug });
    expect(lastLog(env)).toMatch(/\(digest record\)/);
    expect(contextOf(second.stdout)).toBe(refreshed);
    // a full recompute (ECC_INDEX_FULL_CHECK_S=0 trusts no record and checks every file): the same text
    const full = await hook('session-start', start(repo, 's3'), { cwd: repo, env: { ...debug, ECC_INDEX_FULL_CHECK_S: '0' } });
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    expect(contextOf(full.stdout)).toBe(refreshed);
    // and the digest the stop hook computes from scratch for the same vault (the snapshot part now has the new stop's time)
    const digestPart = (ctx: string) => ctx.slice(ctx.indexOf('UNREVIEWED VAULT MEMORIES:'));
    expect((await hook('stop', stop, { cwd: repo, env: debug })).code).toBe(0);
    const restarted = contextOf((await hook('session-start', start(repo, 's4'), { cwd: repo, env: debug })).stdout);
    expect(digestPart(restarted)).toBe(digestPart(refreshed));
    expect(digestPart(refreshed)).toContain(fresh.id);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
  });

  it('a vault changed within the last 2 s is searched but not stored', async () => {
    const { repo, env } = vault();
    const debug = { ...env, ECC_HOOK_DEBUG: '1' };
    putMemories(repo, memory({ kind: 'fact', title: 'Just saved', body: 'Saved a moment ago.' })); // not aged: racy
    const a = contextOf((await hook('session-start', start(repo, 'r1'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    expect(
      existsSync(join(sessionsDirOf(env), '.start')) ? readdirSync(join(sessionsDirOf(env), '.start')).filter((n) => n.startsWith('digest-')) : [],
    ).toEqual([]);
    age(repo);
    expect(contextOf((await hook('session-start', start(repo, 'r2'), { cwd: repo, env: debug })).stdout)).toBe(a);
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    expect(contextOf((await hook('session-start', start(repo, 'r3'), { cwd: repo, env: debug })).stdout)).toBe(a);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
  });
});

describe('the digest record after memories were only added (no search until the next snapshot)', () => {
  const start = (repo: string, session: string) => ({ session_id: session, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
  const stop = (repo: string) => ({ session_id: 'prev', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false });
  const lastLog = (env: Record<string, string>) =>
    readFileSync(join(sessionsDirOf(env), 'hooks.log'), 'utf8')
      .trim()
      .split('\n')
      .at(-1) ?? '';
  const ADDED = /\(digest record, (\d+) saved since on top, not searched\)/;

  it('a memory saved after the last snapshot is shown at the next start on top of the stored ranking, without opening the index', async () => {
    const { repo, env, redis, deploy, tabs } = vault();
    const debug = { ...env, ECC_HOOK_DEBUG: '1' };
    onFeatureBranch(repo);
    mkdirSync(join(repo, '.ecc', 'memory', 'team', 'handoffs')); // no hand-off yet (a new kind folder is no mere addition)
    age(repo);
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    const before = contextOf((await hook('session-start', start(repo, 's0'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
    // saved now (as `vault save` does: new files, nothing else touched): one for this harness,
    // one for Codex only, one inactive, one holding a credential (quarantined by the index)
    const fresh = memory({ kind: 'preference', title: 'Invoice queue naming', body: 'Queues are named after their service.\u200b' });
    const codexOnly = memory({ kind: 'decision', title: 'Codex only choice', targetHarnesses: ['codex'], body: 'Not for Claude.' });
    const inactive = memory({ kind: 'runbook', status: 'superseded', title: 'Old deploy steps', body: 'Replaced.' });
    const secret = memory({ kind: 'lesson', title: 'Deploy key lesson', body: `Never paste ${AWS} into a memory.` });
    const handoff = memory({ kind: 'handoff', title: 'Hand-off: finish the invoice queue', body: 'Half done. Next: retries.' });
    putMemories(repo, fresh, codexOnly, inactive, secret, handoff);
    // a search would open (and so build again) the index: it must stay gone
    const index = join(repo, '.git', 'ecc-memory-index');
    expect(existsSync(index)).toBe(true);
    rmSync(index, { recursive: true, force: true });
    const r = await hook('session-start', start(repo, 's1'), { cwd: repo, env: debug });
    expect(r.code).toBe(0);
    expect(lastLog(env)).toMatch(ADDED);
    expect(lastLog(env).match(ADDED)![1]).toBe('2');
    expect(existsSync(index)).toBe(false);
    const ctx = contextOf(r.stdout);
    expect(ctx).toContain(`${fresh.id} [team/preference] Invoice queue naming`);
    expect(ctx).not.toMatch(/\u200b/);
    for (const m of [codexOnly, inactive, secret]) expect(ctx).not.toContain(m.id);
    expect(ctx).not.toContain(AWS);
    // the new one under its label, above the stored ranking, which is all still there
    expect(ctx.indexOf(FRESH_LABEL)).toBeGreaterThan(0);
    expect(ctx.indexOf(FRESH_LABEL)).toBeLessThan(ctx.indexOf(handoff.id));
    expect(ctx.indexOf(handoff.id)).toBeLessThan(ctx.indexOf(fresh.id)); // hand-offs first
    expect(ctx.indexOf(fresh.id)).toBeLessThan(ctx.indexOf(RANKED_LABEL));
    for (const m of [tabs, redis, deploy]) {
      expect(before).toContain(m.id);
      expect(ctx.indexOf(m.id)).toBeGreaterThan(ctx.indexOf(RANKED_LABEL));
    }
    expect(ctx.slice(ctx.indexOf('UNREVIEWED VAULT MEMORIES:')).length).toBeLessThanOrEqual(3000);
    // the same again at the next start (nothing stored in between)
    expect(contextOf((await hook('session-start', start(repo, 's2'), { cwd: repo, env: debug })).stdout)).toBe(ctx);
    expect(existsSync(index)).toBe(false);
    // the next snapshot ranks everything again (a search: the index is back), and the record holds as it is
    age(repo); // a record is only made from a vault unchanged for 2 s
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    expect(existsSync(index)).toBe(true);
    const ranked = contextOf((await hook('session-start', start(repo, 's3'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
    expect(ranked).toContain(fresh.id);
    expect(ranked).not.toContain(FRESH_LABEL);
  });

  it('more than 32 new files (a pull, a sync) are left to the search', async () => {
    const { repo, env } = vault();
    const debug = { ...env, ECC_HOOK_DEBUG: '1' };
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    const many = Array.from({ length: 33 }, (_, i) => memory({ kind: 'fact', title: `Bulk fact ${i}`, body: `Imported fact ${i}.` }));
    putMemories(repo, ...many);
    const ctx = contextOf((await hook('session-start', start(repo, 'm1'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).not.toMatch(ADDED);
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    expect(ctx).toContain('Bulk fact');
  });

  it('a memory of the record deleted, retired in place or renamed is never shown: the start searches', async () => {
    const { repo, env, redis, deploy, leaked } = vault();
    const debug = { ...env, ECC_HOOK_DEBUG: '1' };
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    expect(contextOf((await hook('session-start', start(repo, 'd0'), { cwd: repo, env: debug })).stdout)).toContain(redis.id);
    // deleted, and a new memory saved
    rmSync(memoryPath(repo, redis));
    const a = memory({ kind: 'decision', title: 'Queues are FIFO', body: 'Order matters.' });
    putMemories(repo, a);
    const afterDelete = contextOf((await hook('session-start', start(repo, 'd1'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).not.toMatch(ADDED);
    expect(lastLog(env)).not.toMatch(/\(digest record\)/);
    expect(afterDelete).not.toContain(redis.id);
    expect(afterDelete).toContain(a.id);
    // a new record; then retired in place, and a new memory saved
    age(repo);
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    expect(contextOf((await hook('session-start', start(repo, 'd2'), { cwd: repo, env: debug })).stdout)).toContain(deploy.id);
    expect(lastLog(env)).toMatch(/\(digest record\)/);
    writeFileSync(memoryPath(repo, deploy), serializeMemory({ ...deploy, status: 'superseded' }));
    const b = memory({ kind: 'decision', title: 'Retries back off', body: 'Exponential back-off.' });
    putMemories(repo, b);
    const afterRetire = contextOf((await hook('session-start', start(repo, 'd3'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).not.toMatch(ADDED);
    expect(afterRetire).not.toContain(deploy.id);
    expect(afterRetire).toContain(b.id);
    // a new record; then a file it did not show renamed (the names no longer prove an addition), and a new memory saved
    age(repo);
    expect((await hook('stop', stop(repo), { cwd: repo, env: debug })).code).toBe(0);
    renameSync(memoryPath(repo, leaked), join(dirname(memoryPath(repo, leaked)), 'renamed.md'));
    const c = memory({ kind: 'lesson', title: 'Warm caches hide bugs', body: 'Test cold.' });
    putMemories(repo, c);
    const afterRename = contextOf((await hook('session-start', start(repo, 'd4'), { cwd: repo, env: debug })).stdout);
    expect(lastLog(env)).not.toMatch(ADDED);
    expect(afterRename).toContain(c.id);
  });
});

describe('hook searches honour ECC_INDEX_FULL_CHECK_S like the CLI', () => {
  // An in-place write to a file the search does not return is seen by the full check only (the
  // folder check sees no folder change): within the 60 s default it is not seen; with
  // ECC_INDEX_FULL_CHECK_S=0 every hook search checks every file, as `vault search` does.
  it('prompt recall sees an in-place write at once with ECC_INDEX_FULL_CHECK_S=0', async () => {
    const { repo, env, tabs } = vault();
    const ask = (e: Record<string, string>, session: string) =>
      hook('user-prompt-submit', prompt(repo, 'how is the kafka consumer lag watched on call?', session), { cwd: repo, env: e });
    expect(recallOf((await ask(env, 's1')).stdout)).toBe(''); // builds the index; nothing matches yet
    writeFileSync(memoryPath(repo, tabs), serializeMemory({ ...tabs, title: 'Kafka consumer lag', body: 'The on-call team watches the kafka consumer lag.' }));
    expect(recallOf((await ask(env, 's2')).stdout)).toBe(''); // the folder check within the interval
    expect(recallOf((await ask({ ...env, ECC_INDEX_FULL_CHECK_S: '0' }, 's3')).stdout)).toContain(tabs.id);
  });

  it('the session-start digest sees an in-place write at once with ECC_INDEX_FULL_CHECK_S=0', async () => {
    const { repo, env } = vault();
    const held = memory({ kind: 'decision', status: 'rejected', title: 'Queue retention of seven days', body: 'Messages are kept seven days.' });
    putMemories(repo, held);
    age(repo);
    const start = (session: string) => ({ session_id: session, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
    expect(contextOf((await hook('session-start', start('d1'), { cwd: repo, env })).stdout)).not.toContain(held.id);
    writeFileSync(memoryPath(repo, held), serializeMemory({ ...held, status: 'active' }));
    expect(contextOf((await hook('session-start', start('d2'), { cwd: repo, env })).stdout)).not.toContain(held.id);
    const full = await hook('session-start', start('d3'), { cwd: repo, env: { ...env, ECC_INDEX_FULL_CHECK_S: '0' } });
    expect(contextOf(full.stdout)).toContain(held.id);
  });
});

describe('leftovers of killed writers in .recall and .start', () => {
  // a kill between a record's work file and its rename leaves `.wip-*`; the next write of the folder removes those older than a minute (or of a dead process)
  it('are removed on the next write of their folder; a work file still being written is kept', async () => {
    const { repo, env, redis } = vault();
    const plant = (sub: string, tag: string) => {
      const dir = join(sessionsDirOf(env), sub);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const old = join(dir, `.wip-${tag}-${process.pid}-aaaaaaaaaaaa`);
      const dead = join(dir, `.wip-${tag}-999999999-bbbbbbbbbbbb`);
      const live = join(dir, `.wip-${tag}-${process.pid}-cccccccccccc`);
      for (const f of [old, dead, live]) writeFileSync(f, '{"v":1,');
      const past = new Date(Date.now() - 120_000);
      utimesSync(old, past, past);
      return { dir, left: () => readdirSync(dir).filter((n) => n.startsWith('.wip-')) };
    };
    const recall = plant('.recall', 'recall');
    const r = await hook('user-prompt-submit', prompt(repo, 'why do the login sessions live in redis?', 'sess-w'), { cwd: repo, env });
    expect(recallOf(r.stdout)).toContain(redis.id);
    expect(recall.left()).toEqual([`.wip-recall-${process.pid}-cccccccccccc`]);

    const start = plant('.start', 'start');
    const stop = { session_id: 'prev-w', transcript_path: CLAUDE_SESSION, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false };
    expect((await hook('stop', stop, { cwd: repo, env })).code).toBe(0); // writes the snapshot, the start and the digest records
    expect(readdirSync(start.dir).filter((n) => n.startsWith('digest-')).length).toBe(1);
    expect(start.left()).toEqual([`.wip-start-${process.pid}-cccccccccccc`]);
  });
});
