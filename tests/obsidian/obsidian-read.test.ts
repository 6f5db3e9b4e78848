import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, memoryFixture, runCli } from '../helpers/cli.js';
import { obsidianRepo } from '../helpers/obsidian.js';

describe('a vault edited in Obsidian', () => {
  it('reads a memory whose frontmatter Obsidian rewrote (block lists, unquoted strings) with the same values', async () => {
    const { repo } = obsidianRepo();
    const r = await runCli(['read', 'mem_20260726_01k123example', '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout);
    expect(m).toMatchObject({
      id: 'mem_20260726_01k123example',
      title: 'Authentication migration handoff',
      kind: 'handoff',
      scope: 'team',
      status: 'superseded',
      sourceHarness: 'codex',
      targetHarnesses: ['claude'],
      tags: ['auth', 'migration'],
      links: ['mem_20260725_01kolder'],
      createdAt: '2026-07-26T20:00:00.000Z',
      canonical: false,
      path: 'team/handoffs/mem_20260726_01k123example.md',
    });
  });

  it('counts body wikilinks ([[id]] and [[id|alias]]) as links: "linked from" in vault read', async () => {
    const { repo } = obsidianRepo();
    const env = cliEnv();
    const decision = await runCli(['read', 'mem_20260725_01kolder', '--json'], { cwd: repo, env });
    expect(decision.code, decision.stderr).toBe(0);
    // the hand-off links by frontmatter and wikilink; the fact only by a body wikilink
    expect(JSON.parse(decision.stdout).backlinks.map((b: { id: string }) => b.id)).toEqual(['mem_20260726_01k123example', 'mem_20260802_redisttl']);
    const followup = await runCli(['read', 'mem_20260801_followup'], { cwd: repo, env });
    expect(followup.code, followup.stderr).toBe(0);
    // only an aliased wikilink ([[mem_20260801_followup|the follow-up]]) points here
    expect(followup.stdout).toContain('linked from:\n  mem_20260726_01k123example  Authentication migration handoff (handoff, superseded)\n');
    const old = await runCli(['read', 'mem_20260726_01k123example'], { cwd: repo, env });
    expect(old.stdout).toContain('linked from:\n  mem_20260801_followup  Session store moved to Redis: handoff (handoff, active)\n');
  });

  it('.obsidian/, .trash/, inbox/ and canvas files are not memories and do not make reads incomplete', async () => {
    const { repo } = obsidianRepo();
    const env = cliEnv();
    const trashed = await runCli(['read', 'mem_20260720_discarded'], { cwd: repo, env });
    expect(trashed.code).toBe(4);
    expect(trashed.stderr).toMatch(/was not found/);
  });

  it('an Obsidian "Date & time" property makes the file invalid: lookups answer incomplete, never not-found', async () => {
    const repo = gitRepo({ '.ecc/memory/team/facts/mem_20260911_replaytime.md': memoryFixture('obsidian/mem_20260911_replaytime.md') });
    const r = await runCli(['read', 'mem_20260911_replaytime'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(6);
  });
});

describe('tags as typed by Obsidian users', () => {
  it("--tag '#infra' is saved as infra", async () => {
    const repo = gitRepo();
    const r = await runCli(['save', '--title', 't', '--body', 'b', '--tag', '#infra', '--tag', 'infra', '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(repo, '.ecc/memory', JSON.parse(r.stdout).path), 'utf8')).toContain('tags: ["infra"]\n');
  });

  it.each([['Infra'], ['##infra'], ['a b'], ['#'], ['café'], ['area/sub'], ['-x']])('refuses %j with the tag rule, writing nothing', async (tag) => {
    const repo = gitRepo();
    const r = await runCli(['save', '--title', 't', '--body', 'b', `--tag=${tag}`, '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(3);
    const { error } = JSON.parse(r.stdout);
    expect(error).toMatchObject({ code: 'invalid-field', field: 'tags[0]', rule: 'pattern ^[a-z0-9][a-z0-9._-]{0,63}$' });
    expect(error.hint).toMatch(/lowercase letters, digits/);
  });
});
