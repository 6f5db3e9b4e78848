import { describe, expect, it } from 'vitest';
import { readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, gitRepo, runBin, runCli, tempDir } from '../../helpers/cli.js';
import { memory, putFile, putMemories } from '../../helpers/search.js';

async function search(repo: string, env: Record<string, string>, ...args: string[]) {
  const r = await runCli(['search', ...args, '--json'], { cwd: repo, env });
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout) as { results: Array<Record<string, unknown>>; diagnostics: Record<string, unknown>; total: number };
}
const ids = (r: { results: Array<Record<string, unknown>> }) => r.results.map((h) => h.id);

describe('vault search through the CLI', () => {
  it('ranks title over tags over body, returns the exact JSON shape, and prints people output', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const inTitle = memory({ title: 'Redis sessions', body: 'We keep them for 14 days.', kind: 'decision', tags: ['auth'] });
    const inTag = memory({ title: 'Cache layer', body: 'Memcached in front of the API.', tags: ['redis'] });
    const inBody = memory({ title: 'Queues', body: 'Background jobs run on Redis streams.' });
    const none = memory({ title: 'Unrelated', body: 'Nothing about caches.' });
    putMemories(repo, inTitle, inTag, inBody, none);
    const r = await search(repo, env, 'redis');
    expect(ids(r)).toEqual([inTitle.id, inTag.id, inBody.id]);
    expect(r.total).toBe(3);
    expect(Object.keys(r).sort()).toEqual(['diagnostics', 'results', 'total']);
    expect(Object.keys(r.results[0]!).sort()).toEqual(['excerpt', 'id', 'kind', 'path', 'scope', 'score', 'status', 'tags', 'title', 'updatedAt']);
    expect(r.results[0]).toMatchObject({
      id: inTitle.id,
      title: 'Redis sessions',
      kind: 'decision',
      scope: 'team',
      status: 'active',
      tags: ['auth'],
      path: `team/decisions/${inTitle.id}.md`,
      excerpt: 'We keep them for 14 days.',
      updatedAt: inTitle.updatedAt,
    });
    expect(typeof r.results[0]!.score).toBe('number');
    const text = await runCli(['search', 'redis'], { cwd: repo, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('1. Redis sessions');
    expect(text.stdout).toContain(`team/decisions/${inTitle.id}.md`);
    expect(text.stdout).toContain('3 of 3 memories');
    expect(text.stdout).not.toContain('\u001b['); // no colour when not on a TTY
  });

  it('finds CJK words, accents either way, code-ish tokens, typos, prefixes, partial matches and the end of a 64 KiB body', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const zh = memory({ title: '数据库选择', body: '我们使用数据库来存储会话。' });
    const ja = memory({ title: 'セッション', body: 'セッションをRedisに保存します。' });
    const cafe = memory({ title: 'Café near the office', body: 'Good wifi.' });
    const nfd = memory({ title: 'Re\u0301sume\u0301 template', body: 'CV layout.' });
    const code = memory({ title: 'Search module', body: 'See src/search/index/index-store.ts and the foo_bar flag in v2.1.' });
    const k8s = memory({ title: 'Deploys', body: 'We deploy with kubernetes.' });
    const long = memory({ title: 'Long one', body: `${'lorem ipsum dolor sit amet '.repeat(2420)}zanzibarian` });
    putMemories(repo, zh, ja, cafe, nfd, code, k8s, long);
    expect(Buffer.byteLength(long.body)).toBeGreaterThan(65_000);
    expect(ids(await search(repo, env, '数据库'))).toEqual([zh.id]);
    expect(ids(await search(repo, env, '会话'))).toEqual([zh.id]);
    expect(ids(await search(repo, env, 'セッション'))).toEqual([ja.id]);
    expect(ids(await search(repo, env, 'cafe'))).toEqual([cafe.id]);
    expect(ids(await search(repo, env, 'CAFÉ'))).toEqual([cafe.id]);
    expect(ids(await search(repo, env, 'résumé'))).toEqual([nfd.id]); // NFC query, NFD document
    expect(ids(await search(repo, env, 'foo_bar'))).toEqual([code.id]);
    expect(ids(await search(repo, env, 'index-store.ts'))).toEqual([code.id]);
    expect(ids(await search(repo, env, 'store'))).toEqual([code.id]);
    expect(ids(await search(repo, env, 'v2.1'))).toEqual([code.id]);
    expect(ids(await search(repo, env, 'kubernetse'))).toEqual([k8s.id]); // one typo in a long word
    expect(ids(await search(repo, env, 'kuber'))).toEqual([k8s.id]); // prefix
    expect(ids(await search(repo, env, 'zanzibarian'))).toEqual([long.id]);
    expect(ids(await search(repo, env, 'kubernetes wifi')).sort()).toEqual([cafe.id, k8s.id].sort());
  });

  it('applies every filter; user scope only when asked; limits; ties by newer updated_at, then id', async () => {
    const repo = gitRepo();
    const env = cliEnv({ ECC_MEMORY_USER_ROOT: `${repo}/home/.ecc/memory` });
    const a = memory({ id: 'mem_tie_b', title: 'Same words', body: 'same', updatedAt: '2026-07-02T00:00:00.000Z', kind: 'decision', tags: ['auth', 'infra'] });
    const b = memory({
      id: 'mem_tie_a',
      title: 'Same words',
      body: 'same',
      updatedAt: '2026-07-02T00:00:00.000Z',
      kind: 'lesson',
      tags: ['auth'],
      targetHarnesses: ['codex'],
    });
    const c = memory({
      id: 'mem_tie_c',
      title: 'Same words',
      body: 'same',
      updatedAt: '2026-07-03T00:00:00.000Z',
      scope: 'project',
      targetHarnesses: ['claude'],
      sourceHarness: 'codex',
    });
    const old = memory({ id: 'mem_tie_old', title: 'Same words', body: 'same', status: 'superseded', updatedAt: '2026-06-01T00:00:00.000Z' });
    const user = memory({ id: 'mem_tie_user', title: 'Same words', body: 'same', scope: 'user' });
    putMemories(repo, a, b, c, old, user);
    putFile(repo, '.ecc/memory/project/.gitignore', '*\n!.gitignore\n');
    expect(ids(await search(repo, env, 'same words'))).toEqual(['mem_tie_c', 'mem_tie_a', 'mem_tie_b']);
    expect(ids(await search(repo, env))).toEqual(['mem_tie_c', 'mem_tie_a', 'mem_tie_b']); // empty query: newest first
    expect(ids(await search(repo, env, 'words', '--scope', 'user'))).toEqual(['mem_tie_user']);
    expect(ids(await search(repo, env, 'words', '--scope', 'team', '--scope', 'user'))).toEqual(['mem_tie_a', 'mem_tie_b', 'mem_tie_user']);
    expect(ids(await search(repo, env, 'words', '--kind', 'lesson', '--kind', 'decision'))).toEqual(['mem_tie_a', 'mem_tie_b']);
    expect(ids(await search(repo, env, 'words', '--tag', 'auth', '--tag', 'infra'))).toEqual(['mem_tie_b']);
    expect(ids(await search(repo, env, 'words', '--tag', '#auth'))).toEqual(['mem_tie_a', 'mem_tie_b']);
    expect(ids(await search(repo, env, 'words', '--status', 'superseded'))).toEqual(['mem_tie_old']);
    expect(ids(await search(repo, env, 'words', '--status', 'superseded', '--status', 'active'))).toHaveLength(4);
    expect(ids(await search(repo, env, 'words', '--target-harness', 'codex'))).toEqual(['mem_tie_a', 'mem_tie_b']);
    expect(ids(await search(repo, env, 'words', '--source-harness', 'Codex'))).toEqual(['mem_tie_c']);
    expect(ids(await search(repo, env, 'words', '--since', '2026-07-03'))).toEqual(['mem_tie_c']);
    expect(ids(await search(repo, env, 'words', '--until', '2026-07-02'))).toEqual(['mem_tie_a', 'mem_tie_b']);
    expect(ids(await search(repo, env, 'words', '--since', '2026-07-02T00:00:00.000Z', '--until', '2026-07-02T23:00:00Z'))).toEqual(['mem_tie_a', 'mem_tie_b']);
    const limited = await search(repo, env, 'words', '--limit', '1');
    expect(ids(limited)).toEqual(['mem_tie_c']);
    expect(limited.total).toBe(3);
    for (const bad of [
      ['--limit', '101'],
      ['--limit', '0'],
      ['--limit', 'abc'],
      // numbers yargs would read, but not whole numbers written in digits
      ['--limit', '0x10'],
      ['--limit', '1e1'],
      ['--limit', '2.0'],
    ]) {
      const r = await runCli(['search', 'words', ...bad], { cwd: repo, env });
      expect(r.code, bad.join(' ')).toBe(2); // one wording and one exit code (usage) for every bad --limit
      expect(r.stderr).toBe('error: --limit must be a whole number from 1 to 100\nhint: e.g. --limit 20\n');
    }
    const since = await runCli(['search', 'words', '--since', 'yesterday'], { cwd: repo, env });
    expect(since.code).toBe(3);
    expect(since.stderr).toMatch(/^error: since: /);
    // a day the calendar does not have is refused, not rolled over into the next month
    for (const [flag, day] of [
      ['--since', '2026-02-30'],
      ['--until', '2026-04-31T10:00:00Z'],
      ['--since', '2025-02-29'],
    ]) {
      const r = await runCli(['search', 'words', flag!, day!], { cwd: repo, env });
      expect(r.code, day).toBe(3);
      expect(r.stderr).toContain(`(got "${day}")`);
    }
    expect((await runCli(['search', 'words', '--since', '2024-02-29'], { cwd: repo, env })).code).toBe(0);
    const kind = await runCli(['search', 'words', '--kind', 'bogus'], { cwd: repo, env });
    expect(kind.code).toBe(2);
  });

  it('in a repository without a vault: no results, a hint, and nothing written there', async () => {
    // a git repo, so vault discovery stops at its work tree (a stray .ecc in a parent folder is not this repo's vault)
    const dir = gitRepo();
    const r = await runCli(['search', 'redis'], { cwd: dir, env: cliEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('no memories match "redis"\n');
    expect(r.stderr).toMatch(/hint: there is no vault here .*vault init/);
    expect(readdirSync(dir)).toEqual(['.git']);
    const json = await runCli(['search', 'redis', '--json'], { cwd: dir, env: cliEnv() });
    expect(JSON.parse(json.stdout)).toMatchObject({ results: [], total: 0 });
    expect(readdirSync(dir)).toEqual(['.git']);
  });

  it('echoes a query back bounded: 80 characters and an ellipsis, controls escaped (a 100 KB query is not printed back)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    putMemories(repo, memory({ title: 'Redis sessions', body: 'words' }));
    const huge = await runCli(['search', `zq${'x'.repeat(100_000)}`], { cwd: repo, env });
    expect(huge.code, huge.stderr).toBe(0);
    expect(huge.stdout).toBe(`no memories match "zq${'x'.repeat(78)}…"\n`);
    const controls = await runCli(['search', 'zq\u001b[31mred\u202eq\nline'], { cwd: repo, env });
    expect(controls.stdout).toBe('no memories match "zq\\u001b[31mred\\u202eq\\nline"\n');
    // the real binary with a query near the argument limit answers within the same bound
    const bin = await runBin(['search', 'y'.repeat(120_000)], { cwd: repo, env });
    expect(bin.stdout.length, bin.stderr).toBeLessThan(200);
  });

  it('with a symlinked .ecc folder: the hint says the link is the problem and how to fix it, and init says the same', async () => {
    const repo = gitRepo();
    const elsewhere = tempDir('vault-ecc-target-');
    symlinkSync(elsewhere, join(repo, '.ecc'));
    const env = cliEnv();
    const r = await runCli(['search', 'redis'], { cwd: repo, env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/run `vault init` to create it/);
    expect(r.stderr).toContain(
      `note: ${join(repo, '.ecc')} is a symbolic link, so the vault's project and team scopes were not read\nhint: the vault never follows a symbolic link`,
    );
    const hint = /^hint: (.*)$/m.exec(r.stderr)![1];
    const init = await runCli(['init'], { cwd: repo, env });
    expect(init.code).toBe(7);
    expect(init.stderr).toBe(`error: refusing to write through a symbolic link: ${join(repo, '.ecc')}\nhint: ${hint}\n`);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('does not echo a credential pasted as a query', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // a fake key (AWS's documented example key is not a secret: it is not redacted)
    const key = 'AKIA' + 'Z7Q2W9X4R6T8Y3U5';
    // the lean start-up path (the binary) and the full CLI (in-process)
    for (const extra of [[], ['ECC_VAULT_CLI', 'full']]) {
      const run = extra.length ? runCli : runBin;
      const r = await run(['search', key], { cwd: repo, env: { ...env, ...Object.fromEntries(extra.length ? [extra] : []) } });
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(key);
      expect(r.stdout).toContain('no memories match "[REDACTED');
      // nor one pasted into a filter flag
      const token = 'ghp_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';
      const env2 = { ...env, ...Object.fromEntries(extra.length ? [extra] : []) };
      for (const args of [
        ['--since', token],
        ['--until', token],
        ['--status', token],
        ['--scope', token],
      ]) {
        const bad = await run(['search', 'x', ...args], { cwd: repo, env: env2 });
        expect([2, 3], args.join(' ')).toContain(bad.code);
        expect(bad.stdout + bad.stderr, args.join(' ')).not.toContain(token);
      }
      expect((await runCli(['search', 'x', '--since', '2026-13-45'], { cwd: repo, env: env2 })).stderr).toContain('(got "2026-13-45")');
    }
  });

  it("finds a memory by its whole id, and by the id's date and hex parts", async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const a = memory({ id: 'mem_20261207_b2c9adec8ffe7c02583a', title: 'Alpha', body: 'One.' });
    const b = memory({ id: 'mem_20261208_0123456789abcdef0123', title: 'Beta', body: 'Two.' });
    const c = memory({ id: 'mem_20261207_ffffffffffffffff0000', title: 'Gamma', body: 'See mem_20261208_0123456789abcdef0123.' });
    putMemories(repo, a, b, c);
    expect(ids(await search(repo, env, a.id))[0]).toBe(a.id);
    expect(
      ids(await search(repo, env, b.id))
        .slice(0, 2)
        .sort(),
    ).toEqual([b.id, c.id].sort()); // c holds b's id in its body
    expect(ids(await search(repo, env, 'b2c9adec8ffe7c02583a'))).toEqual([a.id]);
    expect(new Set(ids(await search(repo, env, '20261207')))).toEqual(new Set([a.id, c.id]));
  });

  it('returns at most 100 results and counts the rest', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    putMemories(repo, ...Array.from({ length: 120 }, (_, i) => memory({ id: `mem_many_${String(i).padStart(3, '0')}`, title: `Widget ${i}`, body: 'widget' })));
    const r = await search(repo, env, 'widget', '--limit', '100');
    expect(r.results).toHaveLength(100);
    expect(r.total).toBe(120);
    expect((await search(repo, env, 'widget')).results).toHaveLength(20);
  });

  it('reports invalid files and symlinks in diagnostics and still answers', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const good = memory({ title: 'Valid one', body: 'findable text' });
    putMemories(repo, good);
    putFile(repo, '.ecc/memory/team/notes/broken.md', '---\nid: nope\n');
    putFile(
      repo,
      '.ecc/memory/team/decisions/misplaced.md',
      (await import('../../../src/document/serialize.js')).serializeMemory(memory({ title: 'findable text', kind: 'note' })),
    );
    const r = await search(repo, env, 'findable');
    expect(ids(r)).toEqual([good.id]);
    const inv = r.diagnostics.invalidFiles as Array<{ path: string; code: string }>;
    expect(inv.map((x) => x.path).sort()).toEqual(['team/decisions/misplaced.md', 'team/notes/broken.md']);
    expect(inv.find((x) => x.path.endsWith('misplaced.md'))!.code).toBe('location-mismatch');
    const text = await runCli(['search', 'findable'], { cwd: repo, env });
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/2 invalid file\(s\) not searched/);
  });

  it('vault index shows and rebuilds the state; vault save warns about and --unique refuses duplicates', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const first = await runCli(['save', '--scope', 'team', '--title', 'Use Redis sessions', '--body', 'We store sessions in Redis for 14 days.', '--json'], {
      cwd: repo,
      env,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).similar).toEqual([]);
    const id = JSON.parse(first.stdout).id;
    const dup = await runCli(['save', '--scope', 'team', '--title', 'use redis  SESSIONS!', '--body', 'Other words entirely.', '--json'], { cwd: repo, env });
    expect(dup.code).toBe(0);
    expect(JSON.parse(dup.stdout).similar).toEqual([{ id, path: `team/notes/${id}.md`, reason: 'same-title' }]);
    const body = await runCli(['save', '--scope', 'team', '--title', 'Another title', '--body', 'We store sessions in Redis for 14 days.'], { cwd: repo, env });
    expect(body.code).toBe(0);
    expect(body.stderr).toMatch(new RegExp(`warning: similar memories already exist: .*${id} \\(similar-body\\)`));
    const otherScope = await runCli(['save', '--scope', 'project', '--title', 'Use Redis sessions', '--body', 'x', '--unique', '--json'], { cwd: repo, env });
    expect(otherScope.code, otherScope.stdout).toBe(0);
    const refused = await runCli(['save', '--scope', 'team', '--title', 'Use Redis sessions', '--body', 'x', '--unique'], { cwd: repo, env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/similar memory already exists/);
    const status = await runCli(['index', '--json'], { cwd: repo, env });
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ exists: true, stale: false, documents: 4 });
    expect(s.location.team).toBe(`${repo}/.git/ecc-memory-index/team`);
    const rebuilt = await runCli(['index', '--rebuild', '--json'], { cwd: repo, env });
    expect(JSON.parse(rebuilt.stdout).actions.map((a: { action: string }) => a.action)).toEqual(['rebuilt', 'rebuilt']);
    const text = await runCli(['index'], { cwd: repo, env });
    expect(text.stdout).toMatch(/team\s+3 memories, 0 invalid/);
  });
});
