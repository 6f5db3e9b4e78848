/**
 * The caches of session start, at the library level: start records (src/sessions/start/start-cache.ts)
 * and the per-folder memory title cache (src/sessions/start/memory-titles.ts), against stale,
 * concurrent, racy and forged states.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../../src/io/runtime.js';
import { listMemoryPointers, type ListProof } from '../../../src/sessions/start/memory-titles.js';
import { renderSnapshot, type SessionSnapshot } from '../../../src/sessions/snapshots/snapshot.js';
import { readStartRecord, startFromRecord, writeStartRecord } from '../../../src/sessions/start/start-cache.js';
import type { VaultRoots } from '../../../src/store/roots.js';
import { tempDir } from '../../helpers/cli.js';

const rt = nodeRuntime();
const KEY = { worktree: '/w/a', repo: '/w/a/.git' };
const DAY = 86_400_000;
const at = (p: string, ms: number) => utimesSync(p, new Date(ms), new Date(ms));

function snapshot(shortId: string, goal: string): SessionSnapshot {
  return {
    project: 'a',
    worktree: KEY.worktree,
    repo: KEY.repo,
    branch: 'main',
    sessionId: `s-${shortId}`,
    shortId,
    harness: 'claude-code',
    transcript: undefined,
    startedAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T11:00:00.000Z',
    lastEvent: 'stop',
    updates: 1,
    goal,
    requests: [],
    notes: [],
    files: [],
    commands: [],
    openItems: [],
    problems: [],
    lastState: undefined,
    readNote: undefined,
  } as SessionSnapshot;
}

/** Writes a snapshot file; its mtime `agoMs` before now. */
function put(dir: string, shortId: string, goal: string, agoMs: number): string {
  const name = `2026-11-01-${shortId}-session.tmp`;
  writeFileSync(join(dir, name), renderSnapshot(snapshot(shortId, goal)), { mode: 0o600 });
  at(join(dir, name), Date.now() - agoMs);
  return name;
}

const mtimeOf = (p: string) => lstatSync(p).mtimeMs;

describe('start records', () => {
  it('are trusted only while the sessions folder is unchanged since the snapshot was written', () => {
    const dir = tempDir();
    const a = put(dir, 'aaaaaaaa', 'goal a', 60_000);
    mkdirSync(join(dir, '.start')); // as the hook does before it reads the folder's time
    const m = mtimeOf(dir);
    expect(m % 1000).not.toBe(0); // this file system keeps sub-second times
    writeStartRecord(dir, KEY, a, m, null, rt);
    const record = readStartRecord(dir, KEY);
    expect(startFromRecord(dir, record!, KEY, Date.now(), 7 * DAY)?.snapshot.goal).toBe('goal a');
    put(dir, 'bbbbbbbb', 'goal b', 0); // another session of the same worktree, newer
    expect(startFromRecord(dir, record!, KEY, Date.now(), 7 * DAY)).toBeUndefined();
  });

  it('a slower writer never replaces the record of a newer snapshot of the same worktree', () => {
    const dir = tempDir();
    const older = put(dir, 'aaaaaaaa', 'goal a', 60_000);
    const newer = put(dir, 'bbbbbbbb', 'goal b', 1_000);
    writeStartRecord(dir, KEY, newer, 1_796_000_000_123.5, null, rt);
    writeStartRecord(dir, KEY, older, 1_796_000_000_456.5, null, rt); // finished last, wrote first
    expect(readStartRecord(dir, KEY)?.snapshot).toBe(newer);
  });

  it('are not written where the file system keeps whole-second times', () => {
    const dir = tempDir();
    const a = put(dir, 'aaaaaaaa', 'goal a', 60_000);
    writeStartRecord(dir, KEY, a, 1_796_000_000_000, null, rt);
    expect(readStartRecord(dir, KEY)).toBeUndefined();
  });

  it('a memory list that does not say what it was made from is never reused', () => {
    const dir = tempDir();
    const a = put(dir, 'aaaaaaaa', 'goal a', 60_000);
    const list = [{ id: 'mem_forged1', title: 'Forged title', kind: 'decision', scope: 'team' }];
    const roots: [string, string] = ['/v/project', '/v/team'];
    const forged = (proof: ListProof) => {
      writeStartRecord(dir, KEY, a, 1_796_000_000_123.5, { roots, context: '00000000', proof, list }, rt);
      return readStartRecord(dir, KEY)?.memories;
    };
    expect(forged({ folders: [], files: [], complete: true })).toBeNull();
    expect(
      forged({
        folders: [
          [roots[0], -1],
          [roots[1], 5],
        ],
        files: [],
        complete: true,
      }),
    ).toBeNull();
    expect(
      forged({
        folders: [
          [roots[0], -1],
          [roots[1], 5],
        ],
        files: [['/v/team/decisions/other.md', 1, 2]],
        complete: true,
      }),
    ).toBeNull();
    expect(
      forged({
        folders: [
          [roots[0], -1],
          [roots[1], 5],
        ],
        files: [['/v/team/../../etc/mem_forged1.md', 1, 2]],
        complete: true,
      }),
    ).toBeNull();
    expect(
      forged({
        folders: [
          [roots[0], -1],
          [roots[1], 5],
          ['/elsewhere', 5],
        ],
        files: [['/v/team/decisions/mem_forged1.md', 1, 2]],
        complete: true,
      }),
    ).toBeNull();
    expect(
      forged({
        folders: [
          [roots[0], -1],
          [roots[1], 5],
        ],
        files: [['/v/team/decisions/mem_forged1.md', 1, 2]],
        complete: true,
      })?.list,
    ).toEqual(list);
  });
});

