/**
 * `vault share <id>`: moves a local project-scope memory into the committed team scope so it can
 * be reviewed in a pull request. The team file is created exclusively (create-only writer) with
 * `scope: team` and every other value unchanged (trust stays "unreviewed"), through the team kind
 * folder's handle as a save writes; only then is the project file removed, through a handle on its
 * folder (store/dir-handle.ts). If any step fails, the project file stays and no team copy is left. Then
 * the search index of both scopes is refreshed.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { kindFolder, LIMITS, type Memory } from '../document/contract.js';
import { parseMemory } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import type { DirHandle } from '../store/dir-handle.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { readScopeFile } from '../store/read-scope-file.js';
import { memoryFilePath, vaultRelativePath } from '../store/layout.js';
import type { VaultRoots } from '../store/roots.js';
import { openScopeDir, prepareScope } from '../store/scope-folders.js';
import { readMemory } from './read.js';
import { assertNoSecrets, refreshIndexAfterWrite, writeMemoryFile } from './save.js';

const LINKED_PROJECT_FOLDER = 'a folder on the path of the project memory is a symbolic link (or not a folder); nothing was moved';

/** Opens the folder of a project memory (`project/<segments…>/<name>`) through folder handles, no link on the way. */
function openProjectFolder(roots: VaultRoots, segments: readonly string[]): DirHandle {
  try {
    return openScopeDir(roots, 'project', segments);
  } catch (err) {
    if (err instanceof VaultError && err.code === 'symlink-refused')
      throw new VaultError('symlink-refused', LINKED_PROJECT_FOLDER, {
        rule: 'never follow symbolic links',
        hint: 'replace the link with a real folder (see vault doctor)',
      });
    throw err;
  }
}

/**
 * The fail-closed lookup of `id` in project and team. Its "not found" hint must fit share,
 * which has no `--scope` flag: a memory found in the user scope is named as such (share moves
 * project → team only; a user memory is saved again with `vault save --scope project`).
 */
function findProjectOrTeam(roots: VaultRoots, id: string) {
  try {
    return readMemory(roots, id, { scopes: ['project', 'team'] });
  } catch (err) {
    if (!(err instanceof VaultError) || err.code !== 'not-found') throw err;
    let inUser = false;
    try {
      inUser = readMemory(roots, id, { scopes: ['user'] }).scope === 'user';
    } catch {
      inUser = false; // not there, or the user scope is unreadable: the plain answer stands
    }
    if (inUser) {
      throw new VaultError('invalid-input', `memory ${id} is in the user scope; share moves a project memory into the team scope`, {
        field: 'id',
        rule: 'share moves project → team',
        hint: `user memories stay private; to share its content, save it again with \`vault save --scope project\` (see \`vault read ${id} --scope user\`), then share the new memory`,
      });
    }
    throw new VaultError('not-found', `memory ${id} was not found in scopes project, team`, {
      hint: 'check the id with `vault search`; share moves a project memory into the team scope',
    });
  }
}

/** Result of {@link shareMemory}. */
export interface ShareResult {
  memory: Memory;
  /** vault-relative path of the removed project file */
  from: string;
  /** vault-relative path of the new team file */
  to: string;
  /** absolute path of the new team file */
  absPath: string;
}

/**
 * Moves a project-scope memory to the team scope.
 *
 * @param roots the vault
 * @param id the memory's id
 * @param rt random names for the temporary file
 * @returns where the memory went
 * @throws VaultError from the fail-closed lookup (`read-incomplete`, `ambiguous`, `not-found`),
 *   `invalid-input` (not a project memory), `suspected-secret`, `already-exists`,
 *   `symlink-refused`, `io-error`
 */
export async function shareMemory(roots: VaultRoots, id: string, rt: Runtime): Promise<ShareResult> {
  const found = findProjectOrTeam(roots, id);
  if (found.scope !== 'project') {
    throw new VaultError('invalid-input', `memory ${id} is already in the ${found.scope} scope`, {
      field: 'id',
      rule: 'share moves project → team',
      hint: 'only a project-scope memory can be shared',
    });
  }
  const rel = found.path.slice(found.scope.length + 1);
  const before = readScopeFile(roots, 'project', rel, LIMITS.documentMaxBytes);
  if (!before.ok) {
    if (before.code === 'symlink-refused')
      throw new VaultError('symlink-refused', LINKED_PROJECT_FOLDER, {
        rule: 'never follow symbolic links',
        hint: 'replace the link with a real folder (see vault doctor)',
      });
    throw new VaultError('io-error', `cannot read ${found.path} (${before.code})`, { hint: 'check the file permissions' });
  }
  const memory: Memory = { ...found.memory, scope: 'team' };
  const text = serializeMemory(memory);
  const back = parseMemory(text);
  if (!back.canonical || JSON.stringify(back.memory) !== JSON.stringify(memory)) {
    // not the user's input: our serializer and parser disagree (exit 70, internal error)
    throw new Error('memory does not round-trip through the document format');
  }
  // It is about to be committed: the full secret check, as for a new save.
  await assertNoSecrets(text);
  const absPath = memoryFilePath(roots, 'team', memory.kind, memory.id);
  prepareScope(roots, 'team', [memory.kind]);
  // create-only through the team kind folder's handle, as a save writes
  writeMemoryFile(roots, memory, text, rt);
  const segments = rel.split('/');
  const name = segments.pop()!;
  try {
    const dir = openProjectFolder(roots, segments);
    try {
      // The file the scan found, in the folder the scan walked, through the folder's handle: a
      // folder on the way that has since become a link is never followed (unlink would otherwise
      // remove a file outside the vault).
      const now = readFileSafe(dir.child(name), LIMITS.documentMaxBytes);
      if (!dir.stillThere()) throw new VaultError('symlink-refused', LINKED_PROJECT_FOLDER, { hint: 'run vault doctor' });
      if (!now.ok || !now.bytes.equals(before.bytes)) {
        throw new VaultError('io-error', `${found.path} changed while it was being shared; nothing was moved`, { hint: 'run vault share again' });
      }
      if (!lstatSync(dir.child(name)).isFile())
        throw new VaultError('symlink-refused', `${found.path} is no longer a regular file; nothing was moved`, { hint: 'run vault doctor' });
      unlinkSync(dir.child(name));
    } finally {
      dir.close();
    }
  } catch (err) {
    // Roll back: the original stays, the team copy goes (through the team kind folder's handle),
    // so the id is never claimed twice.
    try {
      const team = openScopeDir(roots, 'team', [kindFolder(memory.kind)]);
      try {
        unlinkSync(team.child(`${memory.id}.md`));
      } finally {
        team.close();
      }
    } catch {
      /* nothing to undo */
    }
    if (err instanceof VaultError) throw err;
    throw new VaultError('io-error', `cannot remove ${found.path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); nothing was moved`, {
      hint: 'check the folder permissions',
      cause: err,
    });
  }
  // the scope it left and team: a search right after sees the move
  await refreshIndexAfterWrite(roots, [found.scope, 'team']);
  return { memory, from: found.path, to: vaultRelativePath('team', memory.kind, memory.id), absPath };
}
