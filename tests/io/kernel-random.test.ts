/**
 * Random ids come from the kernel's generator (io/runtime.ts: kernelRandom), so `vault save`
 * never loads node:crypto (~4-6 ms of its start) for its id and temporary names.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kernelRandom, processIds } from '../../src/io/runtime.js';
import { BIN, cliEnv, gitRepo, tempDir } from '../helpers/cli.js';

describe('random ids without node:crypto', () => {
  it('reads the bytes asked for from the kernel, different each time', () => {
    if (process.platform !== 'linux') return;
    expect(kernelRandom(0)).toEqual(Buffer.alloc(0));
    const a = kernelRandom(32)!;
    const b = kernelRandom(32)!;
    expect(a.length).toBe(32);
    expect(a.equals(b)).toBe(false);
    expect(processIds.randomHex(10)).toMatch(/^[0-9a-f]{20}$/);
    const many = new Set(Array.from({ length: 200 }, () => processIds.randomHex(8)));
    expect(many.size).toBe(200);
  });

  it('vault save names its memory with random hex and never loads node:crypto', () => {
    if (process.platform !== 'linux') return;
    const repo = gitRepo();
    const dir = tempDir();
    const out = join(dir, 'builtins.json');
    const preload = join(dir, 'preload.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList.filter((m) => /crypto/.test(m)))));\n`,
    );
    const ids: string[] = [];
    for (const title of ['First saved', 'Second saved']) {
      const r = spawnSync(process.execPath, ['-r', preload, BIN, 'save', '--scope', 'team', '--title', title, '--body', `Body of ${title}.`, '--json'], {
        cwd: repo,
        env: { ...cliEnv(), ECC_VAULT_SERVER: 'off' },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      ids.push((JSON.parse(r.stdout) as { id: string }).id);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([]);
    }
    for (const id of ids) expect(id).toMatch(/^mem_\d{8}_[0-9a-f]{20}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
