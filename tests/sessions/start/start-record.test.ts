/**
 * The start record (src/sessions/start/start-cache.ts): session start reuses what the last snapshot
 * write of its worktree recorded only while nothing it was made from changed, answers exactly
 * as the full path would, and a stale, forged or foreign record never shows anything wrong.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../../helpers/cli.js';
// The title list's start record; the memory digest's record is tested in tests/hooks/recall.test.ts.
import { CLAUDE_DAG, CLAUDE_SESSION, contextOf, hook, sessionsDirOf, snapshotNames } from '../../helpers/hooks.js';

const stop = (cwd: string, transcript = CLAUDE_SESSION, session = '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37') => ({
  session_id: session,
  transcript_path: transcript,
  cwd,
  hook_event_name: 'Stop',
});
const start = (cwd: string) => ({ session_id: 'fresh', cwd, hook_event_name: 'SessionStart', source: 'startup' });
const debug = (env: Record<string, string>) => ({ ...env, ECC_HOOK_DEBUG: '1' });
const ago = (p: string, ms: number) => utimesSync(p, new Date(Date.now() - ms), new Date(Date.now() - ms));

/** The start records in a sessions folder (`.start` also holds the title cache). */
const recordsIn = (sessions: string) => readdirSync(join(sessions, '.start')).filter((n) => /^[0-9a-f]{8}\.json$/.test(n));

/** The last `injected` line of the hook log. */
function lastInjection(env: Record<string, string>): string {
  const lines = readFileSync(join(sessionsDirOf(env), 'hooks.log'), 'utf8')
    .trim()
    .split('\n');
  return lines.filter((l) => l.includes(' injected ')).at(-1) ?? '';
}

/** Saves a team decision and moves it, its folders and the vault out of the racy window. */
async function savedDecision(repo: string, env: Record<string, string>, title: string): Promise<string> {
  const r = await runCli(['save', '--scope', 'team', '--kind', 'decision', '--title', title, '--body', 'x', '--json'], { cwd: repo, env });
  expect(r.code, r.stderr).toBe(0);
  const file = join(repo, '.ecc', 'memory', (JSON.parse(r.stdout) as { path: string }).path);
  for (const p of [file, dirname(file), dirname(dirname(file))]) ago(p, 60_000);
  return (JSON.parse(r.stdout) as { id: string }).id;
}

