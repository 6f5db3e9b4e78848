/**
 * The served fast path of `vault search` and `vault read` (src/cli/served-main.ts, bin/vault.js):
 * with the index server running, the binary prints the server's rendered output without loading
 * the lean bundle, and every run, served or not, prints the same bytes and exits with the same
 * code as the same command on the files (ECC_VAULT_SERVER=off).
 */
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../src/io/runtime.js';
import { askServer } from '../../src/search/resident/resident-ask.js';
import { resolveRoots } from '../../src/store/roots.js';
import { cliEnv, git, gitRepo, runBin, runCli, tempDir } from '../helpers/cli.js';
import { killServersAfterEach } from '../helpers/servers.js';
import { memory, putFile, putMemories } from '../helpers/search.js';

const started = killServersAfterEach();

/** A repository with a few memories, its server running (team and project scopes). */
async function servedVault() {
  const repo = gitRepo();
  const run = tempDir('vault-run-');
  chmodSync(run, 0o700);
  const env = cliEnv({ XDG_RUNTIME_DIR: run });
  const a = memory({ title: 'Harbour crane', body: 'the crane lifts containers; see [[mem_20260101_0000000000000000aaaa]]', tags: ['port', 'crane'] });
  const b = memory({ id: 'mem_20260101_0000000000000000aaaa', title: 'Dock schedule', body: 'crane shifts start at dawn', links: [a.id] });
  const c = memory({ title: 'Retired crane note', body: 'an old crane', status: 'retired', kind: 'decision' });
  putMemories(repo, a, b, c);
  // an invalid file: a text search warns about it on stderr
  putFile(repo, '.ecc/memory/team/notes/broken-crane.md', '---\ntitle: crane\n---\nno schema\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'memories');
  const r = await runBin(['watch', '--detach', '--json', '--scope', 'team', 'project'], { cwd: repo, env });
  expect(r.code, r.stderr).toBe(0);
  started.push((JSON.parse(r.stdout) as { pid: number }).pid);
  return { repo, env, a, b };
}

/** The lean CLI's code caches written so far (the lean path writes one after it ran; the served path never loads it). */
function leanCaches(env: Record<string, string>): string[] {
  const dir = join(env.XDG_CACHE_HOME!, 'ecc-vault');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('lean-bundle-')) : [];
}

describe('the served fast path of vault search and vault read', () => {
  it('prints the bytes and exit code of the files, and loads no lean bundle for a served answer', async () => {
    const { repo, env, a, b } = await servedVault();
    const served: string[][] = [
      ['search', 'crane'],
      ['search', 'crane', '--json'],
      ['search', 'crane', 'dawn', '--scope', 'team', '--limit', '1'],
      ['search', '--status', 'retired', 'active', '--kind', 'decision', 'note', 'crane'],
      ['search', 'crane', '--tag', 'port'],
      ['search'],
      ['search', 'nothingmatchesthis', '--json'],
      ['read', a.id],
      ['read', b.id, '--json'],
      ['read', a.id, '--scope', 'team', 'team'],
    ];
    const notServed: string[][] = [
      ['search', 'nothingmatchesthis'], // an empty text answer: its hints are the CLI's
      ['search', 'crane', '--limit', '0'], // a usage error
      ['search', 'crane', '--since', 'yesterday'], // the search's own error
      ['read', 'mem_20260101_0000000000000000ffff'], // not found
      ['read', 'not-an-id', '--json'],
    ];
    const yargsOnly: string[][] = [['read', a.id, '--json', 'true']];
    for (const args of [...served, ...notServed, ...yargsOnly]) {
      const before = leanCaches(env).length;
      const got = await runBin(args, { cwd: repo, env });
      if (served.includes(args)) expect(leanCaches(env).length, `${args.join(' ')}: lean bundle loaded`).toBe(before);
      else if (notServed.includes(args)) expect(leanCaches(env).length, `${args.join(' ')}: lean path`).toBeGreaterThan(0);
      const files = await runBin(args, { cwd: repo, env: { ...env, ECC_VAULT_SERVER: 'off' } });
      expect(got, args.join(' ')).toEqual(files);
      if (args.join(' ') === 'search crane') expect(got.stderr).toContain('invalid file(s) not searched');
      rmSync(join(env.XDG_CACHE_HOME!, 'ecc-vault'), { recursive: true, force: true });
    }
    const status = JSON.parse((await runBin(['watch', '--status', '--json'], { cwd: repo, env })).stdout) as { requests: number };
    expect(status.requests).toBeGreaterThanOrEqual(served.length);
  });

  it('renders a colour terminal’s search as the CLI does', async () => {
    const { repo, env } = await servedVault();
    const rt = nodeRuntime({ cwd: repo, env });
    const reply = await askServer(
      resolveRoots(rt),
      { op: 'search', query: 'crane', options: { fresh: false, fullCheckIntervalS: 60 }, render: { json: false, color: true } },
      { uid: rt.uid, env },
    );
    const colored = await runCli(['search', 'crane'], { cwd: repo, env: { ...env, NO_COLOR: '', ECC_VAULT_SERVER: 'off' }, tty: true });
    expect(colored.stdout).toContain('\u001b[1m');
    expect(reply).toMatchObject({ ok: true, result: { stdout: colored.stdout, stderr: colored.stderr } });
  });

  it('refuses a malformed render, and prints the same without a server', async () => {
    const { repo, env } = await servedVault();
    const rt = nodeRuntime({ cwd: repo, env });
    const bad = await askServer(
      resolveRoots(rt),
      { op: 'read', id: 'mem_20260101_0000000000000000aaaa', scopes: ['team'], render: { json: 'yes' } as unknown as { json: boolean } },
      { uid: rt.uid, env },
    );
    expect(bad).toBeUndefined(); // refused: the client works as without a server
    await runBin(['watch', '--stop'], { cwd: repo, env });
    const args = ['search', 'crane'];
    expect(await runBin(args, { cwd: repo, env })).toEqual(await runBin(args, { cwd: repo, env: { ...env, ECC_VAULT_SERVER: 'off' } }));
  });
});
