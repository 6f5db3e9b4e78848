import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, FIXTURES, gitRepo, runCli, tempDir } from '../../helpers/cli.js';
// @ts-expect-error: a JavaScript fixture module without type declarations
import { claudeSession } from '../../fixtures/capture/format.mjs';
import { filesUnder, hook, sessionsDirOf } from '../../helpers/hooks.js';

const CAPTURE = join(FIXTURES, 'capture');
const CLAUDE_DECISION = join(CAPTURE, 'claude/c01-decision-session-store.jsonl');
const CODEX_DECISION = join(CAPTURE, 'codex/x01-decision-local-cache.jsonl');

const stop = (repo: string, transcript: string, sessionId: string) => ({
  session_id: sessionId,
  transcript_path: transcript,
  cwd: repo,
  permission_mode: 'default',
  hook_event_name: 'Stop',
  stop_hook_active: false,
});

interface Listed {
  proposals: Array<{ id: string; kind: string; title: string; body: string; fingerprint: string; evidence: { harness: string; line: number } }>;
}
async function list(repo: string, env: Record<string, string>): Promise<Listed['proposals']> {
  const r = await runCli(['review', 'list', '--json'], { cwd: repo, env });
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as Listed).proposals;
}

describe('capture and review, end to end', () => {
  it('"Let\'s go with X, never Y" is proposed as a decision (the never rules out the other option), through the Stop hook', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const said = [
      "Let's go with Postgres for the job queue, never Redis.",
      "Let's go with the streaming parser and never the DOM one.",
      'We decided to pin Node 22, never the current release.',
    ];
    const transcript = join(tempDir('vault-let-go-'), 't.jsonl');
    writeFileSync(
      transcript,
      claudeSession(
        { name: 'let-go', cwd: repo, version: '1.0.108' },
        said.map((user) => ({ user })),
      ),
    );
    expect((await hook('stop', stop(repo, transcript, '8a0b5a0e-3f7c-4d1e-9a55-0c2d6b7e9f11'), { cwd: repo, env })).code).toBe(0);
    const proposals = await list(repo, env);
    for (const text of said) {
      const p = proposals.find((x) => x.body.includes(text.slice(0, 30)));
      expect(p?.kind, text).toBe('decision');
    }
    // a plain instruction with never stays a preference
    const pref = join(tempDir('vault-never-'), 't.jsonl');
    writeFileSync(pref, claudeSession({ name: 'never', cwd: repo, version: '1.0.108' }, [{ user: 'Never force-push to main.' }]));
    await hook('stop', stop(repo, pref, '8a0b5a0e-3f7c-4d1e-9a55-0c2d6b7e9f12'), { cwd: repo, env });
    expect((await list(repo, env)).find((x) => x.body.includes('force-push'))?.kind).toBe('preference');
  });

  it('a Claude Code Stop hook stores proposals next to the snapshots; accept saves a valid memory, reject is remembered', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    expect(r.code).toBe(0);
    // the person is told, once: a top-level systemMessage (shown to the user, not to the model)
    const told = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(told)).toEqual(['systemMessage']);
    expect(told.systemMessage).toMatch(/^vault: \d+ proposed memor(y|ies), run `vault review`$/);
    expect(filesUnder(join(repo, '.ecc'))).toEqual([]);
    const dir = sessionsDirOf(env);
    expect(readdirSync(join(dir, '.proposals')).filter((n) => n.endsWith('.json') && !n.startsWith('.'))).toHaveLength(1);
    const proposals = await list(repo, env);
    const decision = proposals.find((p) => p.kind === 'decision' && /Redis/.test(p.title + p.body));
    expect(decision).toBeDefined();
    expect(decision!.evidence.harness).toBe('claude-code');
    expect(decision!.id).toMatch(/^p[0-9a-f]{10}$/);

    const human = await runCli(['review'], { cwd: repo, env });
    expect(human.stdout).toContain(decision!.id);
    expect(human.stdout).toMatch(/evidence: claude-code session 3c091e7d-9540-4562-9383-c47b7fd51cc6, transcript line \d+/);
    const shown = await runCli(['review', 'show', decision!.id], { cwd: repo, env });
    expect(shown.stdout).toContain(decision!.body.split('\n')[0]!);

    // the same Stop again proposes nothing new, and says nothing (the count did not grow)
    const again = await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    expect(again.stdout).toBe('');
    expect((await list(repo, env)).map((p) => p.id)).toEqual(proposals.map((p) => p.id));

    const accepted = await runCli(['review', 'accept', decision!.id, '--json'], { cwd: repo, env });
    expect(accepted.stderr).toBe('');
    const saved = JSON.parse(accepted.stdout) as { id: string; path: string; kind: string; written: boolean };
    expect(saved).toMatchObject({ kind: 'decision', written: true });
    const file = readFileSync(join(repo, '.ecc', 'memory', saved.path), 'utf8');
    expect(file).toMatch(/^source_harness: "?claude-code"?$/m);
    expect(file).toMatch(/^trust: "?unreviewed"?$/m);
    const doctor = await runCli(['doctor'], { cwd: repo, env });
    expect(doctor.code).toBe(0);
    expect((await list(repo, env)).some((p) => p.id === decision!.id)).toBe(false);

    const others = (await list(repo, env)).filter((p) => p.id !== decision!.id);
    for (const p of others) {
      const rej = await runCli(['review', 'reject', p.id], { cwd: repo, env });
      expect(rej.stdout).toContain('will not be proposed again');
    }
    expect(await list(repo, env)).toEqual([]);
    // a new session saying the same things proposes neither the accepted nor the rejected again
    await hook('session-end', { ...stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), hook_event_name: 'SessionEnd' }, { cwd: repo, env });
    expect(await list(repo, env)).toEqual([]);
    expect(filesUnder(join(repo, '.ecc', 'memory')).filter((f) => f.endsWith('.md'))).toHaveLength(1);
  });

  it('an accept that saved but could not record the decision (busy lock, or killed) is finished by the next accept, never a second copy', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    expect((await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env })).code).toBe(0);
    const decision = (await list(repo, env)).find((p) => p.kind === 'decision' && /Redis/.test(p.title + p.body))!;
    const memories = () => filesUnder(join(repo, '.ecc', 'memory')).filter((f) => f.endsWith('.md'));
    // another live process holds the decision lock: the save happens, the decision cannot be written
    const lock = join(sessionsDirOf(env), '.lock-proposals-decided');
    writeFileSync(lock, `${process.ppid} held`);
    const first = await runCli(['review', 'accept', decision.id], { cwd: repo, env });
    rmSync(lock);
    expect(first.code).toBe(7);
    expect(first.stderr).toMatch(/^error: saved mem_\d{8}_[0-9a-f]{20} .*could not mark proposal/m);
    expect(memories()).toHaveLength(1);
    expect((await list(repo, env)).some((p) => p.id === decision.id)).toBe(true);
    // the next accept meets its own memory: it records the decision and saves nothing
    const again = await runCli(['review', 'accept', decision.id], { cwd: repo, env });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already saved as mem_\d{8}_[0-9a-f]{20} by an accept that did not finish; it is now marked accepted/);
    expect(memories()).toHaveLength(1);
    expect((await list(repo, env)).some((p) => p.id === decision.id)).toBe(false);
    expect((await runCli(['doctor'], { cwd: repo, env })).code).toBe(0);
  });

  it('a compaction proposes nothing twice: the compaction summary is not read as the person, and a decision said again keeps its proposal', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const session = '3c091e7d-9540-4562-9383-c47b7fd51cc6';
    const transcript = join(tempDir(), `${session}.jsonl`);
    const lines = readFileSync(CLAUDE_DECISION, 'utf8');
    writeFileSync(transcript, lines);
    await hook('stop', stop(repo, transcript, session), { cwd: repo, env });
    const before = await list(repo, env);
    expect(before.some((p) => p.kind === 'decision')).toBe(true);
    // the context is compacted: a boundary, the summary Claude Code writes as a user line, then the person restates the decision
    const last = (JSON.parse(lines.trim().split('\n').pop()!) as { uuid: string }).uuid;
    const base = {
      isSidechain: false,
      userType: 'external',
      cwd: '/home/dev/src/shop-api',
      sessionId: session,
      version: '2.0.76',
      gitBranch: 'feat/shared-sessions',
    };
    const more = [
      {
        ...base,
        parentUuid: null,
        logicalParentUuid: last,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 150000 },
        uuid: 'c0000000-0000-4000-8000-000000000001',
        timestamp: '2026-03-02T09:05:00.000Z',
      },
      {
        ...base,
        parentUuid: 'c0000000-0000-4000-8000-000000000001',
        type: 'user',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: {
          role: 'user',
          content:
            "Summary of the earlier conversation: the user said Let's go with Redis, we never use Postgres for sessions, and always run the tests first.",
        },
        uuid: 'c0000000-0000-4000-8000-000000000002',
        timestamp: '2026-03-02T09:05:00.100Z',
      },
      {
        ...base,
        parentUuid: 'c0000000-0000-4000-8000-000000000002',
        type: 'user',
        message: { role: 'user', content: "Let's go with Redis, we already pay for it and the TTL handling is exactly what we need." },
        uuid: 'c0000000-0000-4000-8000-000000000003',
        timestamp: '2026-03-02T09:05:10.000Z',
      },
    ];
    writeFileSync(transcript, `${lines}${more.map((r) => JSON.stringify(r)).join('\n')}\n`);
    await hook('pre-compact', { ...stop(repo, transcript, session), hook_event_name: 'PreCompact', trigger: 'auto' }, { cwd: repo, env });
    await hook('stop', stop(repo, transcript, session), { cwd: repo, env });
    const after = await list(repo, env);
    expect(after.map((p) => p.fingerprint).sort()).toEqual(before.map((p) => p.fingerprint).sort());
    expect(after.some((p) => /never use Postgres|always run the tests/i.test(p.title + p.body))).toBe(false);
  });

  it('a Codex Stop hook proposes too; ids are refused clearly', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await hook('stop', stop(repo, CODEX_DECISION, '1835537e-6028-4997-9046-050365e4da8a'), {
      cwd: repo,
      env: { ...env, ECC_REVIEW_NOTICE: 'off' },
      harness: 'codex',
    });
    expect(r.stdout).toBe('{}\n'); // the kill switch: Codex gets its no-op answer, no systemMessage
    const proposals = await list(repo, env);
    expect(proposals.some((p) => p.kind === 'decision' && /SQLite/.test(p.title + p.body) && p.evidence.harness === 'codex')).toBe(true);
    const missing = await runCli(['review', 'accept', 'pffffffffff'], { cwd: repo, env });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no proposal "pffffffffff" for this worktree/);
    expect(missing.stderr).toMatch(/vault review list/);
    // another worktree sees none of them
    const other = gitRepo();
    expect(await list(other, env)).toEqual([]);
    expect(filesUnder(join(repo, '.ecc'))).toEqual([]);
  });

  it('the notice speaks when the count grows, at most once every 10 minutes (Codex gets the same systemMessage)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const first = await hook('stop', stop(repo, CODEX_DECISION, '1835537e-6028-4997-9046-050365e4da8a'), { cwd: repo, env, harness: 'codex' });
    expect(JSON.parse(first.stdout)).toEqual({ systemMessage: expect.stringMatching(/^vault: \d+ proposed memor/) });
    // a second session grows the count within 10 minutes: silent
    const second = await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    expect(second.stdout).toBe('');
  });
});

