/**
 * Which vault files git sees as changed, for `vault doctor --changed <ref>` and `--staged`.
 * Runs `git` through the git port (src/io/git.ts: arguments as an array, never through a shell;
 * the ref is checked first).
 *
 * `--changed <ref>` compares the working tree with the merge base of `<ref>` and HEAD (what a pull
 * request shows), plus untracked files. `--staged` lists the files in the index that differ from
 * HEAD, with their staged blobs, so doctor checks exactly what the commit will hold.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { GitRunner } from '../io/git.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';

/** Files changed in git, as vault-relative paths of the checked scopes. */
export interface GitChanges {
  /** the repository's top folder (absolute, real path) */
  top: string;
  /** vault-relative paths of changed files that exist in the working tree */
  changed: string[];
  /** vault-relative paths of files deleted since the base */
  deleted: string[];
  /** `--staged` only: what the index holds for each changed vault path (mode 100644, 120000, ...; blob id) */
  staged?: StagedFile[];
}

/** One staged change, as `git diff --cached --raw` reports it. */
export interface StagedFile {
  /** vault-relative path */
  path: string;
  /** git file mode in the index: 100644 / 100755 regular, 120000 symbolic link, 160000 submodule */
  mode: string;
  /** blob id in the index */
  sha: string;
  deleted: boolean;
}

function runIn(git: GitRunner, cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  // --no-optional-locks: doctor never writes, not even git's index stat cache.
  const r = git(cwd, ['--no-optional-locks', ...args]);
  if (r.error !== undefined) {
    throw new VaultError('io-error', `git could not be run (${r.error})`, { hint: 'install git, or run doctor without --changed/--staged' });
  }
  return { ok: r.status === 0, out: r.stdout.toString('utf8'), err: r.stderr };
}

interface RawChange {
  path: string;
  mode: string;
  sha: string;
  deleted: boolean;
}

/** Parses `git diff --raw -z --no-abbrev` output: `:<old mode> <new mode> <old sha> <new sha> <status>` NUL `<path>` NUL. */
function parseRaw(out: string): RawChange[] {
  const parts = out.split('\0');
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const header = parts[i]!;
    if (!header.startsWith(':')) break;
    const [, mode = '', , sha = '', status = ''] = header.slice(1).split(' ');
    changes.push({ path: parts[i + 1]!, mode, sha, deleted: status.startsWith('D') });
  }
  return changes;
}

/**
 * Reads blobs from the object database in one `git cat-file --batch` run.
 *
 * @param git runs git (src/io/git.ts)
 * @param shas blob ids (40 or 64 hex)
 * @returns id → content; ids git does not have are left out
 */
export function readBlobs(git: GitRunner, cwd: string, shas: readonly string[]): Map<string, Buffer> {
  const wanted = [...new Set(shas.filter((x) => /^[0-9a-f]{40,64}$/.test(x)))];
  const out = new Map<string, Buffer>();
  if (wanted.length === 0) return out;
  const r = git(cwd, ['--no-optional-locks', 'cat-file', '--batch'], `${wanted.join('\n')}\n`);
  if (r.error !== undefined || r.status !== 0 || r.stdout.length === 0)
    throw new VaultError('io-error', 'git cat-file could not read the staged files', { hint: 'check the repository state' });
  const buf = r.stdout;
  let at = 0;
  for (const sha of wanted) {
    const nl = buf.indexOf(10, at);
    if (nl === -1) break;
    const header = buf.subarray(at, nl).toString('utf8').split(' ');
    at = nl + 1;
    if (header[1] === 'missing' || header.length < 3) continue;
    const size = Number(header[2]);
    out.set(sha, buf.subarray(at, at + size));
    at += size + 1; // content, then a newline
  }
  return out;
}

/**
 * Lists the changed files of the vault's scopes.
 *
 * @param git runs git (src/io/git.ts)
 * @param roots the vault (its worktree is where git runs)
 * @param scopes scopes whose files count
 * @param mode `{ref}` for --changed, `{staged: true}` for --staged
 * @throws VaultError `usage` for a ref that is not a commit or starts with "-", `io-error` when
 *   git is missing or the vault is not in a git repository
 */
export function gitChanges(git: GitRunner, roots: VaultRoots, scopes: readonly Scope[], mode: { ref: string } | { staged: true }): GitChanges {
  const cwd = roots.worktreeRoot;
  const run = (args: string[]) => runIn(git, cwd, args);
  const topRun = run(['rev-parse', '--show-toplevel']);
  if (!topRun.ok)
    throw new VaultError('io-error', '--changed and --staged need a git repository, and this vault is not in one', {
      hint: 'run doctor without --changed/--staged',
    });
  const top = realpathSync(topRun.out.trim());
  let listed: { changed: string[]; deleted: string[] };
  let raw: RawChange[] = [];
  if ('ref' in mode) {
    const ref = mode.ref;
    if (ref === '' || ref.startsWith('-') || /[\u0000-\u001f\s]/.test(ref))
      throw new VaultError('usage', '--changed needs a git ref such as origin/main', { hint: 'e.g. vault doctor --changed origin/main' });
    const verify = run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
    if (!verify.ok)
      throw new VaultError('usage', `--changed: ${ref} is not a commit in this repository`, {
        hint: 'fetch it first (git fetch origin main) or name another ref',
      });
    const mb = run(['merge-base', verify.out.trim(), 'HEAD']);
    const base = mb.ok ? mb.out.trim() : verify.out.trim();
    const diff = run(['diff', '--raw', '-z', '--no-abbrev', '--no-renames', base, '--']);
    if (!diff.ok) throw new VaultError('io-error', `git diff failed: ${diff.err.split('\n')[0]}`, { hint: 'check the repository state' });
    raw = parseRaw(diff.out);
    listed = { changed: raw.filter((c) => !c.deleted).map((c) => c.path), deleted: raw.filter((c) => c.deleted).map((c) => c.path) };
    const untracked = run(['ls-files', '-z', '--others', '--exclude-standard']);
    if (untracked.ok) listed.changed.push(...untracked.out.split('\0').filter(Boolean));
  } else {
    const diff = run(['diff', '--cached', '--raw', '-z', '--no-abbrev', '--no-renames']);
    if (!diff.ok) throw new VaultError('io-error', `git diff --cached failed: ${diff.err.split('\n')[0]}`, { hint: 'check the repository state' });
    raw = parseRaw(diff.out);
    listed = { changed: raw.filter((c) => !c.deleted).map((c) => c.path), deleted: raw.filter((c) => c.deleted).map((c) => c.path) };
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
  const result: GitChanges = { top, changed: uniq(listed.changed), deleted: uniq(listed.deleted) };
  if (!('ref' in mode)) {
    result.staged = raw.flatMap((c) => {
      const path = toVault(c.path);
      return path === undefined ? [] : [{ path, mode: c.mode, sha: c.sha, deleted: c.deleted }];
    });
  }
  return result;
}
