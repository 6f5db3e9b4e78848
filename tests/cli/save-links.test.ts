/**
 * Links checked at save (`vault save`, `vault handoff`, MCP `memory_save`: one save operation).
 * A `--link` or body `[[wikilink]]` must name a memory that a read of the link would find
 * (project and team; the user scope only from a user memory); when those scopes cannot be read
 * completely the save is refused as incomplete. A team memory linking to a project memory is
 * saved with a warning (`--allow-local-link` keeps it without one), and so is a tag Obsidian
 * does not treat as a tag.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { callError, callOk, startMcp } from '../helpers/mcp-client.js';

const MISSING = 'mem_20260101_0000000000000000dead';

async function saved(
  repo: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ id: string; warnings: Array<{ code: string; message: string }> }> {
  const r = await runCli(['save', '--title', `T ${args.join(' ')}`, '--body', `Body ${Math.random()}`, '--json', ...args], { cwd: repo, env });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Every memory file in the vault. */
function memoryFiles(repo: string): string[] {
  const root = join(repo, '.ecc', 'memory');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.md'));
}

describe('links are checked at save', () => {
  it('a --link or body wikilink to a missing memory is refused, naming the id; nothing is written', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const existing = (await saved(repo, env)).id;
    const before = memoryFiles(repo);
    for (const args of [
      ['--link', MISSING],
      ['--link', existing, '--link', MISSING],
      ['--body', `Builds on [[${MISSING}|the old note]].`],
      ['--scope', 'team', '--link', MISSING],
    ]) {
      const body = args.includes('--body') ? [] : ['--body', 'b'];
      const r = await runCli(['save', '--title', 'Linked', ...body, ...args], { cwd: repo, env });
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toContain(`error: links: ${MISSING} names no memory in scopes project, team\n`);
      expect(r.stderr).toContain(`hint: check the id ${MISSING} with \`vault search\``);
    }
    const json = await runCli(['save', '--title', 'Linked', '--body', 'b', '--link', MISSING, '--json'], { cwd: repo, env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'invalid-field', field: 'links', rule: 'links resolve' });
    expect(memoryFiles(repo)).toEqual(before);
    // an existing one, by --link or by wikilink, is fine and quiet
    const ok = await runCli(['save', '--title', 'Builds on it', '--body', `See [[${existing}]].`, '--link', existing], { cwd: repo, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('');
  });

  it('vault handoff and MCP memory_save check links the same way', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_HARNESS: 'cursor' });
    const h = await runCli(['handoff', '--from', 'claude-code', '--target', 'codex', '--title', 'Where it stands', '--body', `Next: finish [[${MISSING}]].`], {
      cwd: repo,
      env,
    });
    expect(h.code).toBe(3);
    expect(h.stderr).toContain(`${MISSING} names no memory`);
    const s = await startMcp(repo, env);
    const err = await callError(s, 'memory_save', { title: 'From an agent', body: 'b', links: [MISSING] });
    expect(err.message).toContain(`${MISSING} names no memory`);
    expect(err.hint).toContain(MISSING);
    const target = await callOk(s, 'memory_save', { title: 'Target', body: 'b' });
    const linked = await callOk(s, 'memory_save', { title: 'Linked', body: `See [[${target.id}]].`, tags: ['2024'] });
    expect(linked.warnings).toEqual([{ code: 'obsidian-tag', message: expect.stringContaining('tag 2024 is purely numeric') }]);
    expect(memoryFiles(repo)).toHaveLength(2);
  });

  it('the user scope is searched only from a user memory', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const mine = (await saved(repo, env, '--scope', 'user')).id;
    const project = await runCli(['save', '--title', 'Project', '--body', 'b', '--link', mine], { cwd: repo, env });
    expect(project.code).toBe(3);
    expect(project.stderr).toContain('(a user memory can be linked only from the user scope)');
    const team = (await saved(repo, env, '--scope', 'team')).id;
    const user = await saved(repo, env, '--scope', 'user', '--link', mine, '--link', team);
    expect(user.warnings).toEqual([]);
  });

  it('refuses as incomplete when the scopes cannot be read completely, and still accepts a link it found', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const existing = (await saved(repo, env)).id;
    mkdirSync(join(repo, '.ecc', 'memory', 'team', 'notes'), { recursive: true });
    writeFileSync(join(repo, '.ecc', 'memory', 'team', 'notes', `${MISSING}.md`), '---\nnot: [valid\n---\n');
    const r = await runCli(['save', '--title', 'Linked', '--body', 'b', '--link', MISSING], { cwd: repo, env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      /^error: cannot check the link to mem_20260101_0000000000000000dead: the vault could not be read completely \(1 invalid file\(s\), e\.g\. team\/notes\//,
    );
    expect(r.stderr).toContain('hint: run `vault doctor --scope project --scope team` and fix the reported files');
    expect((await runCli(['save', '--title', 'Linked', '--body', 'b', '--link', existing], { cwd: repo, env })).code).toBe(0);
  });
});

describe('warnings at save', () => {
  it('a team memory linking to a project memory is saved with a warning; --allow-local-link keeps it quietly', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const local = (await saved(repo, env)).id;
    const r = await runCli(['save', '--scope', 'team', '--title', 'Shared', '--body', 'Another body.', '--link', local], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `warning: links to ${local}, a project-scope memory: it is never committed, so the link is broken in every other clone; share it with \`vault share ${local}\` (then commit it), or pass --allow-local-link to keep the link without this warning\n`,
    );
    const json = await saved(repo, env, '--scope', 'team', '--link', local);
    expect(json.warnings.map((w) => w.code)).toEqual(['team-links-local']);
    const quiet = await runCli(
      ['save', '--scope', 'team', '--title', 'Shared on purpose', '--body', 'A body of its own.', '--link', local, '--allow-local-link'],
      { cwd: repo, env },
    );
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    // team → team is fine
    const team = (await saved(repo, env, '--scope', 'team')).id;
    expect((await saved(repo, env, '--scope', 'team', '--link', team)).warnings).toEqual([]);
    // doctor agrees with the warning (same rule, after the fact)
    const doctor = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(JSON.parse(doctor.stdout).problems.filter((p: { code: string }) => p.code === 'team-links-local')).toHaveLength(3);
  });

  it('tags Obsidian does not treat as tags are saved with a warning, the same rule as doctor', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await runCli(['save', '--title', 'Tagged', '--body', 'b', '--tag', '2024', '--tag', 'node.js', '--tag', 'infra'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: tag 2024 is purely numeric, so Obsidian does not treat it as a tag; add a letter (e.g. y2024 instead of 2024) or use "-" instead of "."',
      'warning: tag node.js contains a dot, where Obsidian ends a tag, so Obsidian does not treat it as a tag; add a letter (e.g. y2024 instead of 2024) or use "-" instead of "."',
    ]);
    const doctor = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    const tags = JSON.parse(doctor.stdout).problems.filter((p: { code: string }) => p.code === 'obsidian-tag');
    expect(tags.map((p: { message: string }) => p.message)).toEqual([
      expect.stringContaining('tag 2024 is purely numeric'),
      expect.stringContaining('tag node.js contains a dot'),
    ]);
    const dry = await runCli(['save', '--title', 'Dry', '--body', 'b', '--tag', '2024', '--dry-run', '--json'], { cwd: repo, env });
    expect(JSON.parse(dry.stdout).warnings.map((w: { code: string }) => w.code)).toEqual(['obsidian-tag']);
  });
});
