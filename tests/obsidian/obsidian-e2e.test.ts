/**
 * End to end on a vault that a team browses and edits in Obsidian: search, read (backlinks through
 * wikilinks), doctor (non-canonical warnings only), fmt, doctor again (clean), and retiring a
 * memory by editing its status by hand, which search honours at once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, memoryFixture, runCli } from '../helpers/cli.js';
import { obsidianRepo } from '../helpers/obsidian.js';

interface Hit {
  id: string;
  status: string;
}
interface Problem {
  severity: string;
  code: string;
  path: string;
  hint?: string;
  message: string;
}

const OBSIDIAN_EDITED = ['team/handoffs/mem_20260726_01k123example.md', 'team/handoffs/mem_20260801_followup.md'];

describe('an Obsidian-edited vault, end to end', () => {
  it('search → read → doctor → fmt → doctor → status edit → search', async () => {
    const { repo, vault } = obsidianRepo();
    // its handoffs are from 2026: not what this test is about (tests/doctor/stale-handoff.test.ts is)
    const env = cliEnv({ ECC_HANDOFF_STALE_DAYS: '36500' });
    const run = async (...args: string[]) => {
      const r = await runCli(args, { cwd: repo, env });
      return { ...r, json: () => JSON.parse(r.stdout) };
    };

    // search: active memories only, Obsidian-rewritten files included, nothing from .trash/
    const s1 = await run('search', 'session', 'redis', '--json');
    expect(s1.code, s1.stderr).toBe(0);
    const ids1 = s1
      .json()
      .results.map((h: Hit) => h.id)
      .sort();
    expect(ids1).toEqual(['mem_20260725_01kolder', 'mem_20260801_followup', 'mem_20260802_redisttl']);
    const trash = await run('search', 'sticky', 'load', 'balancer', '--status', 'active', '--status', 'superseded', '--status', 'rejected', '--json');
    expect(trash.json().results.map((h: Hit) => h.id)).not.toContain('mem_20260720_discarded');
    const retired = await run('search', 'authentication', '--status', 'superseded', '--json');
    expect(retired.json().results.map((h: Hit) => h.id)).toEqual(['mem_20260726_01k123example']);

    // read: backlinks through body wikilinks, with and without an alias
    const r1 = await run('read', 'mem_20260725_01kolder', '--json');
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.json().backlinks.map((b: Hit) => b.id)).toEqual(['mem_20260726_01k123example', 'mem_20260802_redisttl']);
    const r2 = await run('read', 'mem_20260801_followup');
    expect(r2.stdout).toContain('linked from:\n  mem_20260726_01k123example  Authentication migration handoff (handoff, superseded)');
    const before = (await run('read', 'mem_20260726_01k123example', '--json')).json();
    expect(before.canonical).toBe(false);

    // doctor: exactly the two non-canonical warnings, no errors; editor files are not mentioned
    const d1 = await run('doctor', '--json');
    expect(d1.code, d1.stdout).toBe(0);
    const report1 = d1.json();
    expect(report1.counts).toMatchObject({ errors: 0, warnings: 2, memories: 4 });
    expect(report1.problems.map((p: Problem) => [p.severity, p.code, p.path])).toEqual(OBSIDIAN_EDITED.map((p) => ['warning', 'non-canonical', p]));
    expect(d1.stdout).not.toMatch(/\.obsidian|\.trash|canvas|inbox/);
    expect((await run('doctor', '--strict')).code).toBe(1);

    // fmt restores the canonical form and changes no value
    const fmt = await run('fmt');
    expect(fmt.code, fmt.stderr).toBe(0);
    for (const p of OBSIDIAN_EDITED) expect(fmt.stdout).toContain(p);
    const after = (await run('read', 'mem_20260726_01k123example', '--json')).json();
    expect(after).toEqual({ ...before, canonical: true });
    expect(readFileSync(join(vault, OBSIDIAN_EDITED[0]!), 'utf8')).toContain('target_harnesses: ["claude"]\n');

    // doctor again: no errors and nothing non-canonical; fmt rewrote two files, and the read just
    // after it went through the index, found its file changed and refreshed the index
    const d2 = await run('doctor', '--json');
    expect(d2.code).toBe(0);
    expect(d2.json().problems.map((p: Problem) => [p.severity, p.code])).toEqual([]);
    expect((await run('search', 'redis', '--json')).code).toBe(0);
    const d3 = await run('doctor', '--strict', '--json');
    expect(d3.json().problems).toEqual([]);
    expect(d3.code).toBe(0);

    // retire the follow-up by hand, the way the Properties panel writes it: search honours it at once
    const file = join(vault, 'team/handoffs/mem_20260801_followup.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: "active"\n', 'status: superseded\n'));
    const s2 = await run('search', 'session', 'redis', '--json');
    expect(
      s2
        .json()
        .results.map((h: Hit) => h.id)
        .sort(),
    ).toEqual(['mem_20260725_01kolder', 'mem_20260802_redisttl']);
    const s3 = await run('search', 'session', 'redis', '--status', 'superseded', '--json');
    expect(s3.json().results.map((h: Hit) => [h.id, h.status])).toContainEqual(['mem_20260801_followup', 'superseded']);
    expect(s3.json().results.every((h: Hit) => h.status === 'superseded')).toBe(true);
    const d4 = await run('doctor', '--json');
    expect(d4.json().problems.map((p: Problem) => [p.code, p.path])).toEqual([['non-canonical', 'team/handoffs/mem_20260801_followup.md']]);
  });

  it('an Obsidian "Date & time" property is an error whose hint names the cause', async () => {
    const { repo, vault } = obsidianRepo();
    writeFileSync(join(vault, 'team/facts/mem_20260911_replaytime.md'), memoryFixture('obsidian/mem_20260911_replaytime.md'));
    const d = await runCli(['doctor', '--json'], { cwd: repo, env: cliEnv() });
    expect(d.code).toBe(1);
    const errors = (JSON.parse(d.stdout).problems as Problem[]).filter((p) => p.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe('team/facts/mem_20260911_replaytime.md');
    expect(`${errors[0]!.message} ${errors[0]!.hint}`).toMatch(/Date & time/);
  });
});
