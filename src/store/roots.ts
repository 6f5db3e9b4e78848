/**
 * Where the vault lives: the repository (worktree) root, the three scope roots, and the git
 * directories used for hidden per-clone state. Pure file-system reads; never spawns git.
 *
 *   team     <worktree>/.ecc/memory/team        committed, follows the branch and its PRs
 *   project  <main worktree>/.ecc/memory/project local to the clone; shared by linked worktrees
 *   user     ~/.ecc/memory                       follows the person; recalled only on request
 *
 * Where a project and team vault is (the rule of {@link resolveRoots}): the git work tree's
 * `.ecc/memory`, an explicit root (`--root` / ECC_MEMORY_PROJECT_ROOT), or a folder in which
 * `vault init --here` made one, recognised by its `.ecc/memory` folder. The user root
 * (`~/.ecc/memory`) is never adopted as a project vault. Anywhere else there is no vault:
 * project and team writes are refused with {@link NO_VAULT_HINT}.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { quoteInput } from '../document/echo-input.js';
import { UNSAFE_CHARS } from '../unicode/unsafe-characters.js';
import { forceProcFdFallback } from './dir-handle.js';

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
  /**
   * how the project and team vault was found: `git` (the work tree's `.ecc/memory`), `folder` (a
   * folder holding `.ecc/memory`, as `vault init --here` makes), `override` (`--root` /
   * ECC_MEMORY_PROJECT_ROOT), or `none` (no vault: the team and project paths are where
   * `vault init --here` would put one, and project and team writes are refused)
   */
  located: VaultLocation;
}

/** How the project and team vault was found (see {@link VaultRoots.located}). */
export type VaultLocation = 'git' | 'folder' | 'override' | 'none';

/** The one hint of every "no vault here" message: the three ways to have one. */
export const NO_VAULT_HINT =
  'run it inside a git repository (its vault is <repo>/.ecc/memory; `vault init` creates it), pass --root DIR or set ECC_MEMORY_PROJECT_ROOT, or run `vault init --here` to make this folder a vault';

/** The one wording of "there is no vault here", naming the folder looked from. */
export function noVaultMessage(roots: Pick<VaultRoots, 'worktreeRoot'>): string {
  return `no vault here (no git repository or .ecc/memory folder at or above ${roots.worktreeRoot})`;
}

/**
 * Refuses a project or team write where there is no vault ({@link VaultRoots.located} `none`).
 *
 * @param what the refused action, e.g. "save a project memory"
 * @throws VaultError `no-vault` (exit 7, an environment problem) naming the folder and the three ways ({@link NO_VAULT_HINT})
 */
export function assertVault(roots: VaultRoots, what: string): void {
  if (roots.located !== 'none') return;
  throw new VaultError('no-vault', `cannot ${what}: ${noVaultMessage(roots)}`, {
    field: 'root',
    rule: "a project or team vault is a git work tree's .ecc/memory, an explicit root, or a folder made by `vault init --here`",
    hint: NO_VAULT_HINT,
  });
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
 * Refuses a path variable that is set but empty or relative: it would resolve against the
 * working directory, which for a hook or a command run in a repository puts private data
 * (user memories, session snapshots) inside that repository.
 *
 * @param name the variable, e.g. HOME
 * @param fix what to do instead (ends the hint)
 * @returns the path, normalised
 * @throws VaultError `invalid-input` naming the variable, the rule (an absolute path) and the fix
 */
export function checkAbsoluteEnvPath(name: string, value: string, fix: string): string {
  // control and bidi characters: a folder named with them is made, and its name printed raw, in every later message
  if (value.length > MAX_ENV_PATH || UNSAFE_CHARS.test(value) || !isAbsolute(value)) {
    const got =
      value === '' ? 'it is empty' : value.length > MAX_ENV_PATH || value.includes('\u0000') ? 'got an unusable path' : `got ${quoteInput(value, 200)}`;
    const what = UNSAFE_CHARS.test(value) && isAbsolute(value) ? 'an absolute path without control characters' : 'an absolute path';
    throw new VaultError('invalid-input', `${name} must be ${what} (${got})`, {
      field: name,
      rule: 'absolute path of at most 4096 characters, no control or bidirectional formatting characters',
      hint: fix,
    });
  }
  return resolve(value);
}

/**
 * The home folder, checked: HOME (then USERPROFILE, then the system's idea) must be an absolute
 * path, or the user root and the sessions folder would land in the working directory.
 *
 * @param alternative the variable that replaces the home folder for this use, named in the hint
 * @throws VaultError `invalid-input` naming HOME (see {@link checkAbsoluteEnvPath})
 */
export function homeDir(rt: Pick<Runtime, 'home'>, alternative: string): string {
  const fix = `set HOME to your home folder (an absolute path such as /home/you), or set ${alternative} to an absolute folder`;
  const home = checkAbsoluteEnvPath('HOME', rt.home, fix);
  // a file (or a path through one) where the home folder should be: every lstat under it would fail with ENOTDIR
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(home, { throwIfNoEntry: false });
  } catch {
    throw new VaultError('invalid-input', `HOME must be a folder (got ${quoteInput(home, 200)}, which a file stands in the way of)`, {
      field: 'HOME',
      rule: 'a folder, or a path not created yet',
      hint: fix,
    });
  }
  if (st && !st.isDirectory())
    throw new VaultError('invalid-input', `HOME must be a folder (got ${quoteInput(home, 200)}, which is not one)`, {
      field: 'HOME',
      rule: 'a folder, or a path not created yet',
      hint: fix,
    });
  return home;
}

