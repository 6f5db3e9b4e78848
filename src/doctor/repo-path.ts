/**
 * Maps a vault-relative path (`team/decisions/mem_x.md`) to the path GitHub and git use: relative
 * to the repository root, `/`-separated. Paths outside the repository stay absolute.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { SCOPES, type Scope } from '../document/contract.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The absolute path of a vault-relative path.
 *
 * @param vaultPath `<scope>/...`, or a path relative to the vault root for vault-level entries
 */
export function absoluteOf(roots: VaultRoots, vaultPath: string): string {
  const slash = vaultPath.indexOf('/');
  const head = slash === -1 ? vaultPath : vaultPath.slice(0, slash);
  if ((SCOPES as readonly string[]).includes(head)) return join(scopeRoot(roots, head as Scope), slash === -1 ? '' : vaultPath.slice(slash + 1));
  if (isAbsolute(vaultPath)) return vaultPath;
  return join(roots.worktreeRoot, vaultPath);
}

/** The path of a vault file relative to the repository root (the worktree), for annotations and `git add`. */
export function repoPathOf(roots: VaultRoots, vaultPath: string): string {
  const abs = absoluteOf(roots, vaultPath);
  const slash = vaultPath.indexOf('/');
  const head = slash === -1 ? vaultPath : vaultPath.slice(0, slash);
  // Resolve the scope folder for real (a temp folder may sit behind a symlink), keep the rest as is.
  const base = (SCOPES as readonly string[]).includes(head) ? real(scopeRoot(roots, head as Scope)) : undefined;
  const resolved = base ? join(base, slash === -1 ? '' : vaultPath.slice(slash + 1)) : abs;
  const rel = relative(real(roots.worktreeRoot), resolved);
  if (rel.startsWith('..') || isAbsolute(rel)) return abs;
  return rel.split('\\').join('/') + (vaultPath.endsWith('/') && !rel.endsWith('/') ? '/' : '');
}
