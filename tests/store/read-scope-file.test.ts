/**
 * readScopeFile: the read behind search results, similar-memory checks, prompt recall, the
 * session-start digest and index-backed `vault read`. A folder on the way that became a link
 * after the index saw it is never followed; the plain path read (shown first) would follow it.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../src/io/runtime.js';
import { readFileSafe } from '../../src/store/read-file-safe.js';
import { readScopeFile } from '../../src/store/read-scope-file.js';
import { resolveRoots } from '../../src/store/roots.js';
import { gitRepo, tempDir } from '../helpers/cli.js';

function setUp() {
  const repo = gitRepo({ '.ecc/memory/team/notes/mem_x.md': 'inside\n' });
  const outside = tempDir();
  mkdirSync(join(outside, 'team', 'notes'), { recursive: true });
  writeFileSync(join(outside, 'team', 'notes', 'mem_x.md'), 'CANARY outside the vault\n');
  const home = tempDir();
  const roots = resolveRoots(nodeRuntime({ cwd: repo, env: { ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory') }, home }));
  return { repo, outside, roots };
}

describe('readScopeFile', () => {
  it('reads a memory file through the scope and kind folders', () => {
    const { roots } = setUp();
    const r = readScopeFile(roots, 'team', 'notes/mem_x.md', 1024);
    expect(r.ok && r.bytes.toString()).toBe('inside\n');
  });

  it.each([
    ['the kind folder', '.ecc/memory/team/notes', 'team/notes'],
    ['the scope folder', '.ecc/memory/team', 'team'],
    ['.ecc', '.ecc', ''],
  ])('never reads through %s swapped for a link', (_what, inVault, inOutside) => {
    const { repo, outside, roots } = setUp();
    const target = join(repo, inVault);
    renameSync(target, `${target}.gone`);
    if (inVault === '.ecc') {
      mkdirSync(join(outside, 'memory'), { recursive: true });
      renameSync(join(outside, 'team'), join(outside, 'memory', 'team'));
    }
    symlinkSync(join(outside, inOutside), target);
    // the live check: a read by path follows the link
    const plain = readFileSafe(join(repo, '.ecc/memory/team/notes/mem_x.md'), 1024);
    expect(plain.ok && plain.bytes.toString()).toMatch(/CANARY/);
    const r = readScopeFile(roots, 'team', 'notes/mem_x.md', 1024);
    expect(r).toEqual({ ok: false, code: 'symlink-refused' });
  });

  it('refuses a path with an empty, . or .. segment', () => {
    const { roots } = setUp();
    for (const p of ['../team/notes/mem_x.md', 'notes/./mem_x.md', 'notes//mem_x.md', '/etc/passwd'])
      expect(readScopeFile(roots, 'team', p, 1024)).toEqual({ ok: false, code: 'invalid-path' });
  });
});