describe('session start from the start record', () => {
  it('reuses the record while nothing changed, with the same answer as the full path', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_SESSION_START_MEMORY_CHARS: '0' });
    const id = await savedDecision(repo, env, 'CHANGELOG.md is updated by release-notes');
    expect(await hook('stop', stop(repo), { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(recordsIn(sessionsDirOf(env))).toHaveLength(1);
    expect(lstatSync(join(sessionsDirOf(env), '.start')).mode & 0o777).toBe(0o700);

    const fast = await hook('session-start', start(repo), { cwd: repo, env: debug(env) });
    expect(lastInjection(env)).toMatch(/start record: snapshot and memory list/);
    expect(contextOf(fast.stdout)).toContain(`${id} [team/decision] CHANGELOG.md is updated by release-notes`);
    expect(contextOf(fast.stdout)).toContain('/release-notes CHANGELOG.md');

    rmSync(join(sessionsDirOf(env), '.start'), { recursive: true });
    const full = await hook('session-start', start(repo), { cwd: repo, env: debug(env) });
    expect(lastInjection(env)).not.toMatch(/start record/);
    expect(full.stdout).toBe(fast.stdout);
  });

  it('after another worktree wrote a snapshot: the full path for the snapshot, the memory list still from the record', async () => {
    const repo = gitRepo();
    const other = gitRepo();
    const env = cliEnv({ ECC_SESSION_START_MEMORY_CHARS: '0' });
    const id = await savedDecision(repo, env, 'CHANGELOG.md is updated by release-notes');
    await hook('stop', stop(repo), { cwd: repo, env });
    await hook('stop', stop(other, CLAUDE_DAG, 's-other'), { cwd: other, env });
    const r = await hook('session-start', start(repo), { cwd: repo, env: debug(env) });
    expect(lastInjection(env)).toMatch(/\(start record: memory list\)$/);
    expect(contextOf(r.stdout)).toContain(`${id} [team/decision] CHANGELOG.md is updated by release-notes`);
    expect(contextOf(r.stdout)).toContain('/release-notes CHANGELOG.md');
  });

  it('takes the full path after any change: a newer snapshot of this worktree, a new memory', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_SESSION_START_MEMORY_CHARS: '0' });
    await savedDecision(repo, env, 'CHANGELOG.md is updated by release-notes');
    await hook('stop', stop(repo), { cwd: repo, env });
    // a newer snapshot of the same worktree that no hook recorded (copied in by hand)
    const dir = sessionsDirOf(env);
    const [only] = snapshotNames(env);
    const planted = join(dir, '2026-11-30-feedc0de-session.tmp');
    writeFileSync(
      planted,
      readFileSync(join(dir, only!), 'utf8')
        .replace(/(\*\*Session:\*\* )\S+/, '$1planted-session')
        .replace('/release-notes CHANGELOG.md', '/planted goal'),
      { mode: 0o600 },
    );
    const newer = new Date(Date.now() + 5_000);
    utimesSync(planted, newer, newer);
    const ctx = contextOf((await hook('session-start', start(repo), { cwd: repo, env })).stdout);
    expect(ctx).toContain('/planted goal');

    // a memory saved after the record was written shows at once
    rmSync(planted);
    await hook('stop', stop(repo), { cwd: repo, env });
    const id = await savedDecision(repo, env, 'Release-notes hand-off rules for CHANGELOG.md');
    const after = contextOf((await hook('session-start', start(repo), { cwd: repo, env })).stdout);
    expect(after).toContain(`${id} [team/decision] Release-notes hand-off rules for CHANGELOG.md`);
  });

  it('a forged or foreign record never shows another worktree’s snapshot', async () => {
    const a = realpathSync(gitRepo());
    const b = realpathSync(gitRepo());
    const env = cliEnv({ ECC_SESSION_START_MEMORY_CHARS: '0' });
    await hook('stop', stop(a), { cwd: a, env });
    await hook('stop', stop(b, CLAUDE_DAG, 's-b'), { cwd: b, env });
    const dir = sessionsDirOf(env);
    const sub = join(dir, '.start');
    const recordOf = (name: string) => JSON.parse(readFileSync(join(sub, name), 'utf8')) as { worktree: string; snapshot: string; sessionsMtime: number };
    const names = recordsIn(dir);
    expect(names).toHaveLength(2);
    const nameA = names.find((n) => recordOf(n).worktree === a)!;
    const nameB = names.find((n) => recordOf(n).worktree === b)!;
    const snapA = recordOf(nameA).snapshot;
    // B's record made to name A's snapshot (the sessions folder itself unchanged)
    writeFileSync(join(sub, nameB), JSON.stringify({ ...recordOf(nameB), snapshot: snapA, sessionsMtime: lstatSync(dir).mtimeMs }));
    let inB = contextOf((await hook('session-start', start(b), { cwd: b, env })).stdout);
    expect(inB).toContain('Goal: Plan the retry queue');
    expect(inB).not.toContain('/release-notes');
    // A's whole record put under B's name
    writeFileSync(join(sub, nameB), JSON.stringify({ ...recordOf(nameA), sessionsMtime: lstatSync(dir).mtimeMs }));
    inB = contextOf((await hook('session-start', start(b), { cwd: b, env })).stdout);
    expect(inB).not.toContain('/release-notes');
    // garbage
    for (const junk of ['', 'not json', '{"v":1}', JSON.stringify({ ...recordOf(nameA), snapshot: '../../etc/passwd' })]) {
      writeFileSync(join(sub, nameB), junk);
      const r = await hook('session-start', start(b), { cwd: b, env });
      expect(r.code).toBe(0);
      expect(contextOf(r.stdout)).toContain('Goal: Plan the retry queue');
    }
  });

  it('prunes on schedule even when a record would answer', async () => {
    const repo = gitRepo();
    const env = { ...cliEnv({ ECC_SESSION_START_MEMORY_CHARS: '0' }), ECC_SESSION_RETENTION_DAYS: '1' };
    await hook('stop', stop(repo), { cwd: repo, env });
    const dir = sessionsDirOf(env);
    const [name] = snapshotNames(env);
    // the snapshot is past the retention and the last prune was two hours ago
    ago(join(dir, name!), 3 * 86_400_000);
    const index = join(dir, '.snapshot-index.json');
    const text = readFileSync(index, 'utf8');
    writeFileSync(index, text.replace(/^(vault-snapshot-index \d+ )\d+/, `$1${Date.now() - 7_200_000}`));
    const record = recordsIn(dir)[0]!;
    writeFileSync(
      join(dir, '.start', record),
      JSON.stringify({ ...JSON.parse(readFileSync(join(dir, '.start', record), 'utf8')), sessionsMtime: lstatSync(dir).mtimeMs }),
    );
    expect(await hook('session-start', start(repo), { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(snapshotNames(env)).toEqual([]);
  });
});
