/**
 * id ↔ path: where a memory of a scope and kind lives, and the vault-relative names shown to
 * users (`team/decisions/mem_x.md`). Paths are built only from validated ids and enum values.
 */
import { join } from 'node:path';
import { kindFolder, type Kind, type Scope } from '../document/contract.js';
import { assertMemoryId } from './ids.js';
import { scopeRoot, type VaultRoots } from './roots.js';

/** Content of the project scope's fail-closed .gitignore: ignore everything but itself. */
export const PROJECT_GITIGNORE = '*\n!.gitignore\n';

/** Absolute path of a memory file. @throws VaultError `invalid-input` for a bad id */
export function memoryFilePath(roots: VaultRoots, scope: Scope, kind: Kind, id: string): string {
  return join(scopeRoot(roots, scope), kindFolder(kind), `${assertMemoryId(id)}.md`);
}

/** Vault-relative path shown to users and in JSON: `<scope>/<kind>s/<id>.md`. */
export function vaultRelativePath(scope: Scope, kind: Kind, id: string): string {
  return `${scope}/${kindFolder(kind)}/${id}.md`;
}
