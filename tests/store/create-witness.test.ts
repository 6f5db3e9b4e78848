/**
 * The writer's proof that its create was the only change to a kind folder (store/create-witness.ts):
 * given for a lone create, refused when anything else changed the folder while it was watched.
 */
import { linkSync, mkdirSync, mkdtempSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateWitness } from '../../src/store/create-witness.js';
import { forceProcFdFallback } from '../../src/store/dir-handle.js';

function folders() {
  const root = mkdtempSync(join(tmpdir(), 'witness-'));
  const kind = join(root, 'notes');
  const staging = join(root, '.staging');
  mkdirSync(kind);
  mkdirSync(staging);
  const at = (dir: string) => ({ listPath: dir, child: (n: string) => join(dir, n) });
  let probes = 0;
  return { kind, staging, k: at(kind), s: at(staging), probe: () => `${process.pid}-${(++probes).toString(16)}.tmp` };
}

/** The save's create: a temporary file in staging, linked into the kind folder, then removed. */
function create(f: ReturnType<typeof folders>, name: string) {
  writeFileSync(join(f.staging, 'tmp'), 'body');
  linkSync(join(f.staging, 'tmp'), join(f.kind, name));
  unlinkSync(join(f.staging, 'tmp'));
}

describe('CreateWitness', () => {
  it('proves a lone create: the folder before and after, the file unchanged', async () => {
    const f = folders();
    const w = CreateWitness.start(f.k, f.s)!;
    expect(w).toBeDefined();
    create(f, 'mem_a.md');
    const proof = await w.prove('mem_a.md', f.probe);
    expect(proof).toBeDefined();
    expect(proof!.after.ino).toBe(proof!.before.ino);
    expect(proof!.file.size).toBe(4);
  });

  it('gives no proof when another file appeared in the folder while it was watched', async () => {
    for (const when of ['before', 'after'] as const) {
      const f = folders();
      const w = CreateWitness.start(f.k, f.s)!;
      if (when === 'before') writeFileSync(join(f.kind, 'other.md'), 'x');
      create(f, 'mem_a.md');
      if (when === 'after') writeFileSync(join(f.kind, 'other.md'), 'x');
      expect(await w.prove('mem_a.md', f.probe), when).toBeUndefined();
    }
  });

  it('gives no proof when the new file was written again, or removed, or is missing', async () => {
    const f = folders();
    let w = CreateWitness.start(f.k, f.s)!;
    create(f, 'mem_a.md');
    writeFileSync(join(f.kind, 'mem_a.md'), 'changed');
    expect(await w.prove('mem_a.md', f.probe)).toBeUndefined();
    w = CreateWitness.start(f.k, f.s)!;
    create(f, 'mem_b.md');
    unlinkSync(join(f.kind, 'mem_b.md'));
    expect(await w.prove('mem_b.md', f.probe)).toBeUndefined();
    w = CreateWitness.start(f.k, f.s)!;
    expect(await w.prove('mem_c.md', f.probe)).toBeUndefined();
  });

  it('cannot start without its folders, nor without procfs (not Linux: events may come late or merged)', () => {
    const f = folders();
    expect(CreateWitness.start({ listPath: join(f.kind, 'missing'), child: (n) => n }, f.s)).toBeUndefined();
    expect(CreateWitness.start(f.k, { listPath: join(f.kind, 'missing'), child: (n) => n })).toBeUndefined();
    forceProcFdFallback(true);
    try {
      expect(CreateWitness.start(f.k, f.s)).toBeUndefined();
    } finally {
      forceProcFdFallback(false);
    }
  });
});
