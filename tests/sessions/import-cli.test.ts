import { appendFileSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, FIXTURES, git, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { CLAUDE_SESSION, CLAUDE_SUBAGENTS, CODEX_CURRENT, CODEX_OLD, filesUnder } from '../helpers/hooks.js';

const DECISION = join(FIXTURES, 'capture', 'claude', 'c01-decision-session-store.jsonl');

interface Summary {
  found: number;
  imported: number;
  updated: number;
  unchanged: number;
  skipped: number;
  skippedBy: Record<string, number>;
  proposals: number;
  files: Array<{ path: string; outcome: string; reason?: string; shortId?: string; harness: string }>;
}

/** Copies a fixture transcript to `dest`, its recorded cwd replaced by `cwd`; sets its mtime. */
function place(src: string, dest: string, from: string, cwd: string, mtime: string): string {
  mkdirSync(dirname(dest), { recursive: true });
  writeFileSync(dest, readFileSync(src, 'utf8').split(`"cwd":"${from}"`).join(`"cwd":"${cwd}"`));
  utimesSync(dest, new Date(mtime), new Date(mtime));
  return dest;
}

const munge = (cwd: string) => cwd.replace(/[/.]/g, '-');

/**
 * A temp HOME holding the harnesses' folders: three Claude Code sessions and one Codex rollout
 * in `repo`, one Codex rollout in `other`.
 */
function layout(repo: string, other: string, home: string) {
  const claude = join(home, '.claude', 'projects', munge(repo));
  const shop = place(CLAUDE_SESSION, join(claude, '7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37.jsonl'), '/work/shop', repo, '2026-01-10T10:00:00Z');
  const atlas = place(CLAUDE_SUBAGENTS, join(claude, '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115.jsonl'), '/work/atlas', repo, '2026-03-09T11:00:00Z');
  for (const a of ['agent-atlas01', 'agent-atlas02'])
    place(
      join(dirname(CLAUDE_SUBAGENTS), '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115', 'subagents', `${a}.jsonl`),
      join(claude, '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115', 'subagents', `${a}.jsonl`),
      '/work/atlas',
      repo,
      '2026-03-09T11:00:00Z',
    );
  const decision = place(DECISION, join(claude, '3c091e7d-9540-4562-9383-c47b7fd51cc6.jsonl'), '/home/dev/src/shop-api', repo, '2026-02-01T09:00:00Z');
  const codex = place(
    CODEX_CURRENT,
    join(home, '.codex', 'sessions', '2026', '02', '11', 'rollout-2026-02-11T16-20-00-aaaabbbb-cccc-4ddd-8eee-ffff00001111.jsonl'),
    '/work/notes-app',
    repo,
    '2026-02-11T17:00:00Z',
  );
  const elsewhere = place(
    CODEX_OLD,
    join(home, '.codex', 'sessions', '2025', '10', '03', 'rollout-2025-10-03T09-12-44-0199a1c2-7b3e-7d10-a4f5-3c8e2b6d9f01.jsonl'),
    '/home/dev/projects/ledger',
    other,
    '2025-10-03T10:00:00Z',
  );
  return { shop, atlas, decision, codex, elsewhere };
}

/** Every file under a folder with its bytes (base64). */
function bytesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of filesUnder(dir)) out[f] = readFileSync(join(dir, f)).toString('base64');
  return out;
}

function snapshots(home: string): Record<string, string> {
  const dir = join(home, '.ecc', 'sessions');
  const out: Record<string, string> = {};
  for (const f of filesUnder(dir)) if (f.endsWith('-session.tmp')) out[f] = readFileSync(join(dir, f), 'utf8');
  return out;
}

