/**
 * Check-then-use races on paths, deterministic (hardening item 2): a kind folder is swapped for a
 * symbolic link to a look-alike folder outside the vault at one fixed point of a write (right
 * before the rename or link that makes the file visible), through a hook on node:fs. With procfs
 * the write goes through the folder's handle and lands in the real folder; with the fallback
 * (`ECC_VAULT_NO_PROCFD=1`) the write is checked before and undone after, so nothing the vault
 * wrote is left outside. The random swapper of path-races.test.ts is the probabilistic twin.
 */
import * as realFs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

const hook = vi.hoisted(() => ({
  /** runs once, right before the first rename/link (its source path) or unlink that matches `match` */
  match: undefined as RegExp | undefined,
  run: undefined as ((from: string, to: string) => void) | undefined,
  /** matching calls to let pass before the hook runs */
  skip: 0,
  /** with `opens`: also an openSync of a matching path is a fixed point */
  opens: false,
  /** called with every descriptor openSync returns */
  onOpen: undefined as ((fd: number) => void) | undefined,
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fire = (from: unknown, to: unknown) => {
    if (hook.run && hook.match?.test(String(from))) {
      if (hook.skip-- > 0) return;
      const run = hook.run;
      hook.run = undefined;
      run(String(from), String(to));
    }
  };
  const renameSync = (from: realFs.PathLike, to: realFs.PathLike) => {
    fire(from, to);
    return fs.renameSync(from, to);
  };
  const linkSync = (from: realFs.PathLike, to: realFs.PathLike) => {
    fire(from, to);
    return fs.linkSync(from, to);
  };
  const unlinkSync = (path: realFs.PathLike) => {
    fire(path, path);
    return fs.unlinkSync(path);
  };
  const openSync = (path: realFs.PathLike, flags?: realFs.OpenMode, mode?: realFs.Mode) => {
    if (hook.opens) fire(path, path);
    const fd = fs.openSync(path, flags, mode);
    hook.onOpen?.(fd);
    return fd;
  };
  return {
    ...fs,
    default: { ...fs, renameSync, linkSync, unlinkSync, openSync },
    renameSync,
    linkSync,
    unlinkSync,
    openSync,
  };
});

const LINUX = process.platform === 'linux';
const CRLF_MEMORY = memoryText({ id: 'mem_swap_fmt' }, 'Inside the vault.').replace(/\n/g, '\r\n');

afterEach(() => {
  hook.run = undefined;
  hook.match = undefined;
  hook.skip = 0;
  hook.opens = false;
  hook.onOpen = undefined;
});

/** Records every open of a file outside the vault (by inode): nothing outside may ever be read. */
function watchOutside(outside: string): string[] {
  const inodes = new Map(realFs.readdirSync(outside).map((n) => [realFs.statSync(join(outside, n)).ino, n]));
  const opened: string[] = [];
  hook.onOpen = (fd) => {
    const name = inodes.get(realFs.fstatSync(fd).ino);
    if (name) opened.push(name);
  };
  return opened;
}

/** Swaps `folder` for a link to `outside` (the real folder moves to `<folder>.real`), planting `plant` there first. */
function swapper(folder: string, outside: string, plant?: (from: string) => string): (from: string) => void {
  return (from) => {
    if (plant) realFs.writeFileSync(join(outside, plant(from)), 'CANARY_PLANTED_BY_THE_SWAPPER');
    realFs.renameSync(folder, `${folder}.real`);
    realFs.symlinkSync(outside, folder);
  };
}

/** A vault with one non-canonical team note, and a look-alike folder outside with the same file name. */
function setup(): { repo: string; notes: string; outside: string } {
  const repo = gitRepo();
  const notes = join(repo, '.ecc/memory/team/notes');
  realFs.mkdirSync(notes, { recursive: true });
  realFs.writeFileSync(join(notes, 'mem_swap_fmt.md'), CRLF_MEMORY);
  const outside = tempDir('vault-outside-');
  realFs.writeFileSync(join(outside, 'mem_swap_fmt.md'), 'OUTSIDE ORIGINAL');
  return { repo, notes, outside };
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

describe.skipIf(!LINUX)('a kind folder swapped for a link at a fixed point of a write', () => {
  it('fmt (procfs): the rename goes through the folder handle; the file outside is never replaced', async () => {
    const { repo, notes, outside } = setup();
    hook.match = /\.ecc-memory-fmt-/;
    hook.run = swapper(notes, outside, basename);
    const r = await runCli(['fmt', '--json'], { cwd: repo, env: cliEnv() });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(realFs.readFileSync(join(outside, 'mem_swap_fmt.md'), 'utf8')).toBe('OUTSIDE ORIGINAL');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(realFs.readFileSync(join(`${notes}.real`, 'mem_swap_fmt.md'), 'utf8')).toBe(CRLF_MEMORY.replace(/\r\n/g, '\n'));
  });

  it('retire (procfs): the rename goes through the folder handle; the file outside is never replaced', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = await runCli(['save', '--scope', 'team', '--kind', 'note', '--title', 'Old note', '--body', 'Old.', '--json'], { cwd: repo, env });
    const id = JSON.parse(saved.stdout).id as string;
    const notes = join(repo, '.ecc/memory/team/notes');
    const outside = tempDir('vault-outside-');
    realFs.writeFileSync(join(outside, `${id}.md`), 'OUTSIDE ORIGINAL');
    hook.match = /\.ecc-memory-retire-/;
    hook.run = swapper(notes, outside, basename);
    const r = await runCli(['retire', id, '--rejected', '--json'], { cwd: repo, env });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(realFs.readFileSync(join(outside, `${id}.md`), 'utf8')).toBe('OUTSIDE ORIGINAL');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(realFs.readFileSync(join(`${notes}.real`, `${id}.md`), 'utf8')).toContain('status: "rejected"');
  });

  it('share (procfs): the project file is removed through its folder handle, never the file behind a link', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const saved = await runCli(['save', '--scope', 'project', '--kind', 'note', '--title', 'To share', '--body', 'Shared.', '--json'], { cwd: repo, env });
    const id = JSON.parse(saved.stdout).id as string;
    const notes = join(repo, '.ecc/memory/project/notes');
    const outside = tempDir('vault-outside-');
    realFs.writeFileSync(join(outside, `${id}.md`), 'OUTSIDE ORIGINAL');
    // the project file's removal is the fixed point: the project folder is swapped right before it
    hook.match = new RegExp(`/${id}\\.md$`);
    hook.run = swapper(notes, outside);
    const r = await runCli(['share', id, '--json'], { cwd: repo, env });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(realFs.readFileSync(join(outside, `${id}.md`), 'utf8')).toBe('OUTSIDE ORIGINAL');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(realFs.existsSync(join(`${notes}.real`, `${id}.md`))).toBe(false);
    expect(realFs.existsSync(join(repo, '.ecc/memory/team/notes', `${id}.md`))).toBe(true);
  });

  for (let round = 1; round <= 5; round++) {
    it(`fallback without procfs (ECC_VAULT_NO_PROCFD=1), round ${round}: save and fmt undo or refuse; nothing they wrote is left outside`, async () => {
      const env = cliEnv({ ECC_VAULT_NO_PROCFD: '1' });
      // save: swapped right before the create-only link; the new file landed outside and is removed again
      const repo = gitRepo();
      const notes = join(repo, '.ecc/memory/team/notes');
      realFs.mkdirSync(notes, { recursive: true });
      const outside = tempDir('vault-outside-');
      hook.match = /\/\d+-[0-9a-f]{16}\.tmp$/;
      hook.run = swapper(notes, outside);
      const s = await runCli(['save', '--scope', 'team', '--kind', 'note', '--id', 'mem_swap_save', '--title', 'T', '--body', 'B', '--json'], {
        cwd: repo,
        env,
      });
      expect(hook.run, 'the swap happened').toBeUndefined();
      expect(s.code, s.stdout).not.toBe(0);
      expect(JSON.parse(s.stdout).error.code).toBe('symlink-refused');
      expect(realFs.readdirSync(outside)).toEqual([]);
      expect(realFs.existsSync(join(`${notes}.real`, 'mem_swap_save.md'))).toBe(false);

      // fmt: swapped right before the rename; the rename finds no temporary file outside and fails
      const v = setup();
      hook.match = /\.ecc-memory-fmt-/;
      hook.run = swapper(v.notes, v.outside);
      const f = await runCli(['fmt', '--json'], { cwd: v.repo, env });
      expect(hook.run, 'the swap happened').toBeUndefined();
      expect(f.code).not.toBe(0);
      expect(realFs.readdirSync(v.outside)).toEqual(['mem_swap_fmt.md']);
      expect(realFs.readFileSync(join(v.outside, 'mem_swap_fmt.md'), 'utf8')).toBe('OUTSIDE ORIGINAL');
      expect(realFs.readFileSync(join(`${v.notes}.real`, 'mem_swap_fmt.md'), 'utf8')).toBe(CRLF_MEMORY);
    });
  }

  it('the index build (procfs) reads each file through the folder handles: a kind folder swapped after the walk is never read through', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const notes = join(repo, '.ecc/memory/team/notes');
    realFs.mkdirSync(notes, { recursive: true });
    const outside = tempDir('vault-outside-');
    for (const n of ['a', 'b']) {
      realFs.writeFileSync(join(notes, `mem_swap_${n}.md`), memoryText({ id: `mem_swap_${n}` }, 'Inside the vault: queue.'));
      realFs.writeFileSync(join(outside, `mem_swap_${n}.md`), memoryText({ id: `mem_swap_${n}` }, 'Outside canaryword.'));
    }
    const opened = watchOutside(outside);
    // the walk only lstats; the build's first read of a file is the fixed point
    hook.opens = true;
    hook.match = /mem_swap_a\.md$/;
    hook.run = swapper(notes, outside);
    const r = await runCli(['search', 'canaryword', '--json'], { cwd: repo, env });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(opened).toEqual([]);
    expect(r.stdout).not.toContain('canaryword');
  });

  it('save (procfs): a kind folder swapped for a link while the save prepares its folders is refused (exit 7), not an internal error', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const notes = join(repo, '.ecc/memory/team/notes');
    realFs.mkdirSync(notes, { recursive: true });
    const outside = tempDir('vault-outside-');
    // the save's open of the kind folder as it prepares its folders (prepareScope) is the fixed
    // point; the index check's walk opens it once before
    hook.opens = true;
    hook.match = /\/notes$/;
    hook.skip = 1;
    hook.run = swapper(notes, outside);
    const r = await runCli(['save', '--scope', 'team', '--kind', 'note', '--title', 'Swapped', '--body', 'never outside'], { cwd: repo, env });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(realFs.readdirSync(outside)).toEqual([]);
  });

  it('doctor (procfs) re-reads an invalid file through the folder handles, never through a kind folder swapped after the scan', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const notes = join(repo, '.ecc/memory/team/notes');
    realFs.mkdirSync(notes, { recursive: true });
    const outside = tempDir('vault-outside-');
    // a decision in the notes folder: invalid (location), so doctor reads it again for the line
    realFs.writeFileSync(join(notes, 'mem_swap_bad.md'), memoryText({ id: 'mem_swap_bad', kind: 'decision' }, 'Misplaced.'));
    realFs.writeFileSync(join(outside, 'mem_swap_bad.md'), memoryText({ id: 'mem_swap_bad', kind: 'decision' }, 'Outside.'));
    const opened = watchOutside(outside);
    hook.opens = true;
    hook.match = /mem_swap_bad\.md$/;
    hook.skip = 1; // the scan's read; the rule's read again is the fixed point
    hook.run = swapper(notes, outside);
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(hook.run, 'the swap happened').toBeUndefined();
    expect(opened).toEqual([]);
    expect(JSON.parse(r.stdout).problems.map((p: { code: string }) => p.code)).toContain('location-mismatch');
  });
});
