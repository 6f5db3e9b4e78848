import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

describe('vault search --source-harness', () => {
  it('keeps only memories written by that harness (aliases resolve), through the search layer', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const [h, title] of [
      ['claude-code', 'Redis sessions chosen by Claude'],
      ['codex', 'Redis sessions chosen by Codex'],
    ] as const)
      expect((await runCli(['save', '--title', title, '--body', 'Sessions live in Redis.', '--source-harness', h], { cwd: repo, env })).code).toBe(0);
    const titles = async (...extra: string[]) =>
      (JSON.parse((await runCli(['search', 'redis', '--json', ...extra], { cwd: repo, env })).stdout) as { results: Array<{ title: string }> }).results
        .map((r) => r.title)
        .sort();
    expect(await titles()).toEqual(['Redis sessions chosen by Claude', 'Redis sessions chosen by Codex']);
    expect(await titles('--source-harness', 'codex')).toEqual(['Redis sessions chosen by Codex']);
    expect(await titles('--source-harness', 'claude')).toEqual(['Redis sessions chosen by Claude']);
    expect(await titles('--source-harness', 'gemini-cli')).toEqual([]);
    const listed = JSON.parse((await runCli(['search', '--json', '--source-harness', 'codex'], { cwd: repo, env })).stdout) as {
      results: Array<{ title: string }>;
    };
    expect(listed.results.map((r) => r.title)).toEqual(['Redis sessions chosen by Codex']);
  });

  it('refuses a value no harness can have, as a bad --since is refused, without echoing it whole', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const badKind = await runCli(['search', 'redis', '--since', 'someday'], { cwd: repo, env });
    expect(badKind.code).not.toBe(0);
    for (const v of ['a\u001b[2Jb', '../x', 'x'.repeat(5000), '', ' ']) {
      const r = await runCli(['search', 'redis', '--source-harness', v], { cwd: repo, env });
      expect(r.code, JSON.stringify(v)).toBe(badKind.code);
      expect(r.stderr).toMatch(/source-harness: must be a harness name/);
      expect(r.stderr).not.toContain('\u001b');
      expect(r.stderr.length).toBeLessThan(600);
    }
    expect((await runCli(['search', 'redis', '--source-harness', 'CLAUDE-CODE'], { cwd: repo, env })).code).toBe(0);
  });
});
