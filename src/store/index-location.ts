/**
 * Where a scope's index lives. Never inside a committed folder unprotected:
 *
 *   team     <worktree git dir>/ecc-memory-index/team     (team memories follow the branch)
 *   project  <common git dir>/ecc-memory-index/project    (shared by linked worktrees, like the folder)
 *   user     <user root>/.index
 *   else     <memory root>/.index/<scope>                  (no git, or roots overridden)
 *
 * Every index folder also holds a `.gitignore` of `*`, and hidden folders are never memories.
 */
import { join } from 'node:path';
import type { Scope } from '../document/contract.js';
import type { VaultRoots } from './roots.js';

/**
 * The index folder of one scope.
 *
 * @returns an absolute path (the folder may not exist yet)
 */
export function indexDirFor(roots: VaultRoots, scope: Scope): string {
  if (scope === 'user') return join(roots.user, '.index');
  if (!roots.overridden) {
    if (scope === 'team' && roots.gitDir) return join(roots.gitDir, 'ecc-memory-index', 'team');
    if (scope === 'project' && roots.commonGitDir) return join(roots.commonGitDir, 'ecc-memory-index', 'project');
  }
  return join(roots.memoryRoot, '.index', scope);
}