async function importJson(args: string[], cwd: string, env: Record<string, string>): Promise<Summary> {
  const r = await runCli(['sessions', 'import', ...args, '--json'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
}

describe('vault sessions import', () => {
  it('backfills this repository’s transcripts, idempotently; a grown transcript updates its snapshot; the vault stays byte for byte', async () => {
    const repo = gitRepo();
    const other = gitRepo();
    const env = cliEnv({ CODEX_HOME: undefined });
    const home = env.HOME!;
    const t = layout(repo, other, home);
    expect(
      (await runCli(['save', '--scope', 'team', '--kind', 'decision', '--title', 'Keep snapshots outside', '--body', 'Never in git.'], { cwd: repo, env }))
        .code,
    ).toBe(0);
    const vault = () => ({ team: bytesUnder(join(repo, '.ecc')), user: bytesUnder(join(home, '.ecc', 'memory')) });
    const before = vault();

    const first = await importJson([], repo, env);
    expect(first).toMatchObject({ found: 5, imported: 4, updated: 0, unchanged: 0, skipped: 1, skippedBy: { 'other-repository': 1 } });
    expect(first.files.find((f) => f.path === t.elsewhere)).toMatchObject({ outcome: 'skipped', reason: 'other-repository' });
    expect(first.proposals).toBeGreaterThan(0);
    const snaps = snapshots(home);
    expect(Object.keys(snaps)).toHaveLength(4);
    expect(Object.keys(snaps).sort()).toContain('2026-02-11-00001111-session.tmp');
    for (const text of Object.values(snaps)) {
      expect(text).toContain(`**Worktree:** ${repo}`);
      expect(text).toContain('**Last Event:** import');
      expect(text).toContain('**Branch:** main');
    }

    // run twice: the same snapshots, byte for byte
    const second = await importJson([], repo, env);
    expect(second).toMatchObject({ imported: 0, updated: 0, unchanged: 4, proposals: 0 });
    expect(snapshots(home)).toEqual(snaps);

    // a transcript that has grown updates its snapshot; no second one
    appendFileSync(
      t.codex,
      `${JSON.stringify({ timestamp: '2026-02-11T16:30:00.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'Also list the env variables it reads.', images: [] } })}\n`,
    );
    const third = await importJson([], repo, env);
    expect(third).toMatchObject({ imported: 0, updated: 1, unchanged: 3 });
    const after = snapshots(home);
    expect(Object.keys(after).sort()).toEqual(Object.keys(snaps).sort());
    expect(after['2026-02-11-00001111-session.tmp']).toContain('Also list the env variables it reads.');
    expect(after['2026-02-11-00001111-session.tmp']).toContain('**Updates:** 2');

    // the imported proposals are there to review, for this worktree
    const review = await runCli(['review', 'list', '--json'], { cwd: repo, env });
    expect(review.code, review.stderr).toBe(0);
    const proposals = (JSON.parse(review.stdout) as { proposals: Array<{ kind: string; title: string; body: string }> }).proposals;
    expect(proposals.some((p) => p.kind === 'decision' && /Redis/.test(`${p.title} ${p.body}`))).toBe(true);

    // the text summary
    const text = await runCli(['sessions', 'import'], { cwd: repo, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^5 transcripts found: 0 imported, 0 updated, 4 unchanged, 1 skipped/);
    expect(text.stdout).toContain('skipped 1: another repository (use --all)');
    expect(vault()).toEqual(before);
  }, 60_000);

  it('--all, --harness, --since, PATH and the size and count limits', async () => {
    const repo = gitRepo();
    const other = gitRepo();
    const env = cliEnv({ CODEX_HOME: undefined });
    const t = layout(repo, other, env.HOME!);

    const codexOnly = await importJson(['--harness', 'codex', '--all'], repo, env);
    expect(codexOnly).toMatchObject({ found: 2, imported: 2, skipped: 0 });
    expect(codexOnly.files.every((f) => f.harness === 'codex')).toBe(true);
    const snaps = snapshots(env.HOME!);
    expect(snaps['2025-10-03-2b6d9f01-session.tmp']).toContain(`**Worktree:** ${other}`);

    const since = await importJson(['--since', '2026-02-05', '--all'], repo, env);
    expect(since).toMatchObject({ found: 5, imported: 1, unchanged: 1, skippedBy: { 'before-since': 3 } });
    expect(since.files.find((f) => f.outcome === 'imported')?.path).toBe(t.atlas);

    const all = await importJson(['--all'], repo, env);
    expect(all).toMatchObject({ imported: 2, unchanged: 3, skipped: 0 });

    // PATH: a given file or folder (harness from the name, or --harness)
    const env2 = cliEnv({ CODEX_HOME: undefined });
    const given = await importJson([dirname(t.shop), t.elsewhere, '--all'], repo, env2);
    expect(given).toMatchObject({ found: 4, imported: 4 });
    expect(given.files.find((f) => f.path === t.elsewhere)?.harness).toBe('codex');
    // a rollout under another name is told by its records
    const renamed = place(CODEX_CURRENT, join(tempDir('vault-loose-'), 'notes.jsonl'), '/work/notes-app', repo, '2026-02-11T17:00:00Z');
    const sniffed = await importJson([renamed], repo, cliEnv({ CODEX_HOME: undefined }));
    expect(sniffed.files).toMatchObject([{ harness: 'codex', outcome: 'imported' }]);

    // limits: over the size limit skipped and counted, never truncated; past the count limit too
    const env3 = cliEnv({ CODEX_HOME: undefined });
    const homes = [join(env.HOME!, '.claude'), join(env.HOME!, '.codex')];
    const limited = await importJson([...homes, '--all', '--max-mib', String(20 / 1024), '--max-files', '2'], repo, env3);
    const big = limited.files.filter((f) => f.reason === 'too-large');
    expect(big.length).toBeGreaterThan(0);
    expect(limited.skippedBy['over-file-limit']).toBe(5 - big.length - 2);
    expect(limited.imported).toBe(2);
    for (const f of big) expect(Object.values(snapshots(env3.HOME!)).some((s) => s.includes(f.path))).toBe(false);
    const text = await runCli(['sessions', 'import', ...homes, '--all', '--max-mib', String(20 / 1024)], { cwd: repo, env: env3 });
    expect(text.stdout).toMatch(new RegExp(`skipped ${big.length}: over the size limit`));

    // usage errors name the flag and the rule
    const badSince = await runCli(['sessions', 'import', '--since', 'last week'], { cwd: repo, env });
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toMatch(/--since takes a date \(YYYY-MM-DD, UTC\)/);
    const noSuchDay = await runCli(['sessions', 'import', '--since', '2026-02-30'], { cwd: repo, env });
    expect(noSuchDay.code).toBe(2);
    expect(noSuchDay.stderr).toMatch(/--since takes a date/);
    const stray = await runCli(['sessions', 'list', '--since', '2026-01-01'], { cwd: repo, env });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/belong to `vault sessions import`/);
    const badLimit = await runCli(['sessions', 'import', '--max-mib', '65'], { cwd: repo, env });
    expect(badLimit.code).not.toBe(0);
    expect(badLimit.stderr).toMatch(/max-mib/);
  }, 60_000);

  it('draws a progress bar on a terminal stderr only, never on stdout', async () => {
    const repo = gitRepo();
    const env = cliEnv({ CODEX_HOME: undefined });
    layout(repo, gitRepo(), env.HOME!);
    const r = await runCli(['sessions', 'import', '--json'], { cwd: repo, env, stderrTty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/importing \[.*\] \d+\/5 transcripts/);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 4 });
    const quiet = await runCli(['sessions', 'import'], { cwd: repo, env });
    expect(quiet.stderr).toBe('');
  }, 60_000);

  it('counts a linked worktree of the repository as this repository; $CODEX_HOME is honoured; a linked transcript is skipped, never followed', async () => {
    const repo = gitRepo();
    const linked = join(tempDir('vault-linked-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', linked);
    const codexHome = tempDir('vault-codex-home-');
    const env = cliEnv({ CODEX_HOME: codexHome });
    const rollout = place(
      CODEX_CURRENT,
      join(codexHome, 'sessions', '2026', '02', '11', 'rollout-2026-02-11T16-20-00-aaaabbbb-cccc-4ddd-8eee-ffff00001111.jsonl'),
      '/work/notes-app',
      linked,
      '2026-02-11T17:00:00Z',
    );
    const claude = join(env.HOME!, '.claude', 'projects', munge(repo));
    mkdirSync(claude, { recursive: true });
    symlinkSync(rollout, join(claude, 'linked.jsonl'));
    const r = await importJson([], repo, env);
    expect(r).toMatchObject({ found: 2, imported: 1, skipped: 1, skippedBy: { symlink: 1 } });
    const snap = snapshots(env.HOME!)['2026-02-11-00001111-session.tmp'];
    expect(snap).toContain(`**Worktree:** ${linked}`);
    expect(snap).toContain('**Branch:** side');
  }, 60_000);
});
