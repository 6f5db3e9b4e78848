/**
 * `vault share <id>`: moves a local project-scope memory into the committed team scope so it can
 * be reviewed in a pull request. The team file is created exclusively (create-only writer) with
 * `scope: team` and every other value unchanged (trust stays "unreviewed"); only then is the
 * project file removed. If any step fails, the project file stays and no team copy is left. Then
 * the search index of both scopes is refreshed.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { LIMITS, type Memory } from '../document/contract.js';
import { parseMemory } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { memoryFilePath, vaultRelativePath } from '../store/layout.js';
import { guardedDirs, type VaultRoots } from '../store/roots.js';
import { writeFileExclusive } from '../store/atomic-write.js';
import { modesFor, prepareScope } from '../store/scope-folders.js';
import { readMemory } from './read.js';
import { assertNoSecrets, refreshIndexAfterWrite } from './save.js';

/** Throws unless every folder from `top` down to `dir` is a real folder (lstat, one component at a time). */
function assertNoLinkOnPath(top: string, dir: string): void {
  const rel = relative(top, dir);
  const parts = rel === '' ? [] : rel.split(sep);
  let at = top;
  for (const part of ['', ...parts]) {
    at = part ? join(at, part) : at;
    let st;
    try {
      st = lstatSync(at);
    } catch {
      st = undefined;
    }
    if (rel.startsWith('..') || isAbsolute(rel) || !st || st.isSymbolicLink() || !st.isDirectory()) {
      throw new VaultError('symlink-refused', 'a folder on the path of the project memory is a symbolic link (or not a folder); nothing was moved', {
        rule: 'never follow symbolic links',
        hint: 'replace the link with a real folder (see vault doctor)',
      });
    }
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
  const before = readFileSafe(found.absPath, LIMITS.documentMaxBytes);
  if (!before.ok) throw new VaultError('io-error', `cannot read ${found.path} (${before.code})`, { hint: 'check the file permissions' });
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
  writeFileExclusive(absPath, text, modesFor('team').file, () => rt.randomHex(8));
  try {
    const now = readFileSafe(found.absPath, LIMITS.documentMaxBytes);
    if (!now.ok || !now.bytes.equals(before.bytes)) {
      throw new VaultError('io-error', `${found.path} changed while it was being shared; nothing was moved`, { hint: 'run vault share again' });
    }
    // The file the scan found, in the folder the scan walked: refuse if a folder on the way has
    // since become a link (unlink would otherwise remove a file outside the vault).
    assertNoLinkOnPath(guardedDirs(roots, 'project')[0]!, dirname(found.absPath));
    if (!lstatSync(found.absPath).isFile())
      throw new VaultError('symlink-refused', `${found.path} is no longer a regular file; nothing was moved`, { hint: 'run vault doctor' });
    unlinkSync(found.absPath);
  } catch (err) {
    // Roll back: the original stays, the team copy goes, so the id is never claimed twice.
    try {
      unlinkSync(absPath);
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
