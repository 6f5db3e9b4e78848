/**
 * `vault read` on documents the vault did not write: frontmatter in other languages whose code
 * would run under gray-matter's defaults, the reference-format documents, and Obsidian-edited
 * files. BOM, CRLF and invalid UTF-8 documents are cases of tests/cli/cases.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import matter from 'gray-matter';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, memoryFixture, runCli, tempDir } from '../helpers/cli.js';

const VALID = (id: string, scope = 'team', kind = 'note') =>
  `---\nschema: "ecc.memory.v1"\nid: "${id}"\ntitle: "ok"\nkind: "${kind}"\nscope: "${scope}"\ntrust: "unreviewed"\nstatus: "active"\nsource_harness: "claude"\ntarget_harnesses: ["all"]\ntags: []\nlinks: []\ncreated_at: "2026-07-25T09:30:00.000Z"\nupdated_at: "2026-07-25T09:30:00.000Z"\n---\n\nbody\n`;

/** A document whose frontmatter, if evaluated as JavaScript, writes `marker`. */
function hostile(language: string, marker: string): string {
  const code = `(function () { require('fs').writeFileSync(${JSON.stringify(marker)}, 'pwned'); return { title: 'x' }; })()`;
  return `---${language}\n${code}\n---\n\nbody\n`;
}

describe('frontmatter code never runs', () => {
  it('the payload is live: gray-matter with its default engines runs it', () => {
    const dir = tempDir();
    const marker = join(dir, 'marker-defaults');
    matter(hostile('js', marker));
    expect(existsSync(marker)).toBe(true); // proves the test below would catch a regression
  });

  it('vault read over a vault holding ---js / ---javascript / --- js documents: the marker never appears', async () => {
    const repo = gitRepo();
    const markerDir = tempDir();
    const markers = ['js', 'javascript', ' js', 'coffee'].map((lang, i) => {
      const marker = join(markerDir, `marker-${i}`);
      const dir = join(repo, '.ecc/memory/team/notes');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `mem_hostile_${i}.md`), hostile(lang, marker));
      return marker;
    });
    writeFileSync(join(repo, '.ecc/memory/team/notes/mem_valid_one.md'), VALID('mem_valid_one'));
    const env = cliEnv();
    const results = await Promise.all([
      runCli(['read', 'mem_hostile_0'], { cwd: repo, env }),
      runCli(['read', 'mem_valid_one', '--json'], { cwd: repo, env }),
      runCli(['read', 'mem_missing_x', '--scope', 'team'], { cwd: repo, env }),
    ]);
    // fail-closed for the id of a document that cannot be read (its name is that id); the
    // unrelated valid memory is found, and a missing one is not found
    expect(results.map((r) => r.code)).toEqual([6, 0, 4]);
    for (const r of results) expect(r.stdout + r.stderr).not.toMatch(/pwned|internal error/);
    expect(results[0]!.stderr).toMatch(/^error: memory lookup is incomplete/);
    for (const m of markers) expect(existsSync(m), m).toBe(false);
  });
});

