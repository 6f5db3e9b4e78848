/**
 * `vault retire`: the one sanctioned edit. Through the CLI on real git repositories: only the
 * `status` and `updated_at` lines change (every other byte is compared), the wrong cases are
 * refused with nothing written, a reason becomes a new linked memory and the vault stays
 * doctor-clean, and the MCP server offers no way to retire.
 */
import { cpSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { callRefused, startMcp } from '../helpers/mcp-client.js';
import { SECRET_CASES } from '../helpers/secret-cases.js';

interface Saved {
  id: string;
  abs: string;
}

async function save(repo: string, env: Record<string, string>, title: string, ...args: string[]): Promise<Saved> {
  const r = await runCli(['save', '--scope', 'team', '--kind', 'decision', '--title', title, '--json', ...args], { cwd: repo, env });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  return { id: out.id, abs: join(repo, '.ecc', 'memory', ...String(out.path).split('/')) };
}

/** A repository with an old decision and a successor that links to it. */
async function setup(): Promise<{ repo: string; env: Record<string, string>; old: Saved; next: Saved }> {
  const repo = gitRepo();
  const env = cliEnv();
  const old = await save(repo, env, 'Use Redis for sessions', '--body', 'Context: sessions.\n\nDecision: Redis.');
  const next = await save(repo, env, 'Use Postgres for sessions', '--body', `Replaces [[${old.id}]]: one database is enough.`);
  return { repo, env, old, next };
}

/** Every line of `after` equals the line of `before` except the status and updated_at lines. */
function changedLines(before: Buffer, after: Buffer): string[] {
  const a = before.toString('utf8').split('\n');
  const b = after.toString('utf8').split('\n');
  expect(b.length).toBe(a.length);
  return b.filter((line, i) => line !== a[i]);
}

describe('vault retire', () => {
  it('--superseded-by rewrites only the status and updated_at lines, every other byte stays, and prints the git add hint', async () => {
    const { repo, env, old, next } = await setup();
    const before = readFileSync(old.abs);
    const r = await runCli(['retire', old.id, '--superseded-by', next.id], { cwd: repo, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`Retired ${old.id} as superseded by ${next.id}`);
    expect(r.stdout).toContain(`git add .ecc/memory/team/decisions/${old.id}.md`);
    const after = readFileSync(old.abs);
    const changed = changedLines(before, after);
    expect(changed).toHaveLength(2);
    expect(changed[0]).toBe('status: "superseded"');
    expect(changed[1]).toMatch(/^updated_at: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    // byte for byte: the file with those two lines put back is the original
    const restored = after
      .toString('utf8')
      .replace('status: "superseded"', 'status: "active"')
      .replace(/^updated_at: ".*"$/m, before.toString('utf8').match(/^updated_at: ".*"$/m)![0]);
    expect(Buffer.from(restored).equals(before)).toBe(true);
    const doctor = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(doctor.code, doctor.stdout).toBe(0);
    const read = await runCli(['read', old.id, '--json'], { cwd: repo, env });
    expect(JSON.parse(read.stdout).status).toBe('superseded');
  });

  it('--rejected --reason saves the reason as a linked lesson, never editing the old body; doctor --strict stays clean', async () => {
    const { repo, env, old } = await setup();
    const before = readFileSync(old.abs, 'utf8');
    const r = await runCli(['retire', old.id, '--rejected', '--reason', 'Redis lost sessions on restart in staging.', '--json'], { cwd: repo, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('rejected');
    expect(out.reason.memory.kind).toBe('lesson');
    expect(out.reason.memory.links).toEqual([old.id]);
    expect(readFileSync(out.reason.absPath, 'utf8')).toContain('Redis lost sessions on restart in staging.');
    const after = readFileSync(old.abs, 'utf8');
    expect(after.split('\n---\n')[1]).toBe(before.split('\n---\n')[1]);
    expect(after).toContain('status: "rejected"');
    const doctor = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('--superseded-by --reason records a decision linking to the old memory; the text output names both files in the git add hint', async () => {
    const { repo, env, old, next } = await setup();
    const r = await runCli(['retire', old.id, '--superseded-by', next.id, '--reason', 'One database is easier to run.'], { cwd: repo, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const m = /reason saved as decision (mem_\S+) \((team\/decisions\/\S+)\)/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(r.stdout).toMatch(new RegExp(`git add \\.ecc/memory/team/decisions/${old.id}\\.md \\.ecc/memory/team/decisions/${m![1]}\\.md`));
    expect((await runCli(['doctor', '--strict'], { cwd: repo, env })).code).toBe(0);
  });

  it('refuses a successor that does not exist or does not link to the old memory, with the vault save --link hint; nothing changes', async () => {
    const { repo, env, old } = await setup();
    const unrelated = await save(repo, env, 'Unrelated', '--body', 'Nothing to do with sessions.');
    const before = readFileSync(old.abs);
    const missing = await runCli(['retire', old.id, '--superseded-by', 'mem_20260101_0000000000000000dead', '--json'], { cwd: repo, env });
    expect(missing.code).toBe(4);
    expect(JSON.parse(missing.stdout).error.hint).toContain(`vault save --scope team --kind decision --link ${old.id}`);
    const notLinking = await runCli(['retire', old.id, '--superseded-by', unrelated.id], { cwd: repo, env });
    expect(notLinking.code).toBe(3);
    expect(notLinking.stderr).toContain(`does not link to ${old.id}`);
    expect(notLinking.stderr).toContain(`vault save --scope team --kind decision --link ${old.id}`);
    expect(readFileSync(old.abs).equals(before)).toBe(true);
  });

  it('refuses an already retired memory, a non-canonical file (with the vault fmt hint) and a file holding a secret', async () => {
    const { repo, env, old, next } = await setup();
    expect((await runCli(['retire', old.id, '--rejected'], { cwd: repo, env })).code).toBe(0);
    const retired = readFileSync(old.abs);
    const again = await runCli(['retire', old.id, '--superseded-by', next.id], { cwd: repo, env });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`${old.id} is already retired (status: "rejected")`);
    expect(readFileSync(old.abs).equals(retired)).toBe(true);

    // CRLF line ends: valid, not canonical
    const crlf = Buffer.from(readFileSync(next.abs, 'utf8').replace(/\n/g, '\r\n'));
    writeFileSync(next.abs, crlf);
    const nonCanonical = await runCli(['retire', next.id, '--rejected'], { cwd: repo, env });
    expect(nonCanonical.code).toBe(3);
    expect(nonCanonical.stderr).toContain('not in canonical form');
    expect(nonCanonical.stderr).toContain(`vault fmt team/decisions/${next.id}.md`);
    expect(readFileSync(next.abs).equals(crlf)).toBe(true);

    const third = await save(repo, env, 'Holds a secret later', '--body', 'Clean for now.');
    const secret = SECRET_CASES[0]!.text;
    const withSecret = Buffer.from(`${readFileSync(third.abs, 'utf8')}\n${secret}\n`);
    writeFileSync(third.abs, withSecret);
    const refused = await runCli(['retire', third.id, '--rejected'], { cwd: repo, env });
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.stderr).toMatch(/secret/);
    expect(readFileSync(third.abs).equals(withSecret)).toBe(true);
  });

  it('refuses through a symbolically linked kind folder: nothing behind the link is rewritten', async () => {
    const { repo, env, old, next } = await setup();
    const kindDir = join(repo, '.ecc', 'memory', 'team', 'decisions');
    const elsewhere = join(repo, 'elsewhere');
    cpSync(kindDir, elsewhere, { recursive: true });
    renameSync(kindDir, `${kindDir}.moved`);
    symlinkSync(elsewhere, kindDir);
    const before = readFileSync(join(elsewhere, `${old.id}.md`));
    const r = await runCli(['retire', old.id, '--superseded-by', next.id], { cwd: repo, env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readFileSync(join(elsewhere, `${old.id}.md`)).equals(before)).toBe(true);
  });

  it('needs exactly one of --superseded-by and --rejected; --help says it is the one sanctioned edit', async () => {
    const { repo, env, old, next } = await setup();
    expect((await runCli(['retire', old.id], { cwd: repo, env })).code).toBe(2);
    expect((await runCli(['retire', old.id, '--rejected', '--superseded-by', next.id], { cwd: repo, env })).code).toBe(2);
    const help = await runCli(['retire', '--help'], { cwd: repo, env });
    expect(help.stdout).toContain('the one sanctioned edit');
  });

  it('is not exposed through MCP: no retire tool is listed and tools/call memory_retire is refused', async () => {
    const { repo, env, old, next } = await setup();
    const s = await startMcp(repo, { ...env, ECC_MEMORY_HARNESS: 'cursor' });
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).filter((n) => /retire|status|supersede/i.test(n))).toEqual([]);
    const refused = await callRefused(s, 'memory_retire', { id: old.id, superseded_by: next.id });
    expect(refused.message).toMatch(/memory_retire/);
    expect(readFileSync(old.abs, 'utf8')).toContain('status: "active"');
  });
});
