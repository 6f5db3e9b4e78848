/**
 * The pieces of the session-start path that were made fast: the snapshot index (line format,
 * names line, older formats converted), the memory title list (frontmatter values from the raw
 * bytes) and the redaction shortcut. Each must give what the plain way gives.
 */
import fc from 'fast-check';
import { mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../../src/io/runtime.js';
import { detectSecrets } from '../../../src/secrets/detect-secrets.js';
import { redactSecretShapes } from '../../../src/secrets/scan-secrets.js';
import { listMemoryPointers } from '../../../src/sessions/start/memory-titles.js';
import { renderSnapshot, type SessionSnapshot } from '../../../src/sessions/snapshots/snapshot.js';
import { discoverSnapshot, indexSnapshot, readSnapshotIndex } from '../../../src/sessions/snapshots/snapshot-index.js';
import { redact } from '../../../src/sessions/transcripts/text.js';
import type { VaultRoots } from '../../../src/store/roots.js';
import { tempDir } from '../../helpers/cli.js';

const rt = nodeRuntime();
const DAY = 86_400_000;

function snapshot(i: number, worktree: string): SessionSnapshot {
  return {
    project: 'p',
    worktree,
    repo: `${worktree}/.git`,
    branch: `b${i}`,
    sessionId: `s${i}`,
    shortId: `0000000${i}`.slice(-8),
    harness: 'claude-code',
    transcript: undefined,
    startedAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T11:00:00.000Z',
    lastEvent: 'stop',
    updates: 1,
    goal: `goal ${i}`,
    requests: [],
    notes: [],
    files: [],
    commands: [],
    openItems: [],
    problems: [],
    lastState: undefined,
    readNote: undefined,
  };
}

/** Writes snapshot `i` of `worktree`, `ageMin` minutes old. */
function put(dir: string, i: number, worktree: string, ageMin: number): string {
  const s = snapshot(i, worktree);
  const name = `2026-11-01-${s.shortId}-session.tmp`;
  writeFileSync(join(dir, name), renderSnapshot(s));
  const t = new Date(Date.now() - ageMin * 60_000);
  utimesSync(join(dir, name), t, t);
  return name;
}

const find = (dir: string, w: string) => discoverSnapshot(dir, { worktree: w, repo: `${w}/.git` }, rt, { maxAgeMs: 7 * DAY, retentionDays: 30, find: true });

describe('snapshot index', () => {
  it('finds the newest snapshot of the worktree from a fresh, a current and an updated index', () => {
    const dir = tempDir();
    for (let i = 1; i <= 6; i++) put(dir, i, i % 2 ? '/w/a' : '/w/b', i);
    expect(find(dir, '/w/a').found?.snapshot.goal).toBe('goal 1'); // no index yet: headers read
    const text = readFileSync(join(dir, '.snapshot-index.json'), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^vault-snapshot-index 3 \d+$/);
    expect(text.split('\n')[1]).toBe(['1', '2', '3', '4', '5', '6'].map((n) => `2026-11-01-0000000${n}-session.tmp`).join(' '));
    expect(find(dir, '/w/b').found?.snapshot.goal).toBe('goal 2'); // names line matches: own lines only
    expect(find(dir, '/w/c').found).toBeUndefined();
    put(dir, 7, '/w/b', 0); // a snapshot the index does not know yet
    expect(find(dir, '/w/b').found?.snapshot.goal).toBe('goal 7');
    expect(readFileSync(join(dir, '.snapshot-index.json'), 'utf8').split('\n')[1]).toContain('2026-11-01-00000007-session.tmp');
  });

  it('a wrong entry hides a snapshot at worst, never shows a foreign one; indexSnapshot corrects it', () => {
    const dir = tempDir();
    const mine = put(dir, 1, '/w/a', 5);
    put(dir, 2, '/w/b', 1);
    find(dir, '/w/a');
    const text = readFileSync(join(dir, '.snapshot-index.json'), 'utf8');
    // claim that b's snapshot belongs to a, and a's to nobody present
    writeFileSync(
      join(dir, '.snapshot-index.json'),
      text.replace('"/w/b"', '"/w/a"').replace(/\["\/w\/a","\/w\/a\/.git",\["2026-11-01-00000001/, '["/elsewhere",null,["2026-11-01-00000001'),
    );
    expect(find(dir, '/w/a').found).toBeUndefined(); // b's file is read, found foreign, never shown
    indexSnapshot(dir, mine, { worktree: '/w/a', repo: '/w/a/.git' }, rt);
    expect(find(dir, '/w/a').found?.snapshot.goal).toBe('goal 1');
  });

  it('reads the JSON formats of earlier versions and rewrites them; garbage is rebuilt', () => {
    const dir = tempDir();
    const a = put(dir, 1, '/w/a', 2);
    const b = put(dir, 2, '/w/b', 1);
    writeFileSync(
      join(dir, '.snapshot-index.json'),
      JSON.stringify({ v: 1, prunedAt: Date.now(), names: { [a]: { w: '/w/a', r: '/w/a/.git' }, [b]: { w: '/w/b', r: '/w/b/.git' } } }),
    );
    expect(readSnapshotIndex(dir).trees).toHaveLength(2);
    expect(find(dir, '/w/a').found?.snapshot.goal).toBe('goal 1');
    expect(readFileSync(join(dir, '.snapshot-index.json'), 'utf8')).toMatch(/^vault-snapshot-index 3 /);
    writeFileSync(
      join(dir, '.snapshot-index.json'),
      JSON.stringify({ v: 2, prunedAt: Date.now(), trees: [{ w: '/w/b', r: '/w/b/.git' }], names: { [a]: 0, [b]: 7 } }),
    );
    expect(find(dir, '/w/b').found?.snapshot.goal).toBe('goal 2'); // b's position is out of range: its header is read
    expect(find(dir, '/w/a').found).toBeUndefined(); // v2 claimed a is b's: hidden, never shown as b's
    for (const junk of ['vault-snapshot-index 3 x\n', 'vault-snapshot-index 3 0\nnames\n["/w/a",', '\u0000', '{"v":9}']) {
      writeFileSync(join(dir, '.snapshot-index.json'), junk);
      expect(find(dir, '/w/b').found?.snapshot.goal).toBe('goal 2');
    }
  });

  it('indexSnapshot leaves an index that already records the name alone, and records a new one', () => {
    const dir = tempDir();
    const a = put(dir, 1, '/w/a', 2);
    find(dir, '/w/a');
    const file = join(dir, '.snapshot-index.json');
    const { ino } = statSync(file); // a rewrite (work file renamed over it) changes the inode
    indexSnapshot(dir, a, { worktree: '/w/a', repo: '/w/a/.git' }, rt);
    expect(statSync(file).ino).toBe(ino);
    indexSnapshot(dir, a, { worktree: '/w/a', repo: '/w/other/.git' }, rt); // another repo: recorded anew
    expect(statSync(file).ino).not.toBe(ino);
    const b = put(dir, 2, '/w/b', 1);
    indexSnapshot(dir, b, { worktree: '/w/b', repo: '/w/b/.git' }, rt);
    expect(readFileSync(file, 'utf8')).toContain('["/w/b","/w/b/.git",["2026-11-01-00000002-session.tmp"]]');
    expect(find(dir, '/w/b').found?.snapshot.goal).toBe('goal 2');
  });

  it('prunes past the retention at most once an hour, and a removed snapshot leaves the index', () => {
    const dir = tempDir();
    put(dir, 1, '/w/a', 40 * 24 * 60);
    put(dir, 2, '/w/a', 3);
    const d = find(dir, '/w/a');
    expect(d.pruned).toBe(1);
    expect(d.count).toBe(1);
    expect(readFileSync(join(dir, '.snapshot-index.json'), 'utf8').split('\n')[1]).toBe('2026-11-01-00000002-session.tmp');
  });
});

describe('memory title list', () => {
  function vault(files: Record<string, string>): VaultRoots {
    const root = tempDir();
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    return { team: join(root, 'team'), project: join(root, 'project'), user: join(root, 'user') } as unknown as VaultRoots;
  }
  const doc = (id: string, title: string, extra = '', body = 'Body.') =>
    `---\nschema: "ecc.memory.v1"\nid: "${id}"\ntitle: ${JSON.stringify(title)}\nkind: "decision"\nscope: "team"\nstatus: "active"\ntags: ["cache"]\n${extra}updated_at: "2026-11-0${id.slice(-1)}T00:00:00.000Z"\n---\n\n${body}\n`;

  it('takes id, title, kind and status from the frontmatter only, ranks by shared words then recency', () => {
    const roots = vault({
      'team/decisions/mem_a1.md': doc('mem_aaa1', 'Login cache layout'),
      'team/decisions/mem_a2.md': doc('mem_aaa2', 'Deploy “quoted” \\"escapes\\" é'),
      'team/decisions/mem_a3.md': doc('mem_aaa3', 'Rejected idea').replace('"active"', '"rejected"'),
      'team/decisions/mem_a4.md': `---\nid: "mem_aaa4"\ntitle: "No status"\n---\nstatus: "active"\n`, // a body line is not frontmatter
      'team/decisions/mem_a5.md': doc('mem_aaa5', 'Plain YAML').replace('title: "Plain YAML"', 'title: Plain YAML'), // not canonical: skipped
      'team/decisions/mem_a6.md': doc('mem_aaa6', 'Unicode café naïve'),
      'project/notes/mem_b7.md': doc('mem_bbb7', 'Project note').replace('"decision"', '"note"'),
    });
    symlinkSync(join(roots.team, 'decisions', 'mem_a1.md'), join(roots.team, 'decisions', 'mem_link.md'));
    symlinkSync(join(roots.team, 'decisions'), join(roots.project, 'decisions')); // a linked kind folder is not followed
    const list = listMemoryPointers(roots, ['project', 'team'], 'make the login cache fast; café', { limit: 10, maxFiles: 400 });
    // login + cache, café + cache (newer first), then one shared word each (newer first)
    expect(list.map((m) => m.id)).toEqual(['mem_aaa6', 'mem_aaa1', 'mem_bbb7', 'mem_aaa2']);
    expect(list[1]).toEqual({ id: 'mem_aaa1', title: 'Login cache layout', kind: 'decision', scope: 'team' });
    expect(list.find((m) => m.id === 'mem_aaa2')?.title).toBe('Deploy “quoted” \\"escapes\\" é'); // JSON escapes decoded
    expect(list.find((m) => m.id === 'mem_bbb7')).toMatchObject({ kind: 'note', scope: 'project' });
  });

  it('gives what a full parse of every head gives (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ title: fc.string({ minLength: 1, maxLength: 40 }), active: fc.boolean() }), { minLength: 1, maxLength: 6 }), (items) => {
        const files: Record<string, string> = {};
        items.forEach((it, i) => {
          files[`team/decisions/mem_x${i}.md`] = doc(`mem_xxx${i}`, it.title).replace('"active"', it.active ? '"active"' : '"superseded"');
        });
        const got = listMemoryPointers(vault(files), ['team'], '', { limit: 10, maxFiles: 400 });
        const want = items
          .map((it, i) => ({ id: `mem_xxx${i}`, title: it.title, active: it.active }))
          .filter((m) => m.active)
          .sort((a, b) => (a.id < b.id ? 1 : -1)); // equal scores: newest updated_at first
        expect(got.map((m) => [m.id, m.title])).toEqual(want.map((m) => [m.id, m.title]));
      }),
      { numRuns: 30 },
    );
  });
});

describe('redaction shortcut', () => {
  it('the prefilter and the anchors change no result: the same as running every shape and trigger (property, with secret-like pieces)', () => {
    const pieces = [
      'sk-',
      'SK-',
      'sk_live_',
      'npm_',
      'hf_',
      'ghp_',
      'github_pat_',
      'glpat-',
      'AIza',
      'xoxb-',
      'hooks.slack.com/services/T1/B2/x',
      'AKIA',
      'ASIA',
      '-----BEGIN RSA PRIVATE KEY-----',
      '-----END RSA PRIVATE KEY-----',
      'a',
      'Z',
      '0',
      '_',
      '-',
      ' ',
      '\n',
    ];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.stringMatching(/^[A-Za-z0-9]{1,24}$/)), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(redact(text)).toBe(redactSecretShapes(text).text);
        expect(detectSecrets(text)).toEqual(detectSecrets(text, { exhaustive: true }));
      }),
      { numRuns: 400 },
    );
  });
});
