/**
 * Which worktree a session belongs to: the worktree root of its working directory (realpath),
 * the repository's common git directory (realpath; shared by linked worktrees), the branch and
 * a project name. Reads files only; never spawns git (hooks must stay fast).
 */
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { findWorktreeRoot, readGitDirs } from '../../store/roots.js';

/** Where a session ran. */
export interface WorktreeIdentity {
  /** realpath of the worktree root (the nearest ancestor with `.git`), else of the directory */
  worktree: string;
  /** realpath of the common git directory, when in git */
  repo: string | undefined;
  /**
   * which repository instance that directory is: its inode and birth time (base 36), so a
   * repository deleted and created again at the same path is not taken for the old one
   */
  repoId?: string | undefined;
  /** current branch (or short commit when detached), when in git */
  branch: string | undefined;
  /** the main worktree's folder name (stable across linked worktrees) */
  project: string;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Reads the branch from `<gitDir>/HEAD`. */
export function readBranch(gitDir: string | undefined): string | undefined {
  if (!gitDir) return undefined;
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').slice(0, 512).trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    if (ref) return ref[1];
    return /^[0-9a-f]{40,64}$/.test(head) ? head.slice(0, 12) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Identifies the worktree of a working directory.
 *
 * @param cwd absolute directory (the session's cwd)
 */
export function identifyWorktree(cwd: string): WorktreeIdentity {
  const root = findWorktreeRoot(real(cwd));
  const git = readGitDirs(root);
  const repo = git.commonGitDir ? real(git.commonGitDir) : undefined;
  const main = repo && basename(repo).toLowerCase() === '.git' ? dirname(repo) : root;
  const st = repo ? lstatSync(repo, { throwIfNoEntry: false }) : undefined;
  const repoId = st ? `${st.ino.toString(36)}.${Math.floor(st.birthtimeMs).toString(36)}` : undefined;
  return { worktree: real(root), repo, ...(repoId ? { repoId } : {}), branch: readBranch(git.gitDir), project: basename(main) || main };
}
