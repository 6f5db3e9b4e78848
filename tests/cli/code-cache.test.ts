/**
 * The lean CLI's V8 code cache (src/cli/lean-loader.ts): created by the first `vault search` /
 * `vault read` / `vault save`, reused by the next, rebuilt when damaged or rejected by V8, and
 * skipped silently where it cannot be kept (a folder that cannot be written, a link, no absolute
 * HOME). Every run points XDG_CACHE_HOME at a temp folder. Whatever the cache's state, a command
 * prints exactly what it prints without one.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import vm from 'node:vm';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, REPO, runBin, tempDir, type RunResult } from '../helpers/cli.js';
import { REDIS_DECISION_TEXT } from '../helpers/search.js';

type Loader = typeof import('../../src/cli/lean-loader.js');
const loader = createRequire(import.meta.url)(join(REPO, 'dist', 'cli', 'lean-loader.cjs')) as Loader;
const BUNDLE = join(REPO, 'dist', 'cli', 'lean-bundle.cjs');

const MEMORY = REDIS_DECISION_TEXT;

/** A repository with one team memory (old enough to trust) and its index built, without a code cache. */
async function world(cache: string | undefined, extra: Record<string, string | undefined> = {}) {
  const repo = gitRepo({ '.ecc/memory/team/decisions/mem_20260801_redis01.md': MEMORY });
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(repo, '.ecc/memory/team/decisions/mem_20260801_redis01.md'), past, past);
  const w = { repo, env: cliEnv({ XDG_CACHE_HOME: cache, ...extra }) };
  const warm = await runBin(['search', 'redis'], { cwd: repo, env: { ...w.env, ECC_VAULT_CODE_CACHE: 'off' } });
  expect(warm.code, warm.stderr).toBe(0);
  return w;
}

/** The cache files in a cache folder (name → stat), none when the folder is missing. */
function caches(dir: string): Map<string, { ino: number; mtimeMs: number; mode: number; size: number }> {
  const folder = join(dir, 'ecc-vault');
  if (!existsSync(folder)) return new Map();
  return new Map(
    readdirSync(folder).map((n) => {
      const st = statSync(join(folder, n));
      return [n, { ino: st.ino, mtimeMs: st.mtimeMs, mode: st.mode & 0o777, size: st.size }];
    }),
  );
}

/**
 * The cache's state as a fresh process loading the bundle sees it (in this process V8 would find
 * the bundle in its own compilation cache once compiled, and never consult the file).
 */
function stateOf(cache: string): string {
  const code = `const l = require(${JSON.stringify(join(REPO, 'dist', 'cli', 'lean-loader.cjs'))}); process.stdout.write(l.loadBundle(${JSON.stringify(BUNDLE)}, 'search', { XDG_CACHE_HOME: ${JSON.stringify(cache)} }).state)`;
  return spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout;
}

async function search(w: { repo: string; env: Record<string, string> }): Promise<RunResult> {
  return runBin(['search', 'redis'], { cwd: w.repo, env: w.env });
}

/** What the same command prints with no code cache at all. */
async function withoutCache(w: { repo: string; env: Record<string, string> }, args: string[]): Promise<RunResult> {
  return runBin(args, { cwd: w.repo, env: { ...w.env, ECC_VAULT_CODE_CACHE: 'off' } });
}