describe('MCP lists proposals read-only', () => {
  it('memory_proposals lists what waits for review; no tool accepts or rejects one', async () => {
    const { startMcp, callOk } = await import('../../helpers/mcp-client.js');
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'claude' });
    await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    const listed = await list(repo, env);
    const s = await startMcp(repo, env);
    const r = await callOk(s, 'memory_proposals', {});
    expect(r.total).toBe(listed.length);
    expect(r.proposals.map((p: { id: string }) => p.id)).toEqual(listed.map((p) => p.id));
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.filter((n) => /accept|reject|review|retire/.test(n))).toEqual([]);
    expect(tools.find((t) => t.name === 'memory_proposals')!.annotations?.readOnlyHint).toBe(true);
    expect(await list(repo, env)).toHaveLength(listed.length);
    expect(filesUnder(join(repo, '.ecc'))).toEqual([]);
  });
});

describe('proposals are pruned with the snapshots', () => {
  it('a session file past the retention goes when the snapshots are pruned; decided fingerprints stay', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    const [first] = await list(repo, env);
    await runCli(['review', 'reject', first!.id], { cwd: repo, env });
    const dir = sessionsDirOf(env);
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const f of filesUnder(dir)) if (f.endsWith('-session.tmp') || /^\.proposals\/[^.].*\.json$/.test(f)) utimesSync(join(dir, f), old, old);
    rmSync(join(dir, '.snapshot-index.json')); // the last prune time lives there: due again now
    await hook('stop', stop(repo, CODEX_DECISION, '1835537e-6028-4997-9046-050365e4da8a'), { cwd: repo, env, harness: 'codex' });
    const left = filesUnder(join(dir, '.proposals')).filter((f) => !f.startsWith('.'));
    expect(left).toContain('decided.json');
    expect(left.filter((f) => f !== 'decided.json')).toHaveLength(1); // only the new Codex session's
    expect((await list(repo, env)).every((p) => p.evidence.harness === 'codex')).toBe(true);
  });
});

