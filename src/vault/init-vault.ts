/**
 * `vault init`: create the scope folders (and kind folders) of a vault.
 */
import { KINDS, type Scope } from '../document/contract.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';
import { prepareScope } from '../store/write-exclusive.js';

/** Result of {@link initVault}. */
export interface InitResult {
  scopes: Scope[];
  /** scope → absolute folder */
  roots: Partial<Record<Scope, string>>;
  /** folders created by this call (absolute); empty when everything existed */
  created: string[];
}

/**
 * Creates the folders of the given scopes with every kind folder, and the project scope's
 * fail-closed .gitignore. Idempotent; never modifies an existing file.
 *
 * @param scopes default project and team
 * @throws VaultError `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export function initVault(roots: VaultRoots, scopes: readonly Scope[] = ['project', 'team']): InitResult {
  const created: string[] = [];
  const out: Partial<Record<Scope, string>> = {};
  for (const scope of scopes) {
    created.push(...prepareScope(roots, scope, KINDS));
    out[scope] = scopeRoot(roots, scope);
  }
  return { scopes: [...scopes], roots: out, created };
}
