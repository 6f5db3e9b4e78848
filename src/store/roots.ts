/**
 * Where the vault lives: the repository (worktree) root, the three scope roots, and the git
 * directories used for hidden per-clone state. Pure file-system reads; never spawns git.
 *
 *   team     <worktree>/.ecc/memory/team        committed, follows the branch and its PRs
 *   project  <main worktree>/.ecc/memory/project local to the clone; shared by linked worktrees
 *   user     ~/.ecc/memory                       follows the person; recalled only on request
 */
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';

/** Resolved locations of a vault. All paths are absolute. */
export interface VaultRoots {
  /** directory holding the team/ and project/ scope folders (`<worktree>/.ecc/memory`, or the override) */
  memoryRoot: string;
  team: string;
  project: string;
  user: string;
  /** the worktree (or plain directory) the vault belongs to */
  worktreeRoot: string;
  /** this worktree's git directory (`.git`, or `.git/worktrees/<name>`), when in git */
  gitDir: string | undefined;
  /** the repository's common git directory (shared by all worktrees), when in git */
  commonGitDir: string | undefined;
  /** true when ECC_MEMORY_PROJECT_ROOT or --root chose memoryRoot */
  overridden: boolean;
}

/** Options that override the defaults (CLI flags). */
export interface RootOptions {
  /** like ECC_MEMORY_PROJECT_ROOT: a directory holding team/ and project/ */
  root?: string | undefined;
  /** like ECC_MEMORY_USER_ROOT: the user scope directory */
  userRoot?: string | undefined;
}

const MAX_ENV_PATH = 4096;

function checkOverride(name: string, value: string, cwd: string): string {
  if (value.length > MAX_ENV_PATH || value.includes('\u0000')) {
    throw new VaultError('invalid-input', `${name} is not a usable path`, {
      field: name,
      rule: 'path of at most 4096 characters',
      hint: `set ${name} to a directory path`,
    });
  }
  return resolve(cwd, value);
}

/**
 * Finds the worktree root: the nearest ancestor of `cwd` holding a `.git` entry (directory or
 * file) or an `.ecc` directory; `cwd` itself when there is none.
 */
export function findWorktreeRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    try {
      if (statSync(join(dir, '.ecc')).isDirectory()) return dir;
    } catch {
      /* not here */
    }
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

/**
 * Reads a worktree's git directories without running git: `.git` as a directory, or a `.git`
 * file (`gitdir: <path>`) whose target holds a `commondir` file (linked worktrees).
 */
export function readGitDirs(worktreeRoot: string): { gitDir?: string; commonGitDir?: string; mainWorktreeRoot?: string } {
  const dotGit = join(worktreeRoot, '.git');
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    return {};
  }
  if (st.isDirectory()) return { gitDir: dotGit, commonGitDir: dotGit, mainWorktreeRoot: worktreeRoot };
  if (!st.isFile()) return {};
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8').slice(0, 4096));
    if (!m) return {};
    const gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(worktreeRoot, m[1]!);
    let commonGitDir = gitDir;
    try {
      const rel = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
      commonGitDir = isAbsolute(rel) ? rel : resolve(gitDir, rel);
    } catch {
      /* a submodule or a plain gitdir link: its own common dir */
    }
    const mainWorktreeRoot = basename(commonGitDir).toLowerCase() === '.git' ? dirname(commonGitDir) : undefined;
    return { gitDir, commonGitDir, ...(mainWorktreeRoot ? { mainWorktreeRoot } : {}) };
  } catch {
    return {};
  }
}

/**
 * Resolves the vault's roots for a working directory.
 *
 * Precedence: flags ({@link RootOptions}), then ECC_MEMORY_PROJECT_ROOT / ECC_MEMORY_USER_ROOT
 * (resolved against cwd, at most 4,096 characters), then the repository layout. A root that does
 * not exist yet is fine: a missing vault is an empty vault.
 *
 * @throws VaultError `invalid-input` for an unusable override path
 */
export function resolveRoots(rt: Runtime, opts: RootOptions = {}): VaultRoots {
  const worktreeRoot = findWorktreeRoot(rt.cwd);
  const git = readGitDirs(worktreeRoot);
  const rootOverride = opts.root ?? rt.env.ECC_MEMORY_PROJECT_ROOT;
  const userOverride = opts.userRoot ?? rt.env.ECC_MEMORY_USER_ROOT;
  const user = userOverride ? checkOverride('ECC_MEMORY_USER_ROOT', userOverride, rt.cwd) : join(rt.home, '.ecc', 'memory');
  if (rootOverride) {
    const memoryRoot = checkOverride('ECC_MEMORY_PROJECT_ROOT', rootOverride, rt.cwd);
    return {
      memoryRoot,
      team: join(memoryRoot, 'team'),
      project: join(memoryRoot, 'project'),
      user,
      worktreeRoot,
      gitDir: git.gitDir,
      commonGitDir: git.commonGitDir,
      overridden: true,
    };
  }
  const memoryRoot = join(worktreeRoot, '.ecc', 'memory');
  const mainRoot = git.mainWorktreeRoot ?? worktreeRoot;
  return {
    memoryRoot,
    team: join(memoryRoot, 'team'),
    project: join(mainRoot, '.ecc', 'memory', 'project'),
    user,
    worktreeRoot,
    gitDir: git.gitDir,
    commonGitDir: git.commonGitDir,
    overridden: false,
  };
}

/** The directory of one scope. */
export function scopeRoot(roots: VaultRoots, scope: Scope): string {
  return roots[scope];
}

/**
 * The directories from which symlinks are refused for a scope, outermost first: the `.ecc`
 * and `.ecc/memory` folders (or the override root), then the scope folder.
 */
export function guardedDirs(roots: VaultRoots, scope: Scope): string[] {
  const dir = scopeRoot(roots, scope);
  // The default user root is ~/.ecc/memory: a symlinked ~/.ecc would redirect it too.
  if (scope === 'user') return basename(dir) === 'memory' && basename(dirname(dir)) === '.ecc' ? [dirname(dir), dir] : [dir];
  if (roots.overridden) return [roots.memoryRoot, dir];
  const memoryRoot = dirname(dir);
  return [dirname(memoryRoot), memoryRoot, dir];
}
