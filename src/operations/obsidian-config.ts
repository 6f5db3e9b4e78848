/**
 * A minimal Obsidian configuration for a vault folder (`vault init --obsidian`), so that opening
 * `.ecc/memory/` in Obsidian shows memories with the right property types and nothing else:
 *
 * - `app.json`: the search index folder is excluded; notes created in Obsidian land in `inbox/`
 *   and attachments in `attachments/`, both outside the scope folders, so they are never mistaken
 *   for memories (or reported by doctor); links are written as `[[wikilinks]]`.
 * - `types.json`: property types. `created_at`/`updated_at` are declared text, because Obsidian's
 *   "Date & time" type rewrites them as `2026-08-01T10:15`, which ecc.memory.v1 refuses.
 * - `.gitignore`: keeps Obsidian's per-person workspace state out of commits.
 * - with `gitignore`, the vault folder's own `.gitignore`: `.trash/`, `inbox/`, `attachments/`.
 *
 * Every file is created create-only: an existing configuration file is never changed.
 */
import { join } from 'node:path';
import { VaultError } from '../errors.js';
import { writeFileExclusive } from '../store/atomic-write.js';
import type { NON_MEMORY_FOLDERS } from '../store/layout.js';
import { ensureRealDir } from '../store/scope-folders.js';

/** Folder (relative to the vault) where notes created in Obsidian go: outside every scope. */
export const OBSIDIAN_NEW_NOTE_FOLDER: (typeof NON_MEMORY_FOLDERS)[number] = 'inbox';
/** Folder (relative to the vault) where Obsidian puts pasted images and other attachments. */
export const OBSIDIAN_ATTACHMENT_FOLDER: (typeof NON_MEMORY_FOLDERS)[number] = 'attachments';
/** Obsidian's own trash folder (its "move to .trash" setting); hidden, never scanned. */
export const OBSIDIAN_TRASH_FOLDER = '.trash';

/**
 * The vault folder's `.gitignore` (`<repo>/.ecc/memory/.gitignore`): Obsidian's trash, its new
 * notes and its attachments are personal scratch, never reviewed memories, so `git add -A` must
 * not commit them. Anchored, so nothing inside `team/` or `project/` is affected.
 */
export const VAULT_GITIGNORE = `/${OBSIDIAN_TRASH_FOLDER}/\n/${OBSIDIAN_NEW_NOTE_FOLDER}/\n/${OBSIDIAN_ATTACHMENT_FOLDER}/\n`;

/** Options of {@link writeObsidianConfig}. */
export interface ObsidianConfigOptions {
  /** folders to hide from Obsidian, relative to the vault, e.g. the search index (".index/") */
  hiddenFolders?: readonly string[];
  /** permission bits for the folder and files (default 0o755 / 0o644) */
  dirMode?: number;
  fileMode?: number;
  /** unique suffix for temporary files (see Runtime.randomHex) */
  tempName?: () => string;
  /** also write the vault folder's {@link VAULT_GITIGNORE} (a vault inside a git work tree) */
  gitignore?: boolean;
}

/** Result of {@link writeObsidianConfig}: file names inside `.obsidian/`. */
export interface ObsidianConfigResult {
  /** absolute path of the `.obsidian` folder */
  dir: string;
  /** files this call created */
  written: string[];
  /** files that existed and were left untouched */
  kept: string[];
  /** the vault folder's `.gitignore` when asked for: its absolute path and whether this call wrote it (false: one existed, kept) */
  vaultGitignore?: { path: string; written: boolean };
}

/** The files of the minimal configuration: name → content. */
export function obsidianConfigFiles(hiddenFolders: readonly string[] = []): Record<string, string> {
  const app = {
    userIgnoreFilters: [...hiddenFolders, `${OBSIDIAN_TRASH_FOLDER}/`],
    newFileLocation: 'folder',
    newFileFolderPath: OBSIDIAN_NEW_NOTE_FOLDER,
    attachmentFolderPath: OBSIDIAN_ATTACHMENT_FOLDER,
    useMarkdownLinks: false,
    newLinkFormat: 'shortest',
  };
  const types = {
    types: {
      schema: 'text',
      id: 'text',
      title: 'text',
      kind: 'text',
      scope: 'text',
      trust: 'text',
      status: 'text',
      source_harness: 'text',
      target_harnesses: 'multitext',
      tags: 'tags',
      links: 'multitext',
      created_at: 'text',
      updated_at: 'text',
    },
  };
  return {
    'app.json': `${JSON.stringify(app, null, 2)}\n`,
    'types.json': `${JSON.stringify(types, null, 2)}\n`,
    '.gitignore': 'workspace.json\nworkspace-mobile.json\n',
  };
}

/**
 * Writes the minimal `.obsidian/` configuration into a vault folder, create-only.
 *
 * @param vaultDir the folder opened as an Obsidian vault (e.g. `<repo>/.ecc/memory`); must exist
 * @returns which files were written and which already existed (kept as they are)
 * @throws VaultError `symlink-refused` when the vault or `.obsidian` folder is a symbolic link,
 *   `io-error` when a folder cannot be created or a file cannot be written
 */
export function writeObsidianConfig(vaultDir: string, options: ObsidianConfigOptions = {}): ObsidianConfigResult {
  const dirMode = options.dirMode ?? 0o755;
  const fileMode = options.fileMode ?? 0o644;
  let n = 0;
  const tempName = options.tempName ?? (() => `obsidian-${++n}`);
  ensureRealDir(vaultDir, dirMode, vaultDir);
  const dir = join(vaultDir, '.obsidian');
  ensureRealDir(dir, dirMode, dir);
  const result: ObsidianConfigResult = { dir, written: [], kept: [] };
  for (const [name, content] of Object.entries(obsidianConfigFiles(options.hiddenFolders))) {
    try {
      writeFileExclusive(join(dir, name), content, fileMode, tempName);
      result.written.push(name);
    } catch (err) {
      if (err instanceof VaultError && err.code === 'already-exists') result.kept.push(name);
      else throw err;
    }
  }
  if (options.gitignore) {
    const path = join(vaultDir, '.gitignore');
    try {
      writeFileExclusive(path, VAULT_GITIGNORE, fileMode, tempName);
      result.vaultGitignore = { path, written: true };
    } catch (err) {
      if (err instanceof VaultError && err.code === 'already-exists') result.vaultGitignore = { path, written: false };
      else throw err;
    }
  }
  return result;
}
