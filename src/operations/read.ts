/**
 * Fail-closed lookup of one memory by id, with its backlinks.
 */
import { doctorCommandFor, linkedIds, type Memory, type Scope } from '../document/contract.js';
import { isVaultError, VaultError } from '../errors.js';
import { scanVault, type ScanEntry, type ScanOptions, type ScanResult } from '../scanner/scan-vault.js';
import { assertMemoryId } from '../store/ids.js';
import { NO_VAULT_HINT, noVaultMessage, type VaultRoots } from '../store/roots.js';

/** A memory that links to the one being read. */
export interface Backlink {
  id: string;
  title: string;
  kind: string;
  scope: Scope;
  status: string;
  path: string;
}

/** Result of {@link readMemory}. */
export interface ReadResult {
  memory: Memory;
  scope: Scope;
  /** vault-relative path */
  path: string;
  absPath: string;
  canonical: boolean;
  /** memories that link to this one (frontmatter links and body wikilinks), sorted by id */
  backlinks: Backlink[];
}

/**
 * Collects the backlinks of `id` among scanned entries.
 *
 * @returns entries linking to `id`, sorted by id (code points), without bodies
 */
export function backlinksOf(id: string, entries: readonly ScanEntry[]): Backlink[] {
  return entries
    .filter((e) => e.memory.id !== id && linkedIds(e.memory).includes(id))
    .map((e) => ({ id: e.memory.id, title: e.memory.title, kind: e.memory.kind, scope: e.scope, status: e.memory.status, path: e.path }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Finds one memory by id, fail-closed.
 *
 * Order of answers: an invalid id is refused; an incomplete scan (limits hit, unreadable
 * folders, invalid files in the scanned scopes, a skipped symlink named `<id>.md`) answers
 * `read-incomplete` before any found/not-found decision; two files with the id answer `ambiguous`; none answers `not-found`.
 *
 * @param roots the vault's roots
 * @param id the memory id
 * @param options scopes to search (default project and team)
 * @throws VaultError `invalid-input`, `read-incomplete`, `ambiguous`, `not-found`
 */
export function readMemory(roots: VaultRoots, id: string, options: ScanOptions = {}): ReadResult {
  assertMemoryId(id);
  const scan = scanVault(roots, options);
  try {
    return readFromScan(scan, id);
  } catch (err) {
    // Outside any vault the project and team scopes are empty: say so, with the three ways to have one.
    if (roots.located === 'none' && isVaultError(err) && err.code === 'not-found' && scan.scopes.some((s) => s !== 'user'))
      throw new VaultError('not-found', `${err.message}: ${noVaultMessage(roots)}`, { hint: `${NO_VAULT_HINT}; for your own memories add --scope user` });
    throw err;
  }
}

/** {@link readMemory} over an existing scan result. */
export function readFromScan(scan: ScanResult, id: string): ReadResult {
  if (!scan.complete || scan.invalid.length > 0) {
    const why = !scan.complete ? scan.incompleteReasons[0] : `${scan.invalid.length} invalid file(s), e.g. ${scan.invalid[0]!.path}`;
    throw new VaultError('read-incomplete', `memory lookup is incomplete: ${why}`, {
      rule: 'fail-closed reads',
      hint: `run \`${doctorCommandFor(scan.scopes)}\` and fix the reported files; a memory cannot be declared missing while the vault is not fully readable`,
    });
  }
  // A skipped symlink named <id>.md may be this very memory: it was never read, so neither
  // "found" nor "not found" can be claimed.
  const linked = scan.symlinks.find((p) => p.slice(p.lastIndexOf('/') + 1) === `${id}.md`);
  if (linked !== undefined) {
    throw new VaultError('read-incomplete', `memory lookup is incomplete: ${linked} is a symbolic link, which is never followed`, {
      rule: 'fail-closed reads',
      hint: 'replace the link with the real file (see `vault doctor`)',
    });
  }
  const found = scan.entries.filter((e) => e.memory.id === id);
  if (found.length > 1) {
    throw new VaultError('ambiguous', `memory ${id} is claimed by ${found.length} files: ${found.map((e) => e.path).join(', ')}`, {
      rule: 'unique ids',
      hint: 'keep one of them; run `vault doctor` for details',
    });
  }
  const entry = found[0];
  if (!entry) {
    throw new VaultError('not-found', `memory ${id} was not found in scopes ${scan.scopes.join(', ')}`, {
      hint: scan.scopes.includes('user') ? 'check the id with `vault search`' : 'check the id with `vault search`, or add --scope user',
    });
  }
  return {
    memory: entry.memory,
    scope: entry.scope,
    path: entry.path,
    absPath: entry.absPath,
    canonical: entry.canonical,
    backlinks: backlinksOf(id, scan.entries),
  };
}
