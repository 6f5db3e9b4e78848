import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { CLAUDE_SESSION, CODEX_OLD, hook } from '../helpers/hooks.js';

describe('vault sessions / vault handoff', () => {
  it('lists and shows snapshots; unknown short ids are a clear not-found', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const empty = await runCli(['sessions', 'list'], { cwd: repo, env });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^No session snapshots in /);
    await hook('stop', { session_id: '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37', transcript_path: CLAUDE_SESSION, cwd: repo }, { cwd: repo, env });
    await hook('stop', { session_id: '0199a1c2-7b3e-7d10-a4f5-3c8e2b6d9f01', transcript_path: CODEX_OLD, cwd: repo }, { cwd: repo, env, harness: 'codex' });
    const list = await runCli(['sessions', 'list', '--json'], { cwd: repo, env });
    expect(list.code, list.stderr).toBe(0);
    const rows = (JSON.parse(list.stdout) as { sessions: Array<Record<string, unknown>> }).sessions;
    expect(rows.map((r) => r.shortId).sort()).toEqual(['2b6d9f01', '8e1a4b37']);
    expect(rows.find((r) => r.shortId === '2b6d9f01')).toMatchObject({ harness: 'codex', branch: 'main', complete: true, worktree: repo });
    const text = await runCli(['sessions', 'list'], { cwd: repo, env });
    expect(text.stdout).toMatch(/8e1a4b37 .*\/release-notes/);
    const show = await runCli(['sessions', 'show', '8e1a4b37'], { cwd: repo, env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('# Session snapshot:');
    expect(show.stdout).toContain('## Files touched');
    // the full session id, the transcript's file name and the snapshot's file name work too
    for (const ref of ['7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37', '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37.jsonl', '2025-10-14-8e1a4b37-session.tmp', '8E1A4B37']) {
      const byRef = await runCli(['sessions', 'show', ref], { cwd: repo, env });
      expect(byRef.code, ref).toBe(0);
      expect(byRef.stdout).toBe(show.stdout);
    }
    const missing = await runCli(['sessions', 'show', 'deadbeef'], { cwd: repo, env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/no session snapshot with short id, session id or file name "deadbeef"/);
    // a path is only ever compared with the listing: nothing outside the folder is read
    for (const ref of ['../../etc', '/etc/passwd', '../sessions/2025-10-14-8e1a4b37-session.tmp', 'aaaaaaaa-bbbb-cccc-dddd-d0228e1a4b37']) {
      const bad = await runCli(['sessions', 'show', ref], { cwd: repo, env });
      expect(bad.code, ref).toBe(4);
    }
  });

  it('handoff --from-session turns a snapshot into an unreviewed handoff memory, create-only', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook('stop', { session_id: '0199a1c2-7b3e-7d10-a4f5-3c8e2b6d9f01', transcript_path: CODEX_OLD, cwd: repo }, { cwd: repo, env, harness: 'codex' });
    const r = await runCli(
      ['handoff', '--from-session', '2b6d9f01', '--title', 'CSV export wiring: where it stands', '--target-harness', 'claude-code', '--json'],
      { cwd: repo, env },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { id: string; path: string; kind: string; sourceHarness: string; targetHarnesses: string[] };
    expect(out).toMatchObject({ kind: 'handoff', sourceHarness: 'codex', targetHarnesses: ['claude-code'] });
    const doc = readFileSync(join(repo, '.ecc', 'memory', out.path), 'utf8');
    expect(doc).toContain('trust: "unreviewed"');
    expect(doc).toContain('kind: "handoff"');
    expect(doc).toContain('## Next steps');
    expect(doc).toMatch(/- \[in_progress\] Implement the CSV writer hook-up/);
    expect(doc).toContain('- File: src/export/index.ts');
    const read = await runCli(['read', out.id, '--json'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    // create-only: the same explicit id twice is a conflict
    const again = await runCli(['handoff', '--from-session', '2b6d9f01', '--title', 'x', '--id', out.id], { cwd: repo, env });
    expect(again.code).toBe(5);
    const missing = await runCli(['handoff', '--from-session', 'nothere1', '--title', 'x'], { cwd: repo, env });
    expect(missing.code).toBe(4);
    // the same session handed off twice: warned like save, refused with --unique
    const twice = await runCli(['handoff', '--from-session', '2b6d9f01', '--title', 'CSV export wiring: where it stands', '--target-harness', 'claude-code'], {
      cwd: repo,
      env,
    });
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toContain(`warning: similar memories already exist: ${out.id}`);
    const unique = await runCli(['handoff', '--from-session', '2b6d9f01', '--title', 'CSV export wiring: where it stands', '--unique'], { cwd: repo, env });
    expect(unique.code).toBe(5);
    expect(unique.stderr).toContain('a similar memory already exists');
    // a session of another worktree is handed off into this vault, with a warning
    const other = gitRepo();
    const cross = await runCli(['handoff', '--from-session', '2b6d9f01', '--title', 'Elsewhere'], { cwd: other, env });
    expect(cross.code, cross.stderr).toBe(0);
    expect(cross.stderr).toMatch(/warning: that session ran in .*, not in this worktree/);
  });

  it('the plain form: --from H --target H with a body, and secrets are refused', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const ok = await runCli(
      ['handoff', '--from', 'claude-code', '--target', 'codex', '--target', 'cursor', '--title', 'Pick up the parser', '--stdin', '--json'],
      { cwd: repo, env, input: 'The streaming parser is half done; see src/sessions.' },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ kind: 'handoff', sourceHarness: 'claude-code', targetHarnesses: ['codex', 'cursor'] });
    const noFrom = await runCli(['handoff', '--target', 'codex', '--title', 't', '--body', 'b'], { cwd: repo, env });
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toMatch(/--from/);
    const noTarget = await runCli(['handoff', '--from', 'codex', '--title', 't', '--body', 'b'], { cwd: repo, env });
    expect(noTarget.code).toBe(2);
    // a bare `vault handoff` names everything it needs at once
    const bare = await runCli(['handoff'], { cwd: repo, env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--title and a source: --from-session <shortid>.*or --from <harness> --target <harness>/);
    const noTitle = await runCli(['handoff', '--from-session', 'abcd1234'], { cwd: repo, env });
    expect(noTitle).toMatchObject({ code: 2, stdout: '' });
    expect(noTitle.stderr).toMatch(/needs --title/);
    const secret = 'ghp_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';
    const f = join(tempDir(), 'body.md');
    writeFileSync(f, `token ${secret}`);
    const refused = await runCli(['handoff', '--from', 'codex', '--target', 'all', '--title', 't', '--body-file', f], { cwd: repo, env });
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).not.toContain(secret);
  });
});
