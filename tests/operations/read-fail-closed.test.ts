import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../src/document/parse.js';
import { serializeMemory } from '../../src/document/serialize.js';
import { parseMemoryFast } from '../../src/scanner/fast-parse.js';
import { scanVault } from '../../src/scanner/scan-vault.js';
import { resolveRoots } from '../../src/store/roots.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { readMemory } from '../../src/operations/read.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { validMemory } from '../helpers/arbitraries.js';
import { memoryText } from '../helpers/corpus-vault.js';

function put(repo: string, vaultPath: string, text: string | Buffer): void {
  const file = join(repo, '.ecc/memory', vaultPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function rootsOf(repo: string) {
  return resolveRoots(nodeRuntime({ cwd: repo, env: {}, home: tempDir() }));
}

describe('fail-closed reads', () => {
  it('vault read: found when complete, "incomplete" (exit 6) with an invalid file, "ambiguous" (exit 5) for two claims', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    put(repo, 'team/notes/mem_fc_one.md', memoryText({ id: 'mem_fc_one' }, 'One.'));
    expect((await runCli(['read', 'mem_fc_one'], { cwd: repo, env })).code).toBe(0);
    const missing = await runCli(['read', 'mem_fc_missing', '--json'], { cwd: repo, env });
    expect(missing.code).toBe(4);
    expect(JSON.parse(missing.stdout).error.code).toBe('not-found');
    // a symlink alone does not make reads incomplete (it is reported by doctor)
    symlinkSync('/etc/hostname', join(repo, '.ecc/memory/team/notes/mem_fc_link.md'));
    expect((await runCli(['read', 'mem_fc_one'], { cwd: repo, env })).code).toBe(0);
    // an invalid file that holds the id: neither "found" nor "not found" can be trusted for it;
    // an unrelated read is not blocked
    put(repo, 'project/notes/mem_fc_broken.md', '---\nid: "mem_fc_missing"\n');
    expect((await runCli(['read', 'mem_fc_one'], { cwd: repo, env })).code).toBe(0);
    for (const id of ['mem_fc_missing']) {
      const r = await runCli(['read', id, '--json'], { cwd: repo, env });
      expect(r.code).toBe(6);
      const err = JSON.parse(r.stdout).error;
      expect(err.code).toBe('read-incomplete');
      expect(err.message).not.toMatch(/not found/);
    }
    // only the scanned scopes count: the broken file is in project scope
    expect((await runCli(['read', 'mem_fc_one', '--scope', 'team'], { cwd: repo, env })).code).toBe(0);
    put(repo, 'project/notes/mem_fc_broken.md', memoryText({ id: 'mem_fc_one', scope: 'project' }, 'Second claim.'));
    const amb = await runCli(['read', 'mem_fc_one', '--json'], { cwd: repo, env });
    expect(amb.code).toBe(5);
    expect(JSON.parse(amb.stdout).error).toMatchObject({ code: 'ambiguous' });
    expect(JSON.parse(amb.stdout).error.message).toContain('project/notes/mem_fc_broken.md');
  });

  it('a scan bound (entries, depth, bytes) makes lookups incomplete, and doctor reports it', async () => {
    const repo = gitRepo();
    for (let i = 0; i < 5; i++) put(repo, `team/notes/mem_fc_n${i}.md`, memoryText({ id: `mem_fc_n${i}` }, `Note ${i}.`));
    put(repo, 'team/notes/a/b/c/mem_fc_deep.md', memoryText({ id: 'mem_fc_deep' }, 'Deep.'));
    const roots = rootsOf(repo);
    expect(scanVault(roots).complete).toBe(true);
    for (const limits of [{ maxEntries: 3 }, { maxDepth: 2 }, { maxTotalBytes: 1000 }]) {
      const scan = scanVault(roots, { limits });
      expect(scan.complete).toBe(false);
      expect(scan.incompleteReasons.length).toBeGreaterThan(0);
      expect(() => readMemory(roots, 'mem_fc_n0', { limits })).toThrow(expect.objectContaining({ code: 'read-incomplete' }));
      expect(() => readMemory(roots, 'mem_fc_nope', { limits })).toThrow(expect.objectContaining({ code: 'read-incomplete' }));
      const { runDoctor } = await import('../../src/doctor/run-doctor.js');
      const report = await runDoctor(roots, { limits, checkIndex: false });
      expect(report.complete).toBe(false);
      expect(report.problems.map((p) => p.code)).toContain('scan-incomplete');
      expect(report.ok).toBe(false);
    }
  });

  it('hidden folders, dotfiles and editor files are never memories, never problems', async () => {
    const repo = gitRepo();
    put(repo, 'team/notes/mem_fc_ok.md', memoryText({ id: 'mem_fc_ok' }, 'ok'));
    put(repo, 'team/.obsidian/workspace.json', '{}');
    put(repo, 'team/.trash/garbage.md', 'not a memory');
    put(repo, 'team/.index/data.bin', Buffer.from([0, 1, 2]));
    put(repo, 'team/notes/.hidden.md', 'not a memory');
    put(repo, 'team/notes/map.canvas', '{}');
    put(repo, 'team/notes/db.base', 'views: []');
    put(repo, 'team/notes/Drawing.excalidraw.md', '---\nexcalidraw-plugin: parsed\n---\n');
    const scan = scanVault(rootsOf(repo));
    expect(scan.entries.map((e) => e.memory.id)).toEqual(['mem_fc_ok']);
    expect(scan.invalid).toEqual([]);
    expect(scan.strays).toEqual([]);
    expect(scan.editorFiles.sort()).toEqual(['team/notes/Drawing.excalidraw.md', 'team/notes/db.base', 'team/notes/map.canvas']);
    expect(scan.hiddenSkipped).toBe(4);
    expect(scan.complete).toBe(true);
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, problems: [], counts: { ignored: 7, memories: 1 } });
  });
});