describe('memory title cache', () => {
  const doc = (id: string, title: string, status = 'active') =>
    `---\nschema: "ecc.memory.v1"\nid: "${id}"\ntitle: ${JSON.stringify(title)}\nkind: "decision"\nscope: "team"\nstatus: "${status}"\ntags: ["cache"]\nupdated_at: "2026-11-01T00:00:00.000Z"\n---\n\nBody.\n`;
  function vault(): { roots: VaultRoots; folder: string } {
    const root = tempDir();
    const folder = join(root, 'team', 'decisions');
    mkdirSync(folder, { recursive: true });
    mkdirSync(join(root, 'project'));
    return { roots: { team: join(root, 'team'), project: join(root, 'project'), user: join(root, 'user') } as unknown as VaultRoots, folder };
  }
  const list = (roots: VaultRoots, sessions: string) =>
    listMemoryPointers(roots, ['project', 'team'], 'cache', { limit: 5, maxFiles: 400, cache: { dir: sessions, rt } });

  it('never reuses an entry read within the racy window, even with the same size and mtime later', () => {
    const { roots, folder } = vault();
    const sessions = tempDir();
    const file = join(folder, 'mem_race1.md');
    writeFileSync(file, doc('mem_race1', 'Cache plan AAAA'));
    const t = Date.now() - 500; // within the racy window when read
    at(file, t);
    expect(list(roots, sessions)[0]?.title).toBe('Cache plan AAAA');
    writeFileSync(file, doc('mem_race1', 'Cache plan BBBB')); // same size, edited in the same tick
    at(file, t);
    expect(list(roots, sessions)[0]?.title).toBe('Cache plan BBBB');
  });

  it('is read safely: a FIFO in its place neither blocks nor breaks the list', () => {
    const { roots, folder } = vault();
    writeFileSync(join(folder, 'mem_fifo1.md'), doc('mem_fifo1', 'Cache fifo'));
    const sessions = tempDir();
    mkdirSync(join(sessions, '.start'));
    expect(spawnSync('mkfifo', [join(sessions, '.start', 'memory-titles.json')]).status).toBe(0);
    const started = Date.now();
    expect(list(roots, sessions).map((m) => m.title)).toEqual(['Cache fifo']);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a forged cache cannot point outside the vault', () => {
    const { roots, folder } = vault();
    writeFileSync(join(folder, 'mem_real1.md'), doc('mem_real1', 'Cache real'));
    const outside = join(roots.team, '..', '..');
    writeFileSync(join(outside, 'mem_outside.md'), doc('mem_outside', 'Cache from outside'));
    const sessions = tempDir();
    mkdirSync(join(sessions, '.start'));
    const team = roots.team;
    const old = Date.now() - 60_000;
    at(folder, old);
    at(team, old);
    const forged = (dirs: Record<string, unknown>) => {
      writeFileSync(join(sessions, '.start', 'memory-titles.json'), JSON.stringify({ v: 2, dirs }));
      return list(roots, sessions).map((m) => m.title);
    };
    const listed = ['mem_outside.md', 1, 2, ['mem_outside', 'Cache from outside', 'decision', '', 'cache']];
    expect(forged({ [team]: { m: mtimeOf(team), files: [], dirs: ['..'] } })).toEqual(['Cache real']);
    expect(forged({ [team]: { m: mtimeOf(team), files: [listed], dirs: ['decisions'] } })).toEqual(['Cache real']);
    expect(forged({ [folder]: { m: mtimeOf(folder), files: [['../../mem_outside.md', 1, 2, listed[3]]], dirs: [] } })).toEqual(['Cache real']);
    expect(forged({ [team]: { m: mtimeOf(team), files: [], dirs: ['decisions/../..'] } })).toEqual(['Cache real']);
    expect(forged({ [team]: { m: mtimeOf(team), files: [], dirs: ['decisions', '../..'] } })).toEqual(['Cache real']);
  });

  it('keeps the folders of another vault, so two repositories used in turn are not read again', () => {
    const a = vault();
    const b = vault();
    writeFileSync(join(a.folder, 'mem_vaulta.md'), doc('mem_vaulta', 'Cache A'));
    writeFileSync(join(b.folder, 'mem_vaultb.md'), doc('mem_vaultb', 'Cache B'));
    const old = Date.now() - 60_000;
    for (const v of [a, b]) for (const p of [join(v.folder, v === a ? 'mem_vaulta.md' : 'mem_vaultb.md'), v.folder, v.roots.team, v.roots.project]) at(p, old);
    const sessions = tempDir();
    list(a.roots, sessions);
    list(b.roots, sessions);
    const cache = JSON.parse(readFileSync(join(sessions, '.start', 'memory-titles.json'), 'utf8')) as { dirs: Record<string, { m: number }> };
    expect(cache.dirs[a.folder]?.m).toBe(mtimeOf(a.folder));
    expect(cache.dirs[b.folder]?.m).toBe(mtimeOf(b.folder));
    const before = mtimeOf(join(sessions, '.start', 'memory-titles.json'));
    expect(list(a.roots, sessions).map((m) => m.title)).toEqual(['Cache A']);
    expect(mtimeOf(join(sessions, '.start', 'memory-titles.json'))).toBe(before); // nothing to rewrite
  });
});
