/**
 * Hostile code cache files ($XDG_CACHE_HOME/ecc-vault/lean-bundle-<command>-...v8): the cache only
 * ever costs or saves time, never changes what a command does; a hook never hangs, always exits 0
 * and prints nothing on any error.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, REPO, runBin, tempDir } from '../helpers/cli.js';
import { REDIS_DECISION_TEXT } from '../helpers/search.js';

type Loader = typeof import('../../src/cli/lean-loader.js');
const loader = createRequire(import.meta.url)(join(REPO, 'dist', 'cli', 'lean-loader.cjs')) as Loader;

const MEMORY = REDIS_DECISION_TEXT;

async function world() {
  const cache = tempDir('vault-cache-');
  const repo = gitRepo({ '.ecc/memory/team/decisions/mem_20260801_redis01.md': MEMORY });
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(repo, '.ecc/memory/team/decisions/mem_20260801_redis01.md'), past, past);
  const env = cliEnv({ XDG_CACHE_HOME: cache });
  const search = () => runBin(['search', 'redis'], { cwd: repo, env, timeoutMs: 15_000 });
  const hook = () => runBin(['hook', 'session-start'], { cwd: repo, env, input: '{}', timeoutMs: 15_000 });
  const first = await search();
  expect(first.code, first.stderr).toBe(0);
  const firstHook = await hook();
  expect(firstHook.code).toBe(0);
  const folder = join(cache, 'ecc-vault');
  const file = (command: string) => join(folder, readdirSync(folder).find((n) => n.startsWith(`lean-bundle-${command}-`))!);
  return { repo, env, search, hook, first, firstHook, file };
}

/** A cache file with our header and a correct checksum whose V8 data is of another script of the same length. */
function forge(bundle: string, out: string): void {
  const source = readFileSync(bundle, 'utf8');
  const pre = '(function (exports, require, module, __filename, __dirname) {';
  let body = 'process.stdout.write("FORGED\\n");/*';
  body += `${' '.repeat(source.length - body.length - 2)}*/`;
  const script = new vm.Script(`${pre}${body}\n})`);
  script.runInThisContext();
  const data = script.createCachedData();
  // as a cache made for that other text would be: its payload's checksum and a copy of its text
  writeFileSync(out, loader.cacheFileBytes(data, Buffer.from(`${pre}${body}\n})`)));
}

describe('a hostile code cache file', () => {
  it.skipIf(process.platform === 'win32')(
    'a FIFO in place of the cache file never hangs a search or a hook',
    async () => {
      const w = await world();
      for (const c of ['search', 'hook']) {
        const f = w.file(c);
        rmSync(f);
        spawnSync('mkfifo', [f]);
      }
      const s = await w.search();
      expect(s.code, 'search hung (killed by the timeout)').toBe(0);
      expect(s.stdout).toBe(w.first.stdout);
      const h = await w.hook();
      expect(h.code, 'hook hung (killed by the timeout)').toBe(0);
    },
    60_000,
  );

  it('intact header and checksum, V8 data of another script of the same length: never run', async () => {
    const w = await world();
    forge(join(REPO, 'dist', 'hooks', 'hook-bundle.cjs'), w.file('hook'));
    forge(join(REPO, 'dist', 'cli', 'lean-bundle.cjs'), w.file('search'));
    const h = await w.hook();
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(w.firstHook.stdout);
    expect(h.stderr).toBe('');
    const s = await w.search();
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toBe(w.first.stdout);
  }, 60_000);
});