describe('read precision (property)', () => {
  type Bad = { name: string; text: string | Buffer; holds: boolean };
  const ID = 'mem_prop_target';
  const MISSING = 'mem_prop_absent';
  const junk = fc
    .array(fc.constantFrom('alpha', 'title: [x', '---', 'kind: note', 'id: "mem_other_one"', 'body', '\n'), { maxLength: 6 })
    .map((w) => w.join('\n'));
  /** an invalid file that could be memory `id`, in one of the ways the rule lists */
  const holding = (id: string): fc.Arbitrary<Bad> =>
    fc.oneof(
      junk.map((j) => ({ name: `${id}.md`, text: `---\n${j}`, holds: true })),
      junk.map((j) => ({ name: 'claims.md', text: `---\nid: "${id}"\ntitle: [unclosed\n${j}`, holds: true })),
      junk.map((j) => ({ name: 'mentions.md', text: `${j}\nsee ${id}\n`, holds: true })),
      junk.map((j) => ({ name: 'escaped.md', text: `---\nid: "mem\\u005fprop"\n${j}`, holds: true })),
      junk.map((j) => ({ name: 'binary.md', text: Buffer.concat([Buffer.from(`---\n${j}`), Buffer.from([0xff, 0xfe, 0x00])]), holds: true })),
    );
  const unrelated: fc.Arbitrary<Bad> = junk.map((j) => ({ name: 'unrelated.md', text: `---\n${j}\n`, holds: false }));

  it('"incomplete" exactly when an invalid file could be the memory asked for; unrelated broken files never block', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(holding(ID), holding(MISSING), unrelated), { maxLength: 4 }), async (bads) => {
        const repo = gitRepo();
        put(repo, `team/notes/${ID}.md`, memoryText({ id: ID }, 'The target.'));
        for (const [i, b] of bads.entries()) put(repo, `team/notes/b${i}/${b.name}`, b.text);
        const roots = rootsOf(repo);
        const blocks = (id: string) =>
          bads.some((b) => b.holds && (b.name.startsWith(id) || (typeof b.text === 'string' ? b.text.includes(id) || b.text.includes('\\u005f') : true)));
        const outcome = (id: string) => {
          try {
            readMemory(roots, id, { scopes: ['team'] });
            return 'found';
          } catch (err) {
            return (err as { code: string }).code;
          }
        };
        expect(outcome(ID)).toBe(blocks(ID) ? 'read-incomplete' : 'found');
        expect(outcome(MISSING)).toBe(blocks(MISSING) ? 'read-incomplete' : 'not-found');
        // the scan-based lookup (MCP) applies the same rule
        const { readFromScan } = await import('../../src/operations/read.js');
        const scan = scanVault(roots, { scopes: ['team'] });
        const viaScan = (id: string) => {
          try {
            readFromScan(roots, scan, id);
            return 'found';
          } catch (err) {
            return (err as { code: string }).code;
          }
        };
        expect(viaScan(ID)).toBe(outcome(ID));
        expect(viaScan(MISSING)).toBe(outcome(MISSING));
      }),
      { numRuns: 15 },
    );
  }, 60_000);
});

describe('scanner fast path', () => {
  it('answers exactly as parseMemory for canonical documents, in both list spellings', () => {
    fc.assert(
      fc.property(validMemory, fc.constantFrom(', ', ','), (m, sep) => {
        const text = serializeMemory(m, { listSeparator: sep as ', ' | ',' });
        const bytes = Buffer.from(text, 'utf8');
        expect(parseMemoryFast(bytes)).toEqual(parseMemory(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('falls back to parseMemory for anything else (same result or same error)', () => {
    const variants = (t: string) => [
      t,
      `\uFEFF${t}`,
      t.replace(/\n/g, '\r\n'),
      t.replace('---\n\n', '---\n'),
      t.replace('"note"', '"nope"'),
      t.replace('tags: []', 'tags:\n  - a'),
      t.slice(0, 40),
      '',
    ];
    for (const text of variants(memoryText({ id: 'mem_fast_path' }, 'Body.'))) {
      const bytes = Buffer.from(text, 'utf8');
      let want: unknown;
      try {
        want = parseMemory(bytes);
      } catch (e) {
        want = { code: (e as { code: string }).code };
      }
      let got: unknown;
      try {
        got = parseMemoryFast(bytes);
      } catch (e) {
        got = { code: (e as { code: string }).code };
      }
      expect(got).toEqual(want);
    }
  });
});
