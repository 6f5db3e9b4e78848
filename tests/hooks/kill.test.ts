import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/sessions/snapshots/snapshot-store.js';
import { BIN, cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { hook, sessionsDirOf, snapshotNames } from '../helpers/hooks.js';

/** Every snapshot-named file must be a complete snapshot. */
function expectOnlyCompleteSnapshots(env: Record<string, string>): void {
  for (const name of snapshotNames(env)) expect(loadSnapshot(join(sessionsDirOf(env), name)), name).toBeDefined();
}

describe('SIGKILL during snapshot writes', () => {
  it('never leaves a partial snapshot, and the next hook cleans up work files and locks of killed processes', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const run = (i: number) =>
      `${JSON.stringify({
        type: i % 2 ? 'assistant' : 'user',
        uuid: `u${i}`,
        parentUuid: i ? `u${i - 1}` : null,
        sessionId: 'kill-test',
        cwd: repo,
        timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, 0, i)).toISOString(),
        message: {
          id: `m${i}`,
          role: i % 2 ? 'assistant' : 'user',
          content:
            i % 2
              ? [
                  { type: 'text', text: `step ${i} ${'w'.repeat(3000)}` },
                  { type: 'tool_use', id: `t${i}`, name: 'Edit', input: { file_path: `src/f${i % 50}.ts` } },
                ]
              : `request ${i}`,
        },
      })}\n`;
    const t = join(tempDir(), 'abcdef12-0000-4000-8000-0000deadbeef.jsonl');
    writeFileSync(t, Array.from({ length: 4000 }, (_, i) => run(i)).join(''));
    const payload = JSON.stringify({ session_id: 'kill-test', transcript_path: t, cwd: repo, hook_event_name: 'Stop' });
    expect(await hook('stop', payload, { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(snapshotNames(env)).toHaveLength(1);

    const kills = 12;
    for (let k = 0; k < kills; k++) {
      const delay = Math.floor(Math.random() * 450) + 20;
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'hook', 'stop'], { cwd: repo, env, stdio: ['pipe', 'ignore', 'ignore'] });
        child.stdin.on('error', () => {});
        child.stdin.end(payload);
        const timer = setTimeout(() => child.kill('SIGKILL'), delay);
        child.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      expect(snapshotNames(env)).toHaveLength(1);
      expectOnlyCompleteSnapshots(env);
    }

    // Leftovers exactly as a writer killed between open and rename would leave them.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const dir = sessionsDirOf(env);
    const shortId = snapshotNames(env)[0]!
      .replace(/^\d{4}-\d{2}-\d{2}-/, '')
      .replace(/-session\.tmp$/, '');
    writeFileSync(join(dir, `.wip-${shortId}-${dead}-0a0b0c0d0e0f`), readFileSync(join(dir, snapshotNames(env)[0]!), 'utf8').slice(0, 300), { mode: 0o600 });
    writeFileSync(join(dir, `.lock-${shortId}`), `${dead} 0011223344556677`, { mode: 0o600 });
    writeFileSync(join(dir, '.start', `.wip-start-${dead}-0a0b0c0d0e0f`), '{"v":1,"work', { mode: 0o600 }); // a start record cut short

    const started = Date.now();
    expect(await hook('stop', payload, { cwd: repo, env })).toMatchObject({ code: 0, stdout: '' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(readdirSync(dir).filter((n) => n.startsWith('.wip') || n.startsWith('.lock'))).toEqual([]);
    expect(readdirSync(join(dir, '.start')).filter((n) => !/^(digest-)?[0-9a-f]{8}\.json$/.test(n) && n !== 'memory-titles.json')).toEqual([]);
    expectOnlyCompleteSnapshots(env);
    const snap = loadSnapshot(join(dir, snapshotNames(env)[0]!))!;
    expect(snap.goal).toBe('request 0');
    expect(snap.files).toContain('src/f49.ts');

    // later readers do not trip: sessions list, session-start, and doctor on the (untouched) vault
    const list = await runCli(['sessions', 'list', '--json'], { cwd: repo, env });
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { sessions: Array<{ complete: boolean }> }).sessions.map((s) => s.complete)).toEqual([true]);
    const start = await hook('session-start', { cwd: repo, source: 'startup' }, { cwd: repo, env });
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('BEGIN PRIOR-SESSION SUMMARY');
    expect((await runCli(['init'], { cwd: repo, env })).code).toBe(0);
    const doctor = await runCli(['doctor'], { cwd: repo, env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  });
});
