/**
 * The store and the save/init operations in-process, with an injected runtime: create-only
 * writes, symlink refusal, the fail-closed project .gitignore, dry runs, defaults.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../src/document/parse.js';
import { serializeMemory } from '../../src/document/serialize.js';
import { nodeRuntime, type Runtime } from '../../src/io/runtime.js';
import { generateMemoryId } from '../../src/store/ids.js';
import { resolveRoots } from '../../src/store/roots.js';
import { writeFileExclusive } from '../../src/store/atomic-write.js';
import { checkScope } from '../../src/store/scope-folders.js';
import { initVault } from '../../src/operations/init.js';
import { buildMemory, save as saveMemory, sourceHarnessFromEnv } from '../../src/operations/save.js';
import { readMemory } from '../../src/operations/read.js';
import { fixture, tempDir } from '../helpers/cli.js';

function runtime(cwd: string, env: Record<string, string> = {}): Runtime {
  let n = 0;
  return nodeRuntime({
    cwd,
    env: { ECC_MEMORY_USER_ROOT: join(cwd, '.user'), ...env },
    home: join(cwd, '.home'),
    now: () => new Date('2026-07-26T20:00:00.123Z'),
    randomHex: (bytes) => (n++).toString(16).padStart(2 * bytes, 'a'),
  });
}

describe('writeFileExclusive', () => {
  it('creates the file with its mode and refuses an existing file, folder or (dangling) symlink', () => {
    const dir = tempDir();
    const target = join(dir, 'mem_x.md');
    writeFileExclusive(target, 'one', 0o600, () => 't1');
    expect(readFileSync(target, 'utf8')).toBe('one');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(() => writeFileExclusive(target, 'two', 0o600, () => 't2')).toThrow(expect.objectContaining({ code: 'already-exists' }));
    expect(readFileSync(target, 'utf8')).toBe('one');
    symlinkSync(join(dir, 'nowhere.md'), join(dir, 'dangling.md'));
    expect(() => writeFileExclusive(join(dir, 'dangling.md'), 'x', 0o600, () => 't3')).toThrow(expect.objectContaining({ code: 'already-exists' }));
    expect(existsSync(join(dir, 'nowhere.md'))).toBe(false);
    mkdirSync(join(dir, 'folder.md'));
    expect(() => writeFileExclusive(join(dir, 'folder.md'), 'x', 0o600, () => 't4')).toThrow(expect.objectContaining({ code: 'already-exists' }));
    // no temporary file survives, success or failure
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with io-error (and leaves nothing) when the folder does not exist', () => {
    const dir = tempDir();
    expect(() => writeFileExclusive(join(dir, 'missing/mem_x.md'), 'x', 0o600, () => 't')).toThrow(expect.objectContaining({ code: 'io-error' }));
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('scopes and init', () => {
  it('init creates private project folders with the exact .gitignore, and a dry run creates nothing', () => {
    const repo = fixture({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const roots = resolveRoots(runtime(repo));
    const dry = initVault(roots, ['project', 'team'], { dryRun: true });
    expect(dry.created).toContain(join(repo, '.ecc/memory/project/notes'));
    expect(existsSync(join(repo, '.ecc'))).toBe(false);
    const real = initVault(roots);
    expect(real.created.sort()).toEqual(dry.created.sort());
    expect(readFileSync(join(repo, '.ecc/memory/project/.gitignore'), 'utf8')).toBe('*\n!.gitignore\n');
    expect(statSync(join(repo, '.ecc/memory/project/notes')).mode & 0o777).toBe(0o700);
    expect(existsSync(join(repo, '.ecc/memory/team/.gitignore'))).toBe(false);
    expect(initVault(roots).created).toEqual([]);
    expect(initVault(roots, ['project'], { dryRun: true }).created).toEqual([]);
  });

  it('refuses a symlinked .ecc, memory root, scope or kind folder before creating anything', () => {
    for (const linked of ['.ecc', '.ecc/memory', '.ecc/memory/team', '.ecc/memory/team/notes']) {
      const repo = fixture({ '.git/HEAD': 'x' });
      const elsewhere = tempDir();
      const parent = join(repo, linked, '..');
      mkdirSync(parent, { recursive: true });
      symlinkSync(elsewhere, join(repo, linked));
      const roots = resolveRoots(runtime(repo));
      expect(() => initVault(roots, ['team']), linked).toThrow(expect.objectContaining({ code: 'symlink-refused' }));
      expect(() => checkScope(roots, 'team', ['note']), linked).toThrow(expect.objectContaining({ code: 'symlink-refused' }));
      expect(readdirSync(elsewhere)).toEqual([]);
    }
  });

  it('a wrong project .gitignore stops init, save and a dry-run save before anything is written', async () => {
    for (const content of ['*.md\n', '*\n!.gitignore', '*\r\n!.gitignore\r\n', '']) {
      const repo = fixture({ '.git/HEAD': 'x', '.ecc/memory/project/.gitignore': content });
      const rt = runtime(repo);
      const roots = resolveRoots(rt);
      expect(() => initVault(roots, ['project'])).toThrow(expect.objectContaining({ code: 'gitignore-mismatch' }));
      await expect(saveMemory(roots, { title: 't', body: 'b' }, rt)).rejects.toMatchObject({ code: 'gitignore-mismatch' });
      await expect(saveMemory(roots, { title: 't', body: 'b' }, rt, { dryRun: true })).rejects.toMatchObject({ code: 'gitignore-mismatch' });
      expect(readdirSync(join(repo, '.ecc/memory/project'))).toEqual(['.gitignore']);
    }
  });
});

describe('saveMemory and buildMemory', () => {
  it('uses the injected clock and ids, forces trust and status, and writes what parse reads back', async () => {
    const repo = fixture({ '.git/HEAD': 'x' });
    const rt = runtime(repo, { ECC_MEMORY_HARNESS: 'codex' });
    const roots = resolveRoots(rt);
    const input = {
      title: '  “Quoted” title  ',
      body: '\n body \n',
      tags: ['#auth', 'auth', 'db'],
      trust: 'reviewed',
      status: 'superseded',
      sourceHarness: sourceHarnessFromEnv(rt.env),
    } as never;
    const r = await saveMemory(roots, input, rt);
    expect(r.memory).toMatchObject({
      id: 'mem_20260726_aaaaaaaaaaaaaaaaaaa0',
      title: '“Quoted” title',
      trust: 'unreviewed',
      status: 'active',
      sourceHarness: 'codex',
      targetHarnesses: ['all'],
      tags: ['auth', 'db'],
      createdAt: '2026-07-26T20:00:00.123Z',
      updatedAt: '2026-07-26T20:00:00.123Z',
      body: 'body',
    });
    expect(r.path).toBe('project/notes/mem_20260726_aaaaaaaaaaaaaaaaaaa0.md');
    const text = readFileSync(r.absPath, 'utf8');
    expect(text).toContain('tags: ["auth","db"]\n');
    expect(parseMemory(text)).toEqual({ memory: r.memory, canonical: true, nonCanonical: [] });
    expect(readMemory(roots, r.memory.id).memory).toEqual(r.memory);
    expect(lstatSync(r.absPath).isFile()).toBe(true);
  });

  it('treats an empty ECC_MEMORY_HARNESS as unset', () => {
    const dir = tempDir();
    const harness = (env: Record<string, string>) =>
      buildMemory({ title: 't', body: 'b', sourceHarness: sourceHarnessFromEnv(env) }, runtime(dir, env)).sourceHarness;
    expect(harness({ ECC_MEMORY_HARNESS: '', VAULT_HARNESS: 'cursor' })).toBe('cursor');
    expect(harness({ ECC_MEMORY_HARNESS: '' })).toBe('unknown');
  });

  it('refuses what the contract refuses, before writing', async () => {
    const repo = fixture({ '.git/HEAD': 'x' });
    const rt = runtime(repo);
    const roots = resolveRoots(rt);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ title: '', body: 'b' }, 'invalid-field'],
      [{ title: 'x'.repeat(201), body: 'b' }, 'invalid-field'],
      [{ title: 't', body: 'b\u202e' }, 'invalid-body'],
      [{ title: 't', body: 'a\ud800' }, 'invalid-body'],
      [{ title: 't', body: 'x'.repeat(65_537) }, 'body-too-large'],
      [{ title: 't', body: 'b', kind: 'notes' }, 'invalid-input'],
      [{ title: 't', body: 'b', scope: 'global' }, 'invalid-input'],
      [{ title: 't', body: 'b', id: 'mem_../x' }, 'invalid-input'],
      [{ title: 't', body: 'b', tags: ['Bad Tag'] }, 'invalid-field'],
      [{ title: 't', body: 'b', links: ['not-an-id'] }, 'invalid-field'],
      [{ title: 't', body: 'b', targetHarnesses: Array.from({ length: 33 }, (_, i) => `h${i}`) }, 'invalid-field'],
      [{ title: 't', body: 'b', sourceHarness: 'Claude Code' }, 'invalid-field'],
    ];
    for (const [input, code] of bad) {
      await expect(saveMemory(roots, input as never, rt), JSON.stringify(input).slice(0, 80)).rejects.toMatchObject({ code });
    }
    expect(existsSync(join(repo, '.ecc'))).toBe(false);
  });

  it('the largest memory the limits allow stays under the 128 KiB document limit', async () => {
    const repo = fixture({ '.git/HEAD': 'x' });
    const rt = runtime(repo);
    const links = Array.from({ length: 64 }, (_, i) => `mem_${String(i).padStart(3, '0')}${'l'.repeat(125)}`);
    // links are checked at save: the 64 targets exist
    const roots = resolveRoots(rt);
    initVault(roots, ['project']);
    for (const id of links)
      writeFileExclusive(join(roots.project, 'notes', `${id}.md`), serializeMemory(buildMemory({ id, title: 'target', body: 'b' }, rt)), 0o644, () =>
        rt.randomHex(8),
      );
    const r = await saveMemory(
      roots,
      {
        title: '😀'.repeat(100),
        body: '中'.repeat(21_845),
        tags: Array.from({ length: 32 }, (_, i) => `${String(i).padStart(2, '0')}${'t'.repeat(62)}`),
        targetHarnesses: Array.from({ length: 32 }, (_, i) => `${String(i).padStart(2, '0')}${'h'.repeat(62)}`),
        links,
        sourceHarness: 's'.repeat(64),
      },
      rt,
    );
    const size = statSync(r.absPath).size;
    expect(size).toBeGreaterThan(65_536);
    expect(size).toBeLessThan(131_072);
  });

  it('generates ids as the reference tool does', () => {
    expect(generateMemoryId(new Date('2026-01-02T23:59:59.999Z'), () => '0123456789abcdef0123ffff')).toBe('mem_20260102_0123456789abcdef0123');
  });
});
