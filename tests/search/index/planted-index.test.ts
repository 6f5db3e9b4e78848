/**
 * A planted or damaged index (shapes that pass the JSON parse but not the types the search reads,
 * crafted counts, symbolic links) must never crash, hang or steer a search: it is rebuilt from the
 * Markdown files, and only memories in the vault are returned.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../../src/document/serialize.js';
import { bucketFileName, bucketOf, IndexUnusable } from '../../../src/search/index/index-format.js';
import { BucketReader, encodeBucket } from '../../../src/search/index/postings.js';
import { cliEnv, gitRepo, runBin, tempDir } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';
import { editStateLine, plantOverlayDoc, STATE_FILE, stateLine } from '../../helpers/state-file.js';

type Json = { results: Array<{ id: string; title: string; path: string }>; diagnostics: { index: Array<{ action: string; reason?: string }> } };

const teamIndex = (repo: string) => join(repo, '.git', 'ecc-memory-index', 'team');
const statePath = (repo: string) => join(teamIndex(repo), STATE_FILE);
const generationDir = (repo: string) => join(teamIndex(repo), `g-${stateLine(statePath(repo)).generation}`);

/**
 * Rewrites docs.bin (layout: src/search/index/generation-docs.ts) with its JSON header and its
 * sections edited; `edit` gets the header, the sections' bytes and where each section starts.
 */
function editDocs(file: string, edit: (header: any, body: Buffer, at: Record<string, number>) => unknown): void {
  const buf = readFileSync(file);
  const h = buf.readUInt32LE(8);
  const header = JSON.parse(buf.toString('utf8', 12, 12 + h));
  const align = (n: number) => Math.ceil(n / 8) * 8;
  const body = Buffer.from(buf.subarray(align(12 + h)));
  const n = header.count;
  const at: Record<string, number> = {};
  let o = 0;
  for (const [name, size] of [
    ['updated', 8 * n],
    ['size', 8 * n],
    ['mtime', 8 * n],
    ['len', 4 * n * 5],
    ['source', 4 * n],
    ['tagStart', 4 * (n + 1)],
    ['tags', 4 * header.tagItems],
    ['targetStart', 4 * (n + 1)],
    ['targets', 4 * header.targetItems],
    ['idEnd', 4 * n],
    ['pathEnd', 4 * n],
    ['linkStart', 4 * (n + 1)],
    ['linkEnd', 4 * header.links],
    ['kind', n],
    ['status', n],
  ] as const) {
    at[name] = o;
    o += size;
  }
  const edited = edit(header, body, at);
  const out = Buffer.isBuffer(edited) ? edited : body;
  const hj = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.from(buf.subarray(0, 12));
  prefix.writeUInt32LE(hj.length, 8);
  writeFileSync(file, Buffer.concat([prefix, hj, Buffer.alloc(align(12 + hj.length) - 12 - hj.length), out]));
}

/** Rewrites the bucket holding `term` with an edited header, keeping docs.bin's byte count of it in step. */
function editBucketHeader(repo: string, term: string, edit: (h: { t: unknown[]; o: unknown[]; n: unknown[] }) => void): void {
  const gen = generationDir(repo);
  const b = bucketOf(term);
  const buf = readFileSync(join(gen, bucketFileName(b)));
  const h = buf.readUInt32LE(0);
  const header = JSON.parse(buf.toString('utf8', 4, 4 + h));
  edit(header);
  const hj = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(hj.length);
  const out = Buffer.concat([len, hj, buf.subarray(4 + h)]);
  writeFileSync(join(gen, bucketFileName(b)), out);
  editDocs(join(gen, 'docs.bin'), (d) => {
    d.buckets[b] = out.length;
  });
}