describe('the lean CLI code cache', () => {
  it('is created by the first run (0600 in a 0700 folder, named by command, Node.js version and the bundle file identity) and reused by the next', async () => {
    const cache = tempDir('vault-cache-');
    const w = await world(cache);
    const first = await search(w);
    expect(first.code, first.stderr).toBe(0);
    const made = caches(cache);
    expect([...made.keys()]).toHaveLength(1);
    const [name, st] = [...made.entries()][0]!;
    const bundle = statSync(BUNDLE, { bigint: true });
    const identity = [bundle.size, bundle.mtimeNs, bundle.ino, bundle.dev].map((x) => x.toString(36)).join('.');
    expect(name).toBe(`lean-bundle-search-${process.version}-${process.arch}-${identity}.v8`);
    expect(st.mode).toBe(0o600);
    expect(statSync(join(cache, 'ecc-vault')).mode & 0o777).toBe(0o700);
    expect(st.size).toBeGreaterThan(10_000);
    const second = await search(w);
    expect(second).toEqual(first);
    expect(caches(cache)).toEqual(made); // not written again
    expect(first).toEqual(await withoutCache(w, ['search', 'redis']));
    // read and save keep caches of their own beside it
    expect((await runBin(['read', 'mem_20260801_redis01'], { cwd: w.repo, env: w.env })).code).toBe(0);
    expect((await runBin(['save', '--title', 'Cached', '--body', 'x', '--dry-run'], { cwd: w.repo, env: w.env })).code).toBe(0);
    expect([...caches(cache).keys()].map((n) => n.split('-')[2]).sort()).toEqual(['read', 'save', 'search']);
  });

  it('in-process: created and persisted once; then a fresh process reuses it, and V8 accepts it', () => {
    const cache = tempDir('vault-cache-');
    const first = loader.loadBundle(BUNDLE, 'search', { XDG_CACHE_HOME: cache });
    expect(first.state).toBe('created');
    expect(typeof first.exports.runLeanCli).toBe('function');
    expect(first.persist()).toBe(true);
    expect(stateOf(cache)).toBe('reused');
  });

  it('is reused for a bundle of any length (the payload after the copied source is aligned for the checksum)', () => {
    const dir = tempDir('vault-bundles-');
    for (let extra = 0; extra < 8; extra++) {
      const cache = tempDir('vault-cache-');
      const file = join(dir, `b${extra}.cjs`);
      writeFileSync(file, `module.exports.answer = () => 42;/*${'x'.repeat(extra)}*/\n`);
      const first = loader.loadBundle(file, 'search', { XDG_CACHE_HOME: cache });
      expect(first.state).toBe('created');
      expect(first.persist()).toBe(true);
      const again = loader.loadBundle(file, 'search', { XDG_CACHE_HOME: cache });
      expect(again.state, `bundle of ${statSync(file).size} bytes`).toBe('reused');
      expect((again.exports.answer as () => number)()).toBe(42);
    }
    // and the checksum of a view at any offset is that of the same bytes aligned
    const bytes = Buffer.from(Array.from({ length: 1003 }, (_, i) => (i * 7) & 0xff));
    for (let off = 0; off < 4; off++) expect(loader.cacheChecksum(bytes.subarray(off))).toEqual(loader.cacheChecksum(Buffer.from(bytes.subarray(off))));
  });

  it('a damaged cache file is never handed to V8: it is rebuilt, and the command prints the same', async () => {
    const cache = tempDir('vault-cache-');
    const w = await world(cache);
    const first = await search(w);
    const [name, before] = [...caches(cache).entries()][0]!;
    const file = join(cache, 'ecc-vault', name);
    const bytes = readFileSync(file);
    bytes[bytes.length - 100] ^= 0xff; // one flipped payload byte: the digest no longer matches
    writeFileSync(file, bytes);
    expect(stateOf(cache)).toBe('rebuilt');
    expect(await search(w)).toEqual(first);
    const after = caches(cache).get(name)!;
    expect(after.ino).not.toBe(before.ino); // renamed over
    expect(stateOf(cache)).toBe('reused');
    // truncated, empty, and not ours at all
    for (const text of [bytes.subarray(0, 20), Buffer.alloc(0), Buffer.from('not a cache')]) {
      writeFileSync(file, text);
      expect(await search(w)).toEqual(first);
      expect(stateOf(cache)).toBe('reused');
    }
  });

  it('a cache V8 rejects (intact file, cached data of another script) is rebuilt', async () => {
    const cache = tempDir('vault-cache-');
    const w = await world(cache);
    const first = await search(w);
    const [name] = [...caches(cache).keys()];
    const foreign = new vm.Script('1 + 1').createCachedData();
    writeFileSync(join(cache, 'ecc-vault', name!), loader.cacheFileBytes(foreign, loader.readBundle(BUNDLE).bytes));
    expect(stateOf(cache)).toBe('rebuilt');
    expect(await search(w)).toEqual(first);
    expect(stateOf(cache)).toBe('reused');
  });

  it('the lean bundle is ASCII, so the loader decodes it as Latin-1 (a copy) and gets the same text as UTF-8', () => {
    // a non-ASCII character in a regular expression of the lean path (esbuild escapes strings,
    // not regex literals or comments) would cost every lean command a UTF-8 decode: write \u2019
    const bytes = readFileSync(BUNDLE);
    const at = bytes.findIndex((b) => b > 0x7f);
    expect(at, at < 0 ? '' : `non-ASCII at byte ${at}: ${bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8')}`).toBe(-1);
    expect(loader.readBundle(BUNDLE).source).toBe(bytes.toString('utf8'));
  });

  it('a cache of an older bundle or Node.js for the same command is removed when the new one is written', async () => {
    const cache = tempDir('vault-cache-');
    mkdirSync(join(cache, 'ecc-vault'), { mode: 0o700 });
    writeFileSync(join(cache, 'ecc-vault', 'lean-bundle-search-v20.0.0-x64-0000.v8'), 'old', { mode: 0o600 });
    writeFileSync(join(cache, 'ecc-vault', 'lean-bundle-read-v20.0.0-x64-0000.v8'), 'old', { mode: 0o600 });
    expect((await search(await world(cache))).code).toBe(0);
    const names = [...caches(cache).keys()].sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toBe('lean-bundle-read-v20.0.0-x64-0000.v8');
    expect(names[1]).toMatch(/^lean-bundle-search-v\d/);
  });

  it('is skipped silently where it cannot be kept: the cache folder is a file, or an ecc-vault folder others may write', async () => {
    const base = tempDir('vault-cache-');
    writeFileSync(join(base, 'file'), 'x');
    const w = await world(join(base, 'file'));
    const r = await search(w);
    expect(r.code).toBe(0);
    expect(r).toEqual(await withoutCache(w, ['search', 'redis']));
    expect(readFileSync(join(base, 'file'), 'utf8')).toBe('x');
    const save = await runBin(['save', '--title', 'No cache', '--body', 'x', '--json'], { cwd: w.repo, env: w.env });
    expect(save.code, save.stderr).toBe(0);
    expect(save.stderr).toBe('');
    // a folder anyone may write (a planted cache would be run): neither read nor written
    const open = tempDir('vault-cache-');
    mkdirSync(join(open, 'ecc-vault'));
    chmodSync(join(open, 'ecc-vault'), 0o777);
    const o = await world(open);
    expect(await search(o)).toEqual(await withoutCache(o, ['search', 'redis']));
    expect(readdirSync(join(open, 'ecc-vault'))).toEqual([]);
  });

  it.skipIf(process.getuid?.() === 0)('is skipped silently on a read-only folder (a global install, a locked HOME)', async () => {
    const cache = tempDir('vault-cache-');
    chmodSync(cache, 0o500);
    try {
      const w = await world(cache);
      const r = await search(w);
      expect(r).toEqual(await withoutCache(w, ['search', 'redis']));
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      chmodSync(cache, 0o700);
    }
  });

  it('is never read or written through a link: the ecc-vault folder or the cache file being one', async () => {
    const cache = tempDir('vault-cache-');
    const elsewhere = tempDir('vault-elsewhere-');
    symlinkSync(elsewhere, join(cache, 'ecc-vault'));
    const w = await world(cache);
    const r = await search(w);
    expect(r).toEqual(await withoutCache(w, ['search', 'redis']));
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(stateOf(cache)).toBe('created');

    // a real folder whose cache file is a link to a valid cache elsewhere: not followed
    const good = tempDir('vault-cache-');
    await search(await world(good));
    const [name] = [...caches(good).keys()];
    const other = tempDir('vault-cache-');
    mkdirSync(join(other, 'ecc-vault'), { mode: 0o700 });
    symlinkSync(join(good, 'ecc-vault', name!), join(other, 'ecc-vault', name!));
    expect(stateOf(other)).not.toBe('reused');
    expect(await search(await world(other))).toEqual(r);
  });

  it('lives in $XDG_CACHE_HOME/ecc-vault, else $HOME/.cache/ecc-vault; none without an absolute folder or with ECC_VAULT_CODE_CACHE=off', async () => {
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/ecc-vault');
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/home/u' })).toBe('/home/u/.cache/ecc-vault');
    expect(loader.codeCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/ecc-vault');
    expect(loader.codeCacheDir({ HOME: 'relative/home' })).toBeUndefined();
    expect(loader.codeCacheDir({})).toBeUndefined();
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: '/x/cache', ECC_VAULT_CODE_CACHE: 'off' })).toBeUndefined();
    // as the binary meets it: HOME relative and no XDG_CACHE_HOME writes nothing and prints the same
    const w = await world(undefined, { HOME: 'relative-home' });
    const r = await search(w);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(w.repo, 'relative-home'))).toBe(false);
    // HOME absolute, no XDG_CACHE_HOME: under HOME
    const home = tempDir('vault-home-');
    const h = await world(undefined, { HOME: home });
    expect((await search(h)).code).toBe(0);
    expect(caches(join(home, '.cache')).size).toBe(1);
  });
});
