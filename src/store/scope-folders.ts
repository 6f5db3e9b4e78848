/**
 * The scope folders a write goes into: checked before anything is created (no symbolic link on
 * the way, lstat only; the project scope's fail-closed .gitignore exact), then created with the
 * scope's permissions. The file itself is written by store/atomic-write.ts.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { kindFolder, type Kind, type Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import { processIds } from '../io/runtime.js';
import { writeFileExclusive } from './atomic-write.js';
import { DirHandle, isLinkRefusal } from './dir-handle.js';
import { readFileSafe } from './read-file-safe.js';
import { PROJECT_GITIGNORE, SAVE_TEMP_FILE, STAGING_DIR, STAGING_GRACE_MS, sweepMarkName } from './layout.js';
import { guardedDirs, scopeRoot, type VaultRoots } from './roots.js';

/** Permission bits: private in project and user scope, ordinary in the committed team scope. */
export function modesFor(scope: Scope): { dir: number; file: number } {
  return scope === 'team' ? { dir: 0o755, file: 0o644 } : { dir: 0o700, file: 0o600 };
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The one hint for a vault folder that is a symbolic link: the vault never follows one (reads
 * skip the scope, writes and `vault init` refuse it), so the fix is a real folder in its place.
 */
export const LINKED_FOLDER_HINT =
  'the vault never follows a symbolic link (reads skip the scope, writes and `vault init` refuse it): replace the link with a real folder (move what it points to into its place), then run the command again';

/**
 * The first folder on the way to a scope (`.ecc`, `.ecc/memory`, the scope folder) that is a
 * symbolic link, lstat only.
 *
 * @returns its absolute path, or undefined when none is (or none exists yet)
 */
export function linkedScopeFolder(roots: VaultRoots, scope: Scope): string | undefined {
  return guardedDirs(roots, scope).find((dir) => lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink());
}

/**
 * Makes sure `dir` exists as a real directory (not a symlink), creating it with `mode`.
 *
 * @throws VaultError `symlink-refused` when it is a symbolic link, `io-error` when it is not a
 *   directory or cannot be created
 */
export function ensureRealDir(dir: string, mode: number, label: string): void {
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) {
      throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${label}`, {
        rule: 'no symlinks in the vault',
        hint: LINKED_FOLDER_HINT,
      });
    }
    if (!st.isDirectory()) {
      throw new VaultError('io-error', `${label} exists but is not a directory`, { hint: 'move the file out of the way' });
    }
    return;
  } catch (err) {
    if (errnoOf(err) !== 'ENOENT') throw wrapIo(err, `cannot inspect ${label}`);
  }
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') throw wrapIo(err, `cannot create ${label}`);
    ensureRealDir(dir, mode, label);
  }
}

function wrapIo(err: unknown, what: string): VaultError {
  if (err instanceof VaultError) return err;
  const code = errnoOf(err) ?? 'unknown';
  return new VaultError('io-error', `${what} (${code})`, {
    hint: code === 'EACCES' ? 'check the folder permissions' : 'check the path and try again',
    cause: err,
  });
}

/**
 * Checks the project scope's fail-closed .gitignore without writing anything.
 *
 * @returns 'ok' (exact content), 'missing' (not there yet)
 * @throws VaultError `gitignore-mismatch` when it exists with any other content,
 *   `symlink-refused` when it is a link
 */
export function checkProjectGitignore(projectDir: string): 'ok' | 'missing' {
  const file = join(projectDir, '.gitignore');
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return 'missing';
  }
  if (st.isSymbolicLink()) {
    throw new VaultError('symlink-refused', 'project memory .gitignore is a symbolic link', {
      rule: 'no symlinks in the vault',
      hint: 'replace it with a regular file',
    });
  }
  // the safe read (no link, no FIFO, bounded), not a path read that would follow a link put there since the lstat
  const read = st.isFile() && st.size < 1024 ? readFileSafe(file, 1024) : undefined;
  const content = read?.ok ? read.bytes.toString('utf8') : undefined;
  if (content !== PROJECT_GITIGNORE) {
    throw new VaultError('gitignore-mismatch', 'project memory .gitignore does not contain the required fail-closed rules', {
      field: 'project/.gitignore',
      rule: 'content is exactly "*\\n!.gitignore\\n"',
      hint: `make ${file} contain exactly two lines: "*" and "!.gitignore", so local memories are never committed`,
    });
  }
  return 'ok';
}

/**
 * Prepares a scope's folders for a write: checks symlinks and the project .gitignore first
 * (nothing is created when a check fails), then creates missing folders and the .gitignore.
 *
 * @param kinds kind folders to create inside the scope (none = just the scope folder)
 * @returns the folders that were created (absolute)
 * @throws VaultError `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export function prepareScope(roots: VaultRoots, scope: Scope, kinds: readonly Kind[]): string[] {
  const { dir: dirMode } = modesFor(scope);
  checkScope(roots, scope, kinds); // check before creating anything
  const guarded = guardedDirs(roots, scope);
  const anchor = dirname(guarded[0]!);
  // Parents of the guarded chain (the worktree, the home directory) must already exist, except
  // for the user root and override roots, which we create like mkdir -p.
  if (!lstatSync(anchor, { throwIfNoEntry: false })) mkdirParents(anchor, dirMode);
  const created: string[] = [];
  if (scope === 'project') createProjectFolder(roots, dirMode, created);
  // Created through handles (dir-handle.ts): a folder swapped for a link meanwhile is refused,
  // never followed, so nothing is created outside the vault.
  const scopeDir = openScopeDir(roots, scope, [], { mode: dirMode, created });
  try {
    for (const k of kinds) {
      try {
        scopeDir.openDir(kindFolder(k), { mode: dirMode, created }).close();
      } catch (err) {
        // a kind folder swapped for a link (or a file) since the check: refused like the scope folder
        if (!isLinkRefusal(err)) throw wrapIo(err, `cannot open ${join(scopeRoot(roots, scope), kindFolder(k))}`);
        throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${join(scopeRoot(roots, scope), kindFolder(k))}`, {
          rule: 'no symlinks in the vault',
          hint: LINKED_FOLDER_HINT,
          cause: err,
        });
      }
    }
    if (scope === 'project') writeGitignore(scopeDir);
  } finally {
    scopeDir.close();
  }
  return created;
}

/**
 * Opens a scope's folder, or a folder below it (`sub`, e.g. its kind folder), through
 * {@link DirHandle}: from the folder that holds the outermost guarded folder, no link on the way.
 *
 * @param create create missing folders with this mode (pushing each created path to `created`)
 * @throws VaultError `symlink-refused` when a folder on the way is a link or not a folder,
 *   `io-error` otherwise (a folder missing and `create` not given, permissions)
 */
export function openScopeDir(roots: VaultRoots, scope: Scope, sub: readonly string[], create?: { mode: number; created?: string[] }): DirHandle {
  const guarded = guardedDirs(roots, scope);
  const names = [...guarded.map((d) => basename(d)), ...sub];
  try {
    return DirHandle.open(dirname(guarded[0]!), names, create);
  } catch (err) {
    if (isLinkRefusal(err)) {
      throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${join(scopeRoot(roots, scope), ...sub)}`, {
        rule: 'no symlinks in the vault',
        hint: LINKED_FOLDER_HINT,
        cause: err,
      });
    }
    throw wrapIo(err, `cannot open ${join(scopeRoot(roots, scope), ...sub)}`);
  }
}

function scopeChain(roots: VaultRoots, scope: Scope, kinds: readonly Kind[]): string[] {
  const root = scopeRoot(roots, scope);
  return [...guardedDirs(roots, scope), ...kinds.map((k) => join(root, kindFolder(k)))];
}

/**
 * The checks of {@link prepareScope} without its writes: no folder of the scope is a symbolic
 * link (or a file), and the project scope's .gitignore is absent or exact.
 *
 * @param kinds kind folders that would be created
 * @returns the folders that do not exist yet (absolute), outermost first
 * @throws VaultError `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export function checkScope(roots: VaultRoots, scope: Scope, kinds: readonly Kind[]): string[] {
  const missing: string[] = [];
  for (const dir of scopeChain(roots, scope, kinds)) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      missing.push(dir);
      continue;
    }
    if (st.isSymbolicLink()) {
      throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${dir}`, {
        rule: 'no symlinks in the vault',
        hint: LINKED_FOLDER_HINT,
      });
    }
    if (!st.isDirectory()) throw new VaultError('io-error', `${dir} exists but is not a directory`, { hint: 'move the file out of the way' });
  }
  if (scope === 'project') checkProjectGitignore(scopeRoot(roots, scope));
  return missing;
}

function mkdirParents(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { recursive: true, mode });
  } catch (err) {
    throw wrapIo(err, `cannot create ${dir}`);
  }
}

/**
 * Creates the project scope's folder with its fail-closed .gitignore already inside: the folder
 * is made in the hidden staging folder beside it (`.ecc/memory/.staging/project-XXXXXX`, ignored by
 * git), given the .gitignore, and renamed into place, so a kill at any point leaves either no
 * project folder or one with its .gitignore, never one without it. A concurrent save that
 * renamed its own first wins; this one's copy is removed. Nothing happens when the folder
 * exists (the caller checks it) or the staging folder cannot be used (the caller then creates
 * the folder and its .gitignore one after the other, as before).
 */
function createProjectFolder(roots: VaultRoots, mode: number, created: string[]): void {
  const guarded = guardedDirs(roots, 'project');
  const parent = DirHandle.open(
    dirname(guarded[0]!),
    guarded.slice(0, -1).map((d) => basename(d)),
    { mode, created },
  );
  let staging: DirHandle | undefined;
  let temp: string | undefined;
  try {
    const target = parent.child(basename(guarded[guarded.length - 1]!));
    if (lstatSync(target, { throwIfNoEntry: false })) return;
    staging = openStaging(parent, mode, roots.gitDir);
    if (!staging) return;
    temp = mkdtempSync(staging.child('project-')); // mode 0700, a fresh random name
    writeFileExclusive(join(temp, '.gitignore'), PROJECT_GITIGNORE, 0o644, () => 'gitignore');
    chmodSync(temp, mode);
    try {
      renameSync(temp, target);
      temp = undefined;
      created.push(guarded[guarded.length - 1]!);
    } catch (err) {
      const code = errnoOf(err);
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR')
        throw wrapIo(err, `cannot create ${guarded[guarded.length - 1]}`);
    }
  } finally {
    if (temp !== undefined) {
      rmSync(join(temp, '.gitignore'), { force: true });
      try {
        rmdirSync(temp);
      } catch {
        /* left in the ignored staging folder */
      }
    }
    staging?.close();
    parent.close();
  }
}

function writeGitignore(projectDir: DirHandle): void {
  if (checkProjectGitignore(projectDir.path) === 'ok') return;
  try {
    writeFileExclusive(projectDir.child('.gitignore'), PROJECT_GITIGNORE, 0o644, () => 'gitignore');
  } catch (err) {
    if (err instanceof VaultError && err.code === 'already-exists') {
      checkProjectGitignore(projectDir.path);
      return;
    }
    throw err;
  }
}

/** Content of a staging folder's `.gitignore`: ignore everything, itself included. */
const STAGING_GITIGNORE = '*\n';

/** Names of the temporary files {@link openStaging} writes in the repository's git dir. */
const SEED_TEMP_FILE = /^ecc-memory-\d+-[0-9a-f]+\.tmp$/;

/**
 * Opens (creating it, with a `.gitignore` of `*`) the scope's hidden staging folder, where saves
 * put their temporary files (see STAGING_DIR in store/layout.ts).
 *
 * The `.gitignore` must never be seen by git as anything but `*`: a save killed between creating
 * the file and writing it would leave an empty one, which `git add -A` stages, and the staging
 * folder's temporary files (a memory's whole text) would show. So, given `seedDir` (a folder git
 * never lists: the repository's git dir), the file is written whole there under a temporary name
 * and renamed into place: it appears with its content. Without one (no repository: nothing to
 * hide from git), or when that fails (another file system), the temporary file is written in the
 * staging folder itself. A `.gitignore` that is not exactly what a save writes (empty after a
 * kill, other content, a link, a second hard link) is replaced the same way.
 *
 * @param scopeDir the scope folder's handle (or the memory root's, for the project folder's creation)
 * @param seedDir absolute path of the repository's git dir, or undefined
 * @returns its handle, or undefined when it cannot be used (a link, a file, no permission, a
 *   `.gitignore` that cannot be made right, such as a folder): the writer then falls back to the
 *   kind folder
 */
export function openStaging(scopeDir: DirHandle, mode: number, seedDir?: string): DirHandle | undefined {
  let staging: DirHandle;
  try {
    staging = scopeDir.openDir(STAGING_DIR, { mode });
  } catch {
    return undefined;
  }
  const target = staging.child('.gitignore');
  if (holdsExactly(target, STAGING_GITIGNORE)) return staging;
  const name = `${processIds.pid}-${processIds.randomHex(6)}.tmp`;
  if (seedDir && renameWholeFile(join(seedDir, `ecc-memory-${name}`), target, STAGING_GITIGNORE)) return staging;
  // the temporary name is a save's (SAVE_TEMP_FILE): one a kill left is swept with the others
  if (renameWholeFile(staging.child(name), target, STAGING_GITIGNORE)) return staging;
  staging.close();
  return undefined;
}

/** True when `path` is a regular file with one link holding exactly `content` (the safe read: no link followed, no FIFO, bounded). */
function holdsExactly(path: string, content: string): boolean {
  const read = readFileSafe(path, content.length);
  return read.ok && read.nlink === 1 && read.bytes.toString('utf8') === content;
}

/**
 * Writes `content` to the fresh temporary file `temp` and renames it to `target`. A concurrent
 * save may have made `target` meanwhile: it is replaced by the same content.
 *
 * @returns true when it was renamed; false when the temporary file could not be written or
 *   renamed (another file system, no permission, a folder at `target`), its temporary file then
 *   removed
 */
function renameWholeFile(temp: string, target: string, content: string): boolean {
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}

/**
 * Removes the temporary files {@link openStaging} left in the repository's git dir when a save
 * was killed between writing and renaming one (`ecc-memory-<pid>-<hex>.tmp`, two bytes), once they
 * are older than {@link STAGING_GRACE_MS}. Called when a save lists a kind folder for leftovers.
 *
 * @returns how many were removed
 */
export function removeStaleSeeds(seedDir: string, nowMs: number): number {
  return removeStale(seedDir, (name) => join(seedDir, name), SEED_TEMP_FILE, nowMs);
}

/**
 * Whether a save should list the kind folder `kindFolderName` for what killed saves left there:
 * a kind folder holds every memory of its kind (a listing of 12,500 names cost a save ~15-30 ms
 * at 100,000 memories), and a save writes its temporary file there only when the staging folder
 * is unusable, so while it is usable the folder is listed at most once every
 * {@link STAGING_GRACE_MS}, recorded by the mark {@link sweepMarkName} in the staging folder (a
 * leftover there is then removed 10 to 20 minutes after it was made, instead of 10). Due when the
 * mark is missing, not a regular file, or its time is not within the last STAGING_GRACE_MS of
 * `nowMs` (a clock set back counts as due).
 *
 * @param staging the scope's staging folder
 * @param nowMs the current time (ms since the epoch)
 */
export function kindSweepDue(staging: DirHandle, kindFolderName: string, nowMs: number): boolean {
  const st = lstatSync(staging.child(sweepMarkName(kindFolderName)), { throwIfNoEntry: false });
  return !st?.isFile() || st.nlink !== 1 || !(st.mtimeMs <= nowMs && nowMs - st.mtimeMs < STAGING_GRACE_MS);
}

/**
 * Records in the staging folder that the kind folder was listed at `nowMs` (see
 * {@link kindSweepDue}): the mark made or kept, its mtime set to `nowMs`, never through a link.
 * Never throws: without the mark, the next save lists the folder again.
 */
export function markKindSwept(staging: DirHandle, kindFolderName: string, nowMs: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(
      staging.child(sweepMarkName(kindFolderName)),
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0),
      0o644,
    );
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1) {
      // a hard link to a file elsewhere (or anything else) in the mark's place: its time is not
      // ours to set; the name goes (the other file stays as it is), a mark of our own comes next time
      unlinkSync(staging.child(sweepMarkName(kindFolderName)));
      return;
    }
    futimesSync(fd, nowMs / 1000, nowMs / 1000);
  } catch {
    /* listed again next time */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Removes the temporary files of killed saves from a folder (the staging folder or a kind
 * folder): names matching SAVE_TEMP_FILE, regular files, last modified more than
 * STAGING_GRACE_MS before `nowMs` (a save in progress is seconds old).
 *
 * @param nowMs the current time (ms since the epoch)
 * @returns how many were removed
 */
export function removeStaleSaveTemps(dir: DirHandle, nowMs: number): number {
  return removeStale(dir.listPath, (name) => dir.child(name), SAVE_TEMP_FILE, nowMs);
}

/** Removes the regular files of folder `listPath` whose names match `pattern`, last modified more than STAGING_GRACE_MS before `nowMs`. */
function removeStale(listPath: string, child: (name: string) => string, pattern: RegExp, nowMs: number): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(listPath);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const st = lstatSync(child(name), { throwIfNoEntry: false });
    if (!st?.isFile() || nowMs - st.mtimeMs <= STAGING_GRACE_MS) continue;
    try {
      unlinkSync(child(name));
      removed++;
    } catch {
      /* gone already */
    }
  }
  return removed;
}