/** True when `dir` is `root` or lies under it (both absolute and normalised). */
function isWithin(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** The real path of `p` when it exists, else `p`. */
function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Finds the vault's folder for `cwd` (the rule in this module's header): the nearest ancestor
 * holding a `.git` entry (directory or file: a work tree), or a `.ecc/memory` directory (a
 * folder made a vault by `vault init --here`). An ancestor whose `.ecc/memory` is one of
 * `userRoots` (the user root, `~/.ecc/memory`) is passed over: a home folder that is a git work
 * tree, or that holds the user root, is never a project vault.
 *
 * @param userRoots absolute user-root folders never adopted as a project vault
 * @returns the folder and how it was recognised, or undefined when there is no vault
 */
export function locateVault(cwd: string, userRoots: readonly string[] = []): { root: string; located: 'git' | 'folder' } | undefined {
  const excluded = new Set(userRoots.flatMap((u) => [resolve(u), realOr(resolve(u))]));
  let dir = resolve(cwd);
  for (;;) {
    const memory = join(dir, '.ecc', 'memory');
    const isUserRoot = excluded.size > 0 && (excluded.has(memory) || excluded.has(realOr(memory)));
    if (!isUserRoot) {
      if (existsSync(join(dir, '.git'))) return { root: dir, located: 'git' };
      try {
        if (statSync(memory).isDirectory()) return { root: dir, located: 'folder' };
      } catch {
        /* not here */
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Finds the worktree root: the folder {@link locateVault} finds, `cwd` itself when there is none.
 *
 * @param userRoots absolute user-root folders never adopted (see {@link locateVault})
 */
export function findWorktreeRoot(cwd: string, userRoots: readonly string[] = []): string {
  return locateVault(cwd, userRoots)?.root ?? resolve(cwd);
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
 * Precedence: flags ({@link RootOptions}), then ECC_MEMORY_PROJECT_ROOT / ECC_MEMORY_USER_ROOT,
 * then the repository layout ({@link locateVault}). `--root`, `--user-root` and
 * ECC_MEMORY_PROJECT_ROOT are resolved against cwd; ECC_MEMORY_USER_ROOT and HOME must be
 * absolute (a relative one would put private memories in the working directory). At most 4,096
 * characters each. A root that does not exist yet is fine: a missing vault is an empty vault.
 * With `vault init --here` (`here`), cwd is the vault's folder. Where there is no vault,
 * `located` is `none` (see {@link assertVault}).
 *
 * @throws VaultError `invalid-input` for an unusable override path, an empty or relative HOME
 *   or ECC_MEMORY_USER_ROOT, a project root that is or lies in the user root, or `here` in the
 *   folder of the user root
 */
export function resolveRoots(rt: Runtime, opts: RootOptions & { here?: boolean } = {}): VaultRoots {
  // every command resolves its roots first: the one place the folder-handle mode is chosen
  forceProcFdFallback(rt.env.ECC_VAULT_NO_PROCFD === '1');
  const rootOverride = opts.root ?? rt.env.ECC_MEMORY_PROJECT_ROOT;
  const userFix = 'unset it to use ~/.ecc/memory, or set it to an absolute folder';
  const user =
    opts.userRoot !== undefined && opts.userRoot !== ''
      ? checkOverride('--user-root', opts.userRoot, rt.cwd)
      : rt.env.ECC_MEMORY_USER_ROOT !== undefined
        ? checkAbsoluteEnvPath('ECC_MEMORY_USER_ROOT', rt.env.ECC_MEMORY_USER_ROOT, userFix)
        : join(homeDir(rt, 'ECC_MEMORY_USER_ROOT'), '.ecc', 'memory');
  const userRoots = [user, ...(isAbsolute(rt.home) ? [join(resolve(rt.home), '.ecc', 'memory')] : [])];
  const found = opts.here ? { root: resolve(rt.cwd), located: 'folder' as const } : locateVault(rt.cwd, userRoots);
  const worktreeRoot = found?.root ?? resolve(rt.cwd);
  const git = readGitDirs(worktreeRoot);
  if (rootOverride) {
    const name = opts.root !== undefined ? '--root' : 'ECC_MEMORY_PROJECT_ROOT';
    const memoryRoot = checkOverride(name, rootOverride, rt.cwd);
    refuseUserRootAsVault(name, memoryRoot, user);
    return {
      memoryRoot,
      team: join(memoryRoot, 'team'),
      project: join(memoryRoot, 'project'),
      user,
      worktreeRoot,
      gitDir: git.gitDir,
      commonGitDir: git.commonGitDir,
      overridden: true,
      located: 'override',
    };
  }
  const memoryRoot = join(worktreeRoot, '.ecc', 'memory');
  if (opts.here) refuseUserRootAsVault('--here', memoryRoot, user);
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
    located: found?.located ?? 'none',
  };
}

/** Refuses a project vault that is the user root, lies inside it, or holds it in a scope folder. */
function refuseUserRootAsVault(name: string, memoryRoot: string, user: string): void {
  const vault = realOr(memoryRoot);
  const userReal = realOr(user);
  const clash = [memoryRoot, vault].some((v) =>
    [user, userReal].some((u) => isWithin(v, u) || isWithin(u, join(v, 'team')) || isWithin(u, join(v, 'project'))),
  );
  if (!clash) return;
  throw new VaultError('invalid-input', `${name}: ${memoryRoot} is the user root (${user}), which is never a project vault`, {
    field: name,
    rule: 'the project and team vault lies outside the user root',
    hint:
      name === '--here'
        ? 'run `vault init --here` in the folder that should hold the vault, not in your home folder'
        : `point ${name} at a folder outside ${user}`,
  });
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
