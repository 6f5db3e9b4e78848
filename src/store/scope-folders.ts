/**
 * Create-only, atomic writes into the vault.
 *
 * A memory file appears under its final name only with its complete content: the text is written
 * and fsynced to a hidden temporary file in the same folder (created with O_EXCL|O_NOFOLLOW),
 * then hard-linked to `<id>.md`. link(2) fails when the name exists (even as a dangling
 * symlink), so an existing memory is never overwritten, also when processes race. The temporary
 * file is always removed. Folders on the way are checked with lstat: nothing is written through
 * a symbolic link.
 */
import { constants, closeSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kindFolder, type Kind, type Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import { processIds } from '../io/runtime.js';
import { PROJECT_GITIGNORE } from './layout.js';
import { guardedDirs, scopeRoot, type VaultRoots } from './roots.js';

/** Permission bits: private in project and user scope, ordinary in the committed team scope. */
export function modesFor(scope: Scope): { dir: number; file: number } {
  return scope === 'team' ? { dir: 0o755, file: 0o644 } : { dir: 0o700, file: 0o600 };
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
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
        hint: 'replace the link with a real directory',
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
  const content = st.isFile() && st.size < 1024 ? readFileSync(file, 'utf8') : undefined;
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
  const chain = scopeChain(roots, scope, kinds);
  checkScope(roots, scope, kinds); // check before creating anything
  const root = scopeRoot(roots, scope);
  const created: string[] = [];
  for (const dir of chain) {
    let existed = true;
    try {
      lstatSync(dir);
    } catch {
      existed = false;
    }
    // Parents of the guarded chain (the worktree, the home directory) must already exist,
    // except for the user root and override roots, which we create like mkdir -p.
    if (!existed) mkdirParents(dirname(dir), dirMode);
    ensureRealDir(dir, dirMode, dir);
    if (!existed) created.push(dir);
  }
  if (scope === 'project') writeGitignore(root);
  return created;
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
        hint: 'replace the link with a real directory',
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

function writeGitignore(projectDir: string): void {
  if (checkProjectGitignore(projectDir) === 'ok') return;
  try {
    writeFileExclusive(join(projectDir, '.gitignore'), PROJECT_GITIGNORE, 0o644, () => 'gitignore');
  } catch (err) {
    if (err instanceof VaultError && err.code === 'already-exists') {
      checkProjectGitignore(projectDir);
      return;
    }
    throw err;
  }
}

/**
 * Writes `content` to `target` create-only and atomically (temp file + fsync + link).
 *
 * @param target absolute final path; its folder must exist and be checked by the caller
 * @param content UTF-8 text
 * @param mode permission bits of the new file
 * @param tempName returns a unique suffix for the temporary file
 * @throws VaultError `already-exists` when `target` exists (file, folder or symlink);
 *   `io-error` on any other failure. The temporary file never survives.
 */
export function writeFileExclusive(target: string, content: string, mode: number, tempName: () => string): void {
  const dir = dirname(target);
  const tmp = join(dir, `.ecc-memory-${processIds.pid}-${tempName()}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    const buf = Buffer.from(content, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    try {
      linkSync(tmp, target);
    } catch (err) {
      if (errnoOf(err) === 'EEXIST') {
        throw new VaultError('already-exists', `${target.split(/[\\/]/).pop()} already exists; writes are create-only`, {
          rule: 'create-only',
          hint: 'choose another id, or supersede the memory with a new one that links to it',
        });
      }
      throw wrapIo(err, 'cannot create the memory file');
    }
    syncDir(dir);
  } catch (err) {
    throw wrapIo(err, 'cannot write the memory file');
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
  }
}

function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    /* not supported everywhere; the file itself is fsynced */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