describe('a planted or damaged index', () => {
  it('is rebuilt, never crashes or hangs a search, and never returns a memory from outside the vault', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const ms = [memory({ title: 'Widget alpha', body: 'widget rollout' }), memory({ title: 'Widget beta', body: 'widget rollback' })];
    putMemories(repo, ...ms);
    // each search a new process of the binary: a process keeps the index generations it loaded
    // (they are immutable), so damage planted under a running one is what a later process meets
    const search = async () => {
      const r = await runBin(['search', 'widget', '--scope', 'team', '--json'], { cwd: repo, env, timeoutMs: 15_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const j = JSON.parse(r.stdout) as Json;
      expect(j.results.map((h) => h.id).sort()).toEqual(ms.map((m) => m.id).sort());
      return j;
    };
    const expectRebuilt = async (plant: () => void) => {
      await search();
      plant();
      expect((await search()).diagnostics.index[0]!.action).toBe('rebuilt');
    };

    // state file overlay entries that are not objects, or records of the wrong shape; terms that
    // are no byte range of the file's terms
    for (const bad of [5, null, 'deleted', { doc: null }, { invalid: { path: 7 } }]) {
      await expectRebuilt(() => editStateLine(statePath(repo), (s) => (s.overlay = { [`notes/${ms[0]!.id}.md`]: bad })));
    }
    // docs.bin: an invalid-file record without a path; truncated; counts that do not match the
    // sections' lengths; offsets and value indexes out of range; an unknown kind; another format
    const docs = () => join(generationDir(repo), 'docs.bin');
    await expectRebuilt(() => editDocs(docs(), (d) => (d.invalid = [null])));
    await expectRebuilt(() => truncateSync(docs(), statSync(docs()).size - 1));
    await expectRebuilt(() => editDocs(docs(), (_, body) => Buffer.concat([body, Buffer.alloc(8)])));
    await expectRebuilt(() => editDocs(docs(), (d) => (d.count = 1e9)));
    await expectRebuilt(() => editDocs(docs(), (d) => (d.idBytes += 1)));
    await expectRebuilt(() => editDocs(docs(), (_, body, at) => body.writeUInt32LE(0xffffffff, at.idEnd!)));
    await expectRebuilt(() => editDocs(docs(), (_, body, at) => body.writeUInt32LE(0xfffffff0, at.tagStart! + 4)));
    await expectRebuilt(() => editDocs(docs(), (_, body, at) => body.writeUInt32LE(0xfffffff0, at.linkStart! + 4)));
    await expectRebuilt(() => editDocs(docs(), (_, body, at) => body.writeUInt32LE(99_999, at.source!)));
    await expectRebuilt(() => editDocs(docs(), (_, body, at) => body.writeUInt8(200, at.kind!)));
    await expectRebuilt(() => editDocs(docs(), (d) => (d.values = [])));
    await expectRebuilt(() => editDocs(docs(), (d) => (d.lenSum = [1, 2])));
    // field sums of the right shape but wrong (not checked against the lengths: that is the pass
    // they save): the ranking still gives finite scores and only the vault's memories
    for (const lenSum of [
      [0, 0, 0, 0, 0],
      [1e15, 1e15, 1e15, 1e15, 1e15],
    ]) {
      editDocs(docs(), (d) => (d.lenSum = lenSum));
      const planted = await search();
      expect(planted.diagnostics.index[0], JSON.stringify(planted.diagnostics.index)).not.toMatchObject({ action: 'rebuilt' });
      expect((planted.results as Array<{ score: number }>).every((h) => Number.isFinite(h.score))).toBe(true);
    }
    await expectRebuilt(() => writeFileSync(docs(), Buffer.alloc(statSync(docs()).size, 0x41)));
    await expectRebuilt(() => {
      const b = readFileSync(docs());
      b.writeUInt32LE(10, 4);
      writeFileSync(docs(), b);
    });
    // bucket headers: a term that is not a string, a document count that would allocate gigabytes
    await expectRebuilt(() => editBucketHeader(repo, 'widget', (h) => (h.t = h.t.map((t) => ({ t })))));
    await expectRebuilt(() => editBucketHeader(repo, 'widget', (h) => (h.n = h.n.map(() => 1e9))));
    // index files and folders reached through symbolic links are not read
    const outside = tempDir('vault-outside-');
    await expectRebuilt(() => {
      const gen = generationDir(repo);
      cpSync(gen, join(outside, 'gen'), { recursive: true });
      rmSync(gen, { recursive: true });
      symlinkSync(join(outside, 'gen'), gen);
    });
    if (process.platform !== 'win32') {
      await expectRebuilt(() => {
        const file = docs();
        rmSync(file);
        symlinkSync('/dev/zero', file);
      });
    }

    // an overlay record whose path leads out of the vault, with the fingerprint of a real file
    await search();
    const real = memoryPath(repo, ms[0]!);
    mkdirSync(join(outside, 'notes'), { recursive: true });
    writeFileSync(join(outside, 'notes', `${ms[0]!.id}.md`), serializeMemory({ ...ms[0]!, title: 'Widget from outside' }));
    const st = statSync(real);
    const key = `notes/${ms[0]!.id}.md`;
    plantOverlayDoc(
      statePath(repo),
      key,
      { path: `${'../'.repeat(8)}${outside.slice(1)}/notes/${ms[0]!.id}.md`, size: st.size, mtime: st.mtimeMs, id: ms[0]!.id },
      '\nwidget\t1,0,0,0,1',
    );
    const after = await search();
    expect(after.results.map((h) => h.title)).not.toContain('Widget from outside');
    expect(after.results.every((h) => !h.path.includes('..'))).toBe(true);
  });

  it('a bucket header with impossible counts or offsets is refused before anything is allocated', () => {
    const good = encodeBucket(new Map([['widget', [0, 0, 1, 1, 4, 2]]]));
    expect(new BucketReader(good, 2).postings(0)[0]!.docs).toEqual(Int32Array.from([0]));
    const withHeader = (edit: (h: any) => void) => {
      const h = good.readUInt32LE(0);
      const header = JSON.parse(good.toString('utf8', 4, 4 + h));
      edit(header);
      const hj = Buffer.from(JSON.stringify(header));
      const len = Buffer.alloc(4);
      len.writeUInt32LE(hj.length);
      return Buffer.concat([len, hj, good.subarray(4 + h)]);
    };
    for (const edit of [
      (h: any) => (h.n = [1e9]),
      (h: any) => (h.n = [-1]),
      (h: any) => (h.n = [1.5]),
      (h: any) => (h.n = [3]),
      (h: any) => (h.t = [5]),
      (h: any) => (h.o = ['4']),
    ]) {
      expect(() => new BucketReader(withHeader(edit), 2)).toThrow(IndexUnusable);
    }
  });
});
