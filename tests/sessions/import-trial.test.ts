/**
 * `vault sessions import` as a new user met it: a path that does not exist, a file that is no
 * transcript, plurals, and the same session imported twice under two session ids.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, FIXTURES, gitRepo, runCli, tempDir } from '../helpers/cli.js';

const HANDOFF = join(FIXTURES, 'capture', 'claude', 'c13-handoff-rate-limiting.jsonl');

/** The hand-off fixture as a transcript of `cwd` under another session id. */
function copyAs(dir: string, cwd: string, sessionId: string): string {
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(HANDOFF, 'utf8')
    .split('"cwd":"/home/dev/src/public-api"')
    .join(`"cwd":"${cwd}"`)
    .split('e372f6ee-0c34-414e-88e6-bd8d31e3c1f1')
    .join(sessionId);
  const path = join(dir, `${sessionId}.jsonl`);
  writeFileSync(path, text);
  return path;
}

describe('vault sessions import: paths', () => {
  it('a path that does not exist is "not found" (exit 4) naming it, and nothing is imported', async () => {
    const cwd = gitRepo();
    const r = await runCli(['sessions', 'import', '/tmp/nonexistent-vault-transcripts'], { cwd, env: cliEnv() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('error: /tmp/nonexistent-vault-transcripts does not exist');
    expect(r.stdout).toBe('');
  });

  it('a named file that is not a transcript is counted and skipped with the reason; plurals are right', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    const notes = join(tempDir(), 'notes.txt');
    writeFileSync(notes, 'just some notes\n');
    const r = await runCli(['sessions', 'import', notes], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^1 transcript found: 0 imported, 0 updated, 0 unchanged, 1 skipped; no new proposals\n/);
    expect(r.stdout).toContain('  skipped 1: not a transcript (Claude Code and Codex transcripts are *.jsonl files)');
    expect(r.stdout).not.toContain('vault review');
    const json = JSON.parse((await runCli(['sessions', 'import', notes, '--json'], { cwd, env })).stdout);
    expect(json.files).toEqual([{ path: notes, harness: 'claude-code', outcome: 'skipped', reason: 'not-transcript' }]);
  });
});

describe('vault sessions import: the same session twice', () => {
  it('a second session with the same open items proposes no second hand-off, and the count says so', async () => {
    const cwd = gitRepo();
    const env = cliEnv();
    const dir = tempDir();
    const first = await runCli(['sessions', 'import', copyAs(dir, cwd, 'aaaaaaaa-0c34-414e-88e6-bd8d31e3c1f1'), '--json'], { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    const list1 = JSON.parse((await runCli(['review', 'list', '--json'], { cwd, env })).stdout).proposals as Array<{ kind: string; title: string }>;
    expect(list1.filter((p) => p.kind === 'handoff')).toHaveLength(1);
    expect(JSON.parse(first.stdout).proposals).toBe(list1.length);
    const second = await runCli(['sessions', 'import', copyAs(dir, cwd, 'bbbbbbbb-0c34-414e-88e6-bd8d31e3c1f1')], { cwd, env });
    expect(second.code, second.stderr).toBe(0);
    const list2 = JSON.parse((await runCli(['review', 'list', '--json'], { cwd, env })).stdout).proposals as Array<{ kind: string; title: string }>;
    expect(list2.map((p) => p.title)).toEqual(list1.map((p) => p.title));
    expect(second.stdout).toContain('; no new proposals\n');
  });
});
