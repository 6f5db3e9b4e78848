/**
 * Which vault files git sees as changed, for `vault doctor --changed <ref>` and `--staged`.
 * Spawns `git` (arguments as an array, never through a shell; the ref is checked first).
 *
 * `--changed <ref>` compares the working tree with the merge base of `<ref>` and HEAD (what a pull
 * request shows), plus untracked files. `--staged` lists the files in the index that differ from
 * HEAD; their working-tree copies are checked (as lint-staged does), so stage what you check.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';

/** Files changed in git, as vault-relative paths of the checked scopes. */
export interface GitChanges {
  /** the repository's top folder (absolute, real path) */
  top: string;
  /** vault-relative paths of changed files that exist in the working tree */
  changed: string[];
  /** vault-relative paths of files deleted since the base */
  deleted: string[];
}

const MAX_OUTPUT = 64 * 1024 * 1024;

function run(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: MAX_OUTPUT, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  if (r.error) {
    throw new VaultError('io-error', `git could not be run (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})`, { hint: 'install git, or run doctor without --changed/--staged', cause: r.error });
  }
  return { ok: r.status === 0, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** Parses `git diff --name-status -z` output into changed and deleted repository paths. */
function parseNameStatus(out: string): { changed: string[]; deleted: string[] } {
  const parts = out.split('\0');
  const changed: string[] = [];
  const deleted: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i]!;
    const path = parts[i + 1]!;
    if (!status) break;
    (status.startsWith('D') ? deleted : changed).push(path);
  }
  return { changed, deleted };
}

/**
 * Lists the changed files of the vault's scopes.
 *
 * @param roots the vault (its worktree is where git runs)
 * @param scopes scopes whose files count
 * @param mode `{ref}` for --changed, `{staged: true}` for --staged
 * @throws VaultError `usage` for a ref that is not a commit or starts with "-", `io-error` when
 *   git is missing or the vault is not in a git repository
 */
export function gitChanges(roots: VaultRoots, scopes: readonly Scope[], mode: { ref: string } | { staged: true }): GitChanges {
  const cwd = roots.worktreeRoot;
  const topRun = run(cwd, ['rev-parse', '--show-toplevel']);
  if (!topRun.ok) throw new VaultError('io-error', '--changed and --staged need a git repository, and this vault is not in one', { hint: 'run doctor without --changed/--staged' });
  const top = realpathSync(topRun.out.trim());
  let listed: { changed: string[]; deleted: string[] };
  if ('ref' in mode) {
    const ref = mode.ref;
    if (ref === '' || ref.startsWith('-') || /[\u0000-\u001f\s]/.test(ref)) throw new VaultError('usage', '--changed needs a git ref such as origin/main', { hint: 'e.g. vault doctor --changed origin/main' });
    const verify = run(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
    if (!verify.ok) throw new VaultError('usage', `--changed: ${ref} is not a commit in this repository`, { hint: 'fetch it first (git fetch origin main) or name another ref' });
    const mb = run(cwd, ['merge-base', verify.out.trim(), 'HEAD']);
    const base = mb.ok ? mb.out.trim() : verify.out.trim();
    const diff = run(cwd, ['diff', '--name-status', '-z', '--no-renames', base, '--']);
    if (!diff.ok) throw new VaultError('io-error', `git diff failed: ${diff.err.split('\n')[0]}`, { hint: 'check the repository state' });
    listed = parseNameStatus(diff.out);
    const untracked = run(cwd, ['ls-files', '-z', '--others', '--exclude-standard']);
    if (untracked.ok) listed.changed.push(...untracked.out.split('\0').filter(Boolean));
  } else {
    const diff = run(cwd, ['diff', '--cached', '--name-status', '-z', '--no-renames']);
    if (!diff.ok) throw new VaultError('io-error', `git diff --cached failed: ${diff.err.split('\n')[0]}`, { hint: 'check the repository state' });
    listed = parseNameStatus(diff.out);
  }
  const scopeRels: Array<[Scope, string]> = [];
  for (const scope of scopes) {
    let abs = scopeRoot(roots, scope);
    try {
      abs = realpathSync(abs);
    } catch {
      /* missing scope folder: compare the plain path */
    }
    const rel = relative(top, abs).split('\\').join('/');
    if (!rel.startsWith('..') && !isAbsolute(rel)) scopeRels.push([scope, rel]);
  }
  const toVault = (repoPath: string): string | undefined => {
    for (const [scope, rel] of scopeRels) {
      if (rel === '') return `${scope}/${repoPath}`;
      if (repoPath.startsWith(`${rel}/`)) return `${scope}/${repoPath.slice(rel.length + 1)}`;
    }
    return undefined;
  };
  const uniq = (xs: string[]) => [...new Set(xs.map(toVault).filter((p): p is string => p !== undefined))].sort();
  return { top, changed: uniq(listed.changed), deleted: uniq(listed.deleted) };
}
