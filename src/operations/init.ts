/**
 * `vault init`: create the scope folders (and kind folders) of a vault.
 */
import { KINDS, type Scope } from '../document/contract.js';
import { assertVault, scopeRoot, type VaultRoots } from '../store/roots.js';
import { checkScope, prepareScope } from '../store/scope-folders.js';

/** Result of {@link initVault}. */
export interface InitResult {
  scopes: Scope[];
  /** scope → absolute folder */
  roots: Partial<Record<Scope, string>>;
  /** folders created by this call (absolute; for a dry run, the folders that are missing); empty when everything existed */
  created: string[];
}

/**
 * Creates the folders of the given scopes with every kind folder, and the project scope's
 * fail-closed .gitignore. Idempotent; never modifies an existing file.
 *
 * With `dryRun`, checks the same things (symlinks, the project .gitignore) and reports what would
 * be created, creating nothing (ECC_DRY_RUN=1 and `--dry-run` map to it).
 *
 * @param scopes default project and team
 * @param options `dryRun`: write nothing
 * @returns the scopes, their folders, and the folders created (or, for a dry run, missing)
 * Where there is no vault (no git work tree, explicit root or `.ecc/memory` folder; see
 * store/roots.ts), project and team scopes are refused: `vault init --here` resolves the roots
 * with the working directory as the vault's folder.
 *
 * @throws VaultError `no-vault` (no vault here; exit 7), `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export function initVault(roots: VaultRoots, scopes: readonly Scope[] = ['project', 'team'], options: { dryRun?: boolean } = {}): InitResult {
  const created: string[] = [];
  const out: Partial<Record<Scope, string>> = {};
  if (scopes.some((s) => s !== 'user')) assertVault(roots, `create the ${scopes.filter((s) => s !== 'user').join(' and ')} scope`);
  for (const scope of scopes) {
    for (const dir of options.dryRun ? checkScope(roots, scope, KINDS) : prepareScope(roots, scope, KINDS)) {
      if (!created.includes(dir)) created.push(dir); // scopes share .ecc/ and .ecc/memory/
    }
    out[scope] = scopeRoot(roots, scope);
  }
  return { scopes: [...scopes], roots: out, created };
}
