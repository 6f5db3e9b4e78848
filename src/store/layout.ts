/**
 * Where things live: a memory of a scope and kind (id ↔ path), the vault-relative names shown to
 * users (`team/decisions/mem_x.md`), and each scope's search index. Paths are built only from
 * validated ids and enum values.
 */
import { join } from 'node:path';
import { kindFolder, type Kind, type Scope } from '../document/contract.js';
import { assertMemoryId } from './ids.js';
import { scopeRoot, type VaultRoots } from './roots.js';

/**
 * The hidden folder in each scope folder where saves stage their temporary files: on the
 * memory's file system (link(2) needs it), never read by the scanner (hidden), never staged by git
 * (it holds a `.gitignore` of `*`). What a killed save leaves there is reported by doctor
 * (`save-leftover`) and removed by a later save after {@link STAGING_GRACE_MS}.
 */
export const STAGING_DIR = '.staging';
/** A temporary file older than this (file system clock) is left over from a killed save. */
export const STAGING_GRACE_MS = 10 * 60_000;
/** Names of a save's temporary files: `<pid>-<hex>.tmp` in {@link STAGING_DIR}, `.ecc-memory-<pid>-<hex>.tmp` in a kind folder (the fallback). */
export const SAVE_TEMP_FILE = /^(?:\.ecc-memory-)?\d+-[0-9a-z]+\.tmp$/;

/**
 * Name of the mark, in a scope's {@link STAGING_DIR}, of the last time a save listed a kind
 * folder for its leftovers (`.swept-notes`): an empty file whose mtime is that time. While the
 * staging folder is usable, a save lists the kind folder (a listing of every memory of the kind)
 * at most once every {@link STAGING_GRACE_MS}; see store/scope-folders.ts, kindSweepDue.
 */
export const sweepMarkName = (kindFolderName: string): string => `.swept-${kindFolderName}`;
/** Names {@link sweepMarkName} gives. */
export const SWEEP_MARK = /^\.swept-[a-z]+$/;

/** Content of the project scope's fail-closed .gitignore: ignore everything but itself. */
export const PROJECT_GITIGNORE = '*\n!.gitignore\n';

/**
 * Folders of a vault folder that are never memories: where Obsidian puts the notes you start
 * in it and pasted attachments (`vault init --obsidian` points it there). They sit beside the
 * scope folders of a repository vault; in the user vault, whose root holds the kind folders
 * directly, the scanner skips them at the root like `.obsidian/` and `.trash/`.
 */
export const NON_MEMORY_FOLDERS = ['inbox', 'attachments'] as const;

/** Absolute path of a memory file. @throws VaultError `invalid-input` for a bad id */
export function memoryFilePath(roots: VaultRoots, scope: Scope, kind: Kind, id: string): string {
  return join(scopeRoot(roots, scope), kindFolder(kind), `${assertMemoryId(id)}.md`);
}

/** Vault-relative path shown to users and in JSON: `<scope>/<kind>s/<id>.md`. */
export function vaultRelativePath(scope: Scope, kind: Kind, id: string): string {
  return `${scope}/${kindFolder(kind)}/${id}.md`;
}

/**
 * The index folder of one scope. Never inside a committed folder unprotected:
 *
 *   team     <worktree git dir>/ecc-memory-index/team     (team memories follow the branch)
 *   project  <common git dir>/ecc-memory-index/project    (shared by linked worktrees, like the folder)
 *   user     <user root>/.index
 *   else     <memory root>/.index/<scope>                  (no git, or roots overridden)
 *
 * Every index folder also holds a `.gitignore` of `*`, and hidden folders are never memories.
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
