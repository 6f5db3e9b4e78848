import { mkdirSync, realpathSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, tempDir } from '../helpers/cli.js';
import { CLAUDE_DAG, CLAUDE_SESSION, CODEX_CURRENT, contextOf, hook, sessionsDirOf, snapshotNames } from '../helpers/hooks.js';

const start = (cwd: string) => ({ session_id: 'fresh', cwd, hook_event_name: 'SessionStart', source: 'startup' });

describe('session-start never crosses worktrees', () => {
  it('worktree B (git worktree add) never sees A’s snapshot, even when A’s is newer', async () => {
    const a = realpathSync(gitRepo());
    const b = join(realpathSync(tempDir()), 'wt-b');
    git(a, 'worktree', 'add', '-q', '-b', 'feature-b', b);
    const env = cliEnv();

    // A has a session; B has none yet: B gets nothing at all
    expect(await hook('stop', { session_id: '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37', transcript_path: CLAUDE_SESSION, cwd: a }, { cwd: a, env })).toMatchObject({
      code: 0,
      stdout: '',
    });
    expect(await hook('session-start', start(b), { cwd: b, env })).toMatchObject({ code: 0, stdout: '' });

    // B gets its own session; A's snapshot is then made the newest file
    expect(await hook('stop', { session_id: 'k2', transcript_path: CLAUDE_DAG, cwd: b }, { cwd: b, env })).toMatchObject({ code: 0, stdout: '' });
    expect(snapshotNames(env)).toHaveLength(2);
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(sessionsDirOf(env), '2025-10-14-8e1a4b37-session.tmp'), future, future);

    const inB = contextOf((await hook('session-start', start(b), { cwd: b, env })).stdout);
    expect(inB).toContain('Goal: Plan the retry queue');
    expect(inB).toContain('branch feature-b');
    expect(inB).toContain(`worktree ${b}`);
    expect(inB).not.toContain('/release-notes');
    expect(inB).not.toContain(`worktree ${a}\n`);

    const inA = contextOf((await hook('session-start', start(a), { cwd: a, env })).stdout);
    expect(inA).toContain('/release-notes CHANGELOG.md');
    expect(inA).not.toContain('Goal: Plan the retry queue');

    // a subfolder of A is still A
    mkdirSync(join(a, 'src', 'deep'), { recursive: true });
    expect(contextOf((await hook('session-start', start(join(a, 'src', 'deep')), { cwd: join(a, 'src', 'deep'), env })).stdout)).toContain('/release-notes');

    // another repository with the same folder layout sees neither
    const other = realpathSync(gitRepo());
    expect(await hook('session-start', start(other), { cwd: other, env })).toMatchObject({ code: 0, stdout: '' });
  });

  it('a hook never writes into another worktree’s snapshot, even with the same short id', async () => {
    const a = realpathSync(gitRepo());
    const b = join(realpathSync(tempDir()), 'wt-b2');
    git(a, 'worktree', 'add', '-q', '-b', 'other', b);
    const env = cliEnv();
    const payload = (cwd: string) => ({ session_id: 'aaaabbbb-cccc-4ddd-8eee-ffff00001111', transcript_path: CODEX_CURRENT, cwd });
    await hook('stop', payload(a), { cwd: a, env, harness: 'codex' });
    await hook('stop', payload(b), { cwd: b, env, harness: 'codex' });
    const names = snapshotNames(env);
    expect(names).toHaveLength(2);
    expect(names).toContain('2026-02-11-00001111-session.tmp');
    expect(names.find((n) => n !== '2026-02-11-00001111-session.tmp')).toMatch(/^2026-02-11-00001111-[0-9a-f]{6}-session\.tmp$/);
    expect(contextOf((await hook('session-start', start(b), { cwd: b, env, harness: 'codex' })).stdout)).toContain(`worktree ${b}`);
    expect(contextOf((await hook('session-start', start(a), { cwd: a, env, harness: 'codex' })).stdout)).toContain(`worktree ${a}\n`);
  });

  it('a repository deleted and created again at the same path does not get the old one’s snapshot', async () => {
    const a = realpathSync(gitRepo());
    const env = cliEnv();
    await hook('stop', { session_id: '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37', transcript_path: CLAUDE_SESSION, cwd: a }, { cwd: a, env });
    expect(contextOf((await hook('session-start', start(a), { cwd: a, env })).stdout)).toContain('/release-notes');
    rmSync(join(a, '.git'), { recursive: true });
    git(a, 'init', '-q', '-b', 'main');
    // the start record and the snapshot index both still name the old snapshot: both are checked
    expect(await hook('session-start', start(a), { cwd: a, env })).toMatchObject({ code: 0, stdout: '' });
    rmSync(join(sessionsDirOf(env), '.start'), { recursive: true });
    expect(await hook('session-start', start(a), { cwd: a, env })).toMatchObject({ code: 0, stdout: '' });
    // the new repository's own session is injected as usual
    await hook('stop', { session_id: 's-new', transcript_path: CLAUDE_DAG, cwd: a }, { cwd: a, env });
    const ctx = contextOf((await hook('session-start', start(a), { cwd: a, env })).stdout);
    expect(ctx).toContain('Goal: Plan the retry queue');
    expect(ctx).not.toContain('/release-notes');
  });
});