describe('reading documents written by other tools', () => {
  it('reads both reference documents with the same values, and leaves the files byte-identical', async () => {
    const repo = gitRepo();
    const decision = memoryFixture('reference/mem_20260903_a41c7e9b2d05f3816c4e.md');
    const handoff = memoryFixture('reference/mem_20260904_5be28d1f0a7c93e4b6d1.md');
    const proj = join(repo, '.ecc/memory/project');
    mkdirSync(join(proj, 'decisions'), { recursive: true });
    mkdirSync(join(proj, 'handoffs'), { recursive: true });
    writeFileSync(join(proj, '.gitignore'), '*\n!.gitignore\n');
    writeFileSync(join(proj, 'decisions/mem_20260903_a41c7e9b2d05f3816c4e.md'), decision);
    writeFileSync(join(proj, 'handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md'), handoff);
    const env = cliEnv();
    const [a, b, human] = await Promise.all([
      runCli(['read', 'mem_20260903_a41c7e9b2d05f3816c4e', '--json'], { cwd: repo, env }),
      runCli(['read', 'mem_20260904_5be28d1f0a7c93e4b6d1', '--json'], { cwd: repo, env }),
      runCli(['read', 'mem_20260904_5be28d1f0a7c93e4b6d1'], { cwd: repo, env }),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({
      schema: 'ecc.memory.v1',
      id: 'mem_20260903_a41c7e9b2d05f3816c4e',
      title: 'Queue retries use a fixed 30 s delay',
      kind: 'decision',
      scope: 'project',
      trust: 'unreviewed',
      status: 'active',
      sourceHarness: 'claude',
      targetHarnesses: ['all'],
      tags: ['queue'],
      links: [],
      createdAt: '2026-09-03T11:42:17.305Z',
      updatedAt: '2026-09-03T11:42:17.305Z',
      body: 'Failed jobs are retried every 30 seconds, at most five times.\nExponential backoff was tried and dropped: the upstream rate limit resets every minute, so longer waits only delayed work.',
      path: 'project/decisions/mem_20260903_a41c7e9b2d05f3816c4e.md',
      canonical: true,
    });
    expect(JSON.parse(b.stdout)).toMatchObject({
      id: 'mem_20260904_5be28d1f0a7c93e4b6d1',
      kind: 'handoff',
      sourceHarness: 'codex',
      targetHarnesses: ['claude'],
      tags: ['queue', 'reliability'],
      links: ['mem_20260903_a41c7e9b2d05f3816c4e'],
      canonical: true,
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Dead-letter queue hand-off\nmem_20260904_5be28d1f0a7c93e4b6d1 · handoff · project · active · unreviewed\n/);
    expect(readFileSync(join(proj, 'decisions/mem_20260903_a41c7e9b2d05f3816c4e.md')).equals(decision)).toBe(true);
    expect(readFileSync(join(proj, 'handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md')).equals(handoff)).toBe(true);
  });

  it('reads an Obsidian-edited (block-style) memory as non-canonical, and refuses a "Date & time" one with the cause', async () => {
    const repo = gitRepo();
    const team = join(repo, '.ecc/memory/team');
    mkdirSync(join(team, 'handoffs'), { recursive: true });
    mkdirSync(join(team, 'decisions'), { recursive: true });
    mkdirSync(join(team, '.obsidian'), { recursive: true });
    writeFileSync(join(team, '.obsidian/app.json'), '{}');
    writeFileSync(join(team, 'handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md'), memoryFixture('obsidian/mem_20260904_5be28d1f0a7c93e4b6d1.md'));
    writeFileSync(
      join(team, 'decisions/mem_20260903_a41c7e9b2d05f3816c4e.md'),
      memoryFixture('reference/mem_20260903_a41c7e9b2d05f3816c4e.md').toString('utf8').replace('"project"', '"team"'),
    );
    const env = cliEnv();
    const r = await runCli(['read', 'mem_20260904_5be28d1f0a7c93e4b6d1', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ scope: 'team', status: 'superseded', canonical: false, tags: ['queue', 'reliability'] });
    const older = await runCli(['read', 'mem_20260903_a41c7e9b2d05f3816c4e', '--json'], { cwd: repo, env });
    expect(JSON.parse(older.stdout).backlinks.map((x: { id: string }) => x.id)).toEqual(['mem_20260904_5be28d1f0a7c93e4b6d1']);

    mkdirSync(join(team, 'facts'), { recursive: true });
    writeFileSync(join(team, 'facts/mem_20260911_replaytime.md'), memoryFixture('obsidian/mem_20260911_replaytime.md'));
    // an unrelated invalid file does not block the read; the lookup of its own id is incomplete
    expect((await runCli(['read', 'mem_20260904_5be28d1f0a7c93e4b6d1'], { cwd: repo, env })).code).toBe(0);
    const inc = await runCli(['read', 'mem_20260911_replaytime'], { cwd: repo, env });
    expect(inc.code).toBe(6);
    expect(inc.stderr).toMatch(/incomplete.*mem_20260911_replaytime\.md/);
  });
});

describe('line and paragraph separators in a title (U+2028, U+2029)', () => {
  const raw = VALID('mem_20260725_0123456789abcdef0123').replace('title: "ok"', 'title: "one\u2028two\u2029three"');

  it('a raw one, as the reference writes it, reads as JSON reads it; doctor says non-canonical and fmt writes the escape', async () => {
    const repo = gitRepo({ '.ecc/memory/team/notes/mem_20260725_0123456789abcdef0123.md': raw });
    const env = cliEnv();
    const read = await runCli(['read', 'mem_20260725_0123456789abcdef0123', '--json'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).title).toBe('one\u2028two\u2029three');
    const doctor = await runCli(['doctor', '--strict'], { cwd: repo, env });
    expect(doctor.stdout + doctor.stderr).toMatch(/non-canonical/);
    const fmt = await runCli(['fmt'], { cwd: repo, env });
    expect(fmt.code, fmt.stderr).toBe(0);
    const text = readFileSync(join(repo, '.ecc/memory/team/notes/mem_20260725_0123456789abcdef0123.md'), 'utf8');
    expect(text).toContain('title: "one\\u2028two\\u2029three"');
    expect(text.replace('title: "one\\u2028two\\u2029three"', 'title: "one\u2028two\u2029three"')).toBe(raw);
    // every reader now sees one title: JSON, gray-matter (what Obsidian-style YAML readers do)
    expect(matter(text).data.title).toBe('one\u2028two\u2029three');
  });

  it('vault save writes the escape, so gray-matter reads the title that was saved', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const save = await runCli(['save', '--scope', 'team', '--kind', 'note', '--title', 'alpha\u2028beta', '--body', 'A body long enough to save.', '--json'], {
      cwd: repo,
      env,
    });
    expect(save.code, save.stderr).toBe(0);
    const path = join(repo, '.ecc/memory', JSON.parse(save.stdout).path);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('title: "alpha\\u2028beta"');
    expect(matter(text).data.title).toBe('alpha\u2028beta');
  });
});