describe('vault review on a terminal: the one-key loop', () => {
  it('shows each proposal with its evidence and takes one key: reject, skip, accept, then a summary', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    const proposals = await list(repo, env);
    expect(proposals.length).toBeGreaterThanOrEqual(1);
    // x is no choice (asked again), r rejects the first, Enter skips the second (if any), a accepts the next
    const keys = ['x', 'r', ...(proposals.length > 2 ? ['\r', 'a'] : proposals.length > 1 ? ['a'] : [])];
    const r = await runCli(['review'], { cwd: repo, env, keys: [...keys] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`[1/${proposals.length}]`);
    expect(r.stdout).toMatch(/evidence: claude-code session 3c091e7d/);
    expect(r.stdout.match(/\[a\]ccept {2}\[e\]dit, then accept {2}\[r\]eject {2}\[s\]kip {2}\[q\]uit > /g)!.length).toBeGreaterThanOrEqual(2);
    expect(r.stdout).toContain(`Rejected ${proposals[0]!.id}`);
    const accepted = proposals.length > 1 ? 1 : 0;
    expect(r.stdout).toMatch(new RegExp(`Accepted ${accepted}, rejected 1, skipped ${proposals.length > 2 ? 1 : 0}\\.`));
    const left = (await list(repo, env)).map((p) => p.id);
    expect(left).not.toContain(proposals[0]!.id);
    const saved = filesUnder(join(repo, '.ecc', 'memory')).filter((f) => f.endsWith('.md'));
    expect(saved).toHaveLength(accepted);
    expect((await runCli(['doctor'], { cwd: repo, env })).code).toBe(0);
  });

  it('q quits at once and writes nothing; --json or a sub-verb never enters the loop', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    const before = await list(repo, env);
    const q = await runCli(['review'], { cwd: repo, env, keys: ['q'] });
    expect(q.stdout).toMatch(/Accepted 0, rejected 0, skipped 0\./);
    expect(await list(repo, env)).toEqual(before);
    const json = await runCli(['review', '--json'], { cwd: repo, env, keys: ['r'] });
    expect(JSON.parse(json.stdout).proposals).toHaveLength(before.length);
    expect(filesUnder(join(repo, '.ecc', 'memory')).filter((f) => f.endsWith('.md'))).toEqual([]);
  });

  it('never echoes a credential planted in a proposals file: list, --json and show redact it', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook('stop', stop(repo, CLAUDE_DECISION, '3c091e7d-9540-4562-9383-c47b7fd51cc6'), { cwd: repo, env });
    const dir = join(sessionsDirOf(env), '.proposals');
    const name = readdirSync(dir).find((n) => n.endsWith('.json') && !n.startsWith('.') && n !== 'decided.json')!;
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const first = (await list(repo, env))[0]!;
    writeFileSync(file, text.replace(JSON.stringify(first.title).slice(1, -1), `${JSON.stringify(first.title).slice(1, -1)} ${token}`));
    const listed = await runCli(['review', 'list'], { cwd: repo, env });
    const json = await runCli(['review', 'list', '--json'], { cwd: repo, env });
    const shown = await runCli(['review', 'show', first.id], { cwd: repo, env });
    expect(listed.stdout).toContain(first.id);
    for (const r of [listed, json, shown]) expect(r.stdout + r.stderr).not.toContain(token);
  });
});
