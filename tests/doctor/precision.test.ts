/**
 * Doctor precision, through the CLI: every unknown or bad field is named (not only the first,
 * not "a field on line 13"); a merge-conflict file is reported once, as merge-conflict;
 * `--strict` does not fail on the index (a cache); probably-superseded fires only when the newer
 * memory says it replaces the older one (or has its title), never for a plain "see [[id]]".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, REPO, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string): void {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

interface Problem {
  path: string;
  code: string;
  line?: number;
  message: string;
}

async function doctor(repo: string, ...args: string[]): Promise<{ code: number; problems: Problem[] }> {
  const r = await runCli(['doctor', '--json', '--no-index-check', ...args], { cwd: repo, env: cliEnv() });
  return { code: r.code, problems: JSON.parse(r.stdout).problems };
}

const ID_A = 'mem_20260101_aaaaaaaaaaaaaaaaaaaa';
const ID_B = 'mem_20260102_bbbbbbbbbbbbbbbbbbbb';

describe('doctor names every unknown or bad field', () => {
  it('two unknown fields: both named with their lines, in one problem', async () => {
    const repo = gitRepo();
    put(repo, `team/notes/${ID_A}.md`, memoryText({ id: ID_A }).replace('\n---\n\n', '\ncolour: "red"\ncssclasses: ["wide"]\n---\n\n'));
    const { code, problems } = await doctor(repo);
    expect(code).toBe(1);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'unknown-field', line: 15 });
    expect(problems[0]!.message).toBe('unknown frontmatter fields "colour" (line 15), "cssclasses" (line 16); ecc.memory.v1 allows only its thirteen fields');
    const text = await runCli(['doctor', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(text.stdout).toContain('"colour" (line 15)');
  });

  it('a key that is not a plain name is shown by its line only', async () => {
    const repo = gitRepo();
    put(repo, `team/notes/${ID_A}.md`, memoryText({ id: ID_A }).replace('\n---\n\n', '\n"ghp_Not A Name": "x"\n---\n\n'));
    const [p] = (await doctor(repo)).problems;
    expect(p!.message).toBe('unknown frontmatter field a key on line 15; ecc.memory.v1 allows only its thirteen fields');
  });

  it('several bad values: each field named, unknown and bad together', async () => {
    const repo = gitRepo();
    put(
      repo,
      `team/notes/${ID_A}.md`,
      memoryText({ id: ID_A, kind: 'bogus', status: 'retired', tags: ['Not A Slug'] }).replace('\n---\n\n', '\naliases: ["x"]\n---\n\n'),
    );
    const { problems } = await doctor(repo);
    expect(problems).toHaveLength(1);
    const m = problems[0]!.message;
    expect(problems[0]!.code).toBe('unknown-field');
    expect(m).toBe(
      'unknown frontmatter field "aliases" (line 15); ecc.memory.v1 allows only its thirteen fields; also invalid kind (line 5), status (line 8), tags (line 11)',
    );
    const text = await runCli(['doctor', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(text.stdout).toContain('fix: remove it (editors such as Obsidian add aliases, cssclasses, ...)');
    // the fix of each further field, not only its name
    const hint = problems[0]!.hint;
    expect(hint).toContain('; then kind: use one of: ');
    expect(hint).toContain('; status: use one of: ');
    expect(hint).toContain('; tags: use lowercase letters, digits');
    expect(hint).not.toContain('then fix the other fields named');
    expect(text.stdout).toContain('then kind: use one of: ');
    for (const shown of [m, hint]) {
      expect(shown).not.toContain('bogus'); // values are never echoed
      expect(shown).not.toContain('Not A Slug');
    }
  });

  it('a missing field: its fix gives a line to add', async () => {
    const repo = gitRepo();
    put(repo, `team/notes/${ID_A}.md`, memoryText({ id: ID_A, trust: 'verified' as never }).replace(/^source_harness: .*\n/m, ''));
    const [p] = (await doctor(repo)).problems;
    expect(p!.code).toBe('missing-field');
    expect(p!.message).toBe('frontmatter is missing fields: source_harness; also invalid trust (line 7)');
    expect(p!.hint).toBe(
      'all thirteen ecc.memory.v1 fields are required; add source_harness: "unknown" (or who wrote it: claude-code, codex, ...); then trust: use one of: unreviewed',
    );
  });
});

describe('a merge-conflict file', () => {
  it('is reported once, as merge-conflict, whether the markers are in the frontmatter or the body', async () => {
    const repo = gitRepo();
    const conflicted = memoryText({ id: ID_A, title: 'Ours' }).replace(
      'title: "Ours"\n',
      '<<<<<<< HEAD\ntitle: "Ours"\n=======\ntitle: "Theirs"\n>>>>>>> branch\n',
    );
    put(repo, `team/notes/${ID_A}.md`, conflicted);
    put(repo, `team/notes/${ID_B}.md`, memoryText({ id: ID_B }, '<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch'));
    const { code, problems } = await doctor(repo);
    expect(code).toBe(1);
    expect(problems.map((p) => `${p.path} ${p.code} ${p.line}`)).toEqual([`team/notes/${ID_A}.md merge-conflict 4`, `team/notes/${ID_B}.md merge-conflict 17`]);
  });
});

describe('doctor --strict and the search index', () => {
  it('passes with only index warnings (a fresh clone), fails on any other warning', async () => {
    const repo = gitRepo();
    put(repo, `team/notes/${ID_A}.md`, memoryText({ id: ID_A }));
    const env = cliEnv();
    const fresh = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(fresh.stdout).toMatch(/index-missing/);
    expect(fresh.code).toBe(0);
    put(repo, `team/notes/${ID_B}.md`, memoryText({ id: ID_B, tags: ['2024'] }));
    const warned = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(warned.stdout).toMatch(/obsidian-tag/);
    expect(warned.stdout).toMatch(/--strict: warnings fail/);
    expect(warned.code).toBe(1);
  });

  it('a fresh clone of this repository passes doctor --strict on its own vault, without building an index', async () => {
    const clone = join(tempDir('vault-clone-'), 'repo');
    git(REPO, 'clone', '-q', '--no-hardlinks', REPO, clone);
    const r = await runCli(['doctor', '--strict'], { cwd: clone, env: cliEnv() });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
});

describe('probably-superseded', () => {
  const older = (extra: Record<string, unknown> = {}) =>
    memoryText({
      id: ID_A,
      kind: 'decision',
      title: 'Sessions in JWT',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      ...extra,
    });
  const newer = (extra: Record<string, unknown>, body: string) =>
    memoryText(
      { id: ID_B, kind: 'decision', title: 'Sessions in Redis', created_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-02-01T00:00:00.000Z', ...extra },
      body,
    );
  const superseded = async (body: string, extra: Record<string, unknown> = {}) => {
    const repo = gitRepo();
    put(repo, `team/decisions/${ID_A}.md`, older());
    put(repo, `team/decisions/${ID_B}.md`, newer(extra, body));
    return (await doctor(repo)).problems.filter((p) => p.code === 'probably-superseded');
  };

  it('is quiet for a reference: "see [[id]]", a links entry, "related to [[id]]"', async () => {
    expect(await superseded(`See [[${ID_A}]] for the background.`)).toEqual([]);
    expect(await superseded('No mention in the body.', { links: [ID_A] })).toEqual([]);
    expect(await superseded(`Related to [[${ID_A}|the JWT decision]].`)).toEqual([]);
  });

  it('fires when the newer memory says it replaces the older one, or has its title', async () => {
    for (const body of [`Supersedes [[${ID_A}]].`, `This replaces [[${ID_A}]]: JWTs could not be revoked.`, `Use Redis instead of [[${ID_A}]].`]) {
      const found = await superseded(body);
      expect(
        found.map((p) => p.path),
        body,
      ).toEqual([`team/decisions/${ID_A}.md`]);
      expect(found[0]!.message).toMatch(/says it replaces it/);
    }
    const sameTitle = await superseded(`See [[${ID_A}]].`, { title: 'Sessions in JWT' });
    expect(sameTitle.map((p) => p.message)).toEqual([expect.stringMatching(/same title/)]);
  });
});
