/**
 * `vault fmt`: rewrites memory files that are valid but not in canonical form (BOM, CRLF,
 * block-style or unquoted YAML, body spacing) into the canonical serialization. It is the one
 * command that rewrites an existing file, and it never changes a value: the new text must parse
 * back to exactly the same values, canonically, or nothing is written. Invalid files, files with
 * a suspected secret and symbolic links are refused and left alone.
 *
 * A file is read and rewritten through a handle on its folder (store/dir-handle.ts), and the rewrite
 * is the one rewrite primitive (`replaceFileInFolder`, store/atomic-write.ts: a hidden temporary
 * file in the same folder with the same permissions, fsynced, renamed over the original through the
 * handle) only if the original did not change in the meantime; a crash leaves the old file or the
 * new one, never half of either.
 */
import { lstatSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LIMITS, SCOPES, type Memory, type Scope } from '../document/contract.js';
import { parseMemory, type NonCanonicalReason } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { isVaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { describeParseError } from '../scanner/parse-problem.js';
import { walkVault, DEFAULT_SCAN_LIMITS } from '../scanner/scan-vault.js';
import { findSecretShapes } from '../secrets/scan-secrets.js';
import { replaceFileInFolder } from '../store/atomic-write.js';
import { DirHandle, isLinkRefusal } from '../store/dir-handle.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { guardedDirs, scopeRoot, type VaultRoots } from '../store/roots.js';

/** What happened to one file. */
export type FmtStatus = 'unchanged' | 'formatted' | 'would-format' | 'refused';

/** Result for one file. Never holds file content. */
export interface FmtFileResult {
  /** vault-relative when the file is in the vault, else as given (relative to cwd) */
  path: string;
  absPath: string;
  status: FmtStatus;
  /** why it is not canonical (formatted / would-format) */
  reasons?: NonCanonicalReason[];
  /** why it was refused: a document error code, `suspected-secret`, `symlink`, `not-a-memory-file`, ... */
  code?: string;
  message?: string;
  line?: number;
}

/** Result of {@link fmtMemories}. */
export interface FmtResult {
  files: FmtFileResult[];
  /** counts by status */
  counts: Record<FmtStatus, number>;
}

/** Options of {@link fmtMemories}. */
export interface FmtOptions {
  /** write nothing; report what would change */
  check?: boolean;
  /** scopes to format when no paths are given (default project and team) */
  scopes?: readonly Scope[];
}

function sameValues(a: Memory, b: Memory): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function vaultPathOf(roots: VaultRoots, abs: string, fallback: string): string {
  for (const scope of SCOPES) {
    const rel = relative(scopeRoot(roots, scope), abs);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return `${scope}/${rel.split('\\').join('/')}`;
  }
  return fallback;
}

/** A file to format, or a refusal. `linkFreeFrom` is the folder below which no link may sit. */
interface Target {
  abs: string;
  given: string;
  linkFreeFrom?: string;
  refused?: FmtFileResult;
}

/** True when `abs` is `dir` or inside it (lexically: nothing is resolved, no link is followed). */
function isInside(dir: string, abs: string): boolean {
  const rel = relative(dir, abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The first symbolic link (or non-folder) among the folders from `top` down to `dir`, checked
 * with lstat one component at a time; undefined when every one is a real folder.
 */
function linkOnPath(top: string, dir: string): string | undefined {
  const rel = relative(top, dir);
  if (rel.startsWith('..') || isAbsolute(rel)) return dir;
  let at = top;
  for (const part of ['', ...(rel ? rel.split(sep) : [])]) {
    at = part ? join(at, part) : at;
    try {
      const st = lstatSync(at);
      if (st.isSymbolicLink() || !st.isDirectory()) return at;
    } catch {
      return at;
    }
  }
  return undefined;
}

/**
 * Resolves the files to format. Only files that the vault walk itself finds are ever formatted
 * (the walk never follows a link at any depth), so a path through a linked kind folder, a
 * linked scope folder or a linked `.ecc` folder is refused, never rewritten. Given paths are
 * files or folders relative to cwd (a path like `team/decisions/x.md` that does not exist
 * there is taken as vault-relative); a path that does not exist (code `not-found`) or lies
 * outside every scope folder is refused.
 */
function targetsOf(roots: VaultRoots, paths: readonly string[], cwd: string, scopes: readonly Scope[]): Target[] {
  const walked = new Map<Scope, Array<{ abs: string; path: string }>>();
  const filesOf = (scope: Scope) => {
    let files = walked.get(scope);
    if (!files) {
      const list: Array<{ abs: string; path: string }> = [];
      walkVault(roots, [scope], DEFAULT_SCAN_LIMITS, (f) => {
        list.push({ abs: f.absPath, path: f.path });
      });
      walked.set(scope, (files = list));
    }
    return files;
  };
  const topOf = (scope: Scope) => guardedDirs(roots, scope)[0]!;
  if (paths.length === 0) return scopes.flatMap((scope) => filesOf(scope).map((f) => ({ abs: f.abs, given: f.path, linkFreeFrom: topOf(scope) })));

  const out: Target[] = [];
  const refuse = (abs: string, given: string, code: string, message: string) =>
    out.push({ abs, given, refused: { path: given, absPath: abs, status: 'refused', code, message } });
  for (const given of paths) {
    let abs = resolve(cwd, given);
    const head = given.split(/[\\/]/)[0] as Scope;
    if (!existsNoFollow(abs) && (SCOPES as readonly string[]).includes(head) && !isAbsolute(given)) {
      abs = resolve(scopeRoot(roots, head), given.slice(head.length + 1));
    }
    if (!existsNoFollow(abs)) {
      refuse(abs, given, 'not-found', 'does not exist');
      continue;
    }
    const scope = SCOPES.find((s) => isInside(scopeRoot(roots, s), abs));
    const holds = scope ? [] : SCOPES.filter((s) => isInside(abs, scopeRoot(roots, s)) && existsNoFollow(abs));
    if (holds.length > 0) {
      // A folder above the scope folders (the repository, `.ecc/memory`): every memory below it.
      for (const s of holds) out.push(...filesOf(s).map((f) => ({ abs: f.abs, given: f.path, linkFreeFrom: topOf(s) })));
      continue;
    }
    if (!scope) {
      refuse(
        abs,
        given,
        'outside-vault',
        `not inside a scope folder of the vault (${SCOPES.map((s) => `${s}/`).join(', ')}); fmt only rewrites memory files of the vault`,
      );
      continue;
    }
    const top = topOf(scope);
    const link = linkOnPath(top, dirname(abs)) ?? (isSymlink(abs) ? abs : undefined);
    if (link !== undefined && existsNoFollow(link) && isSymlink(link)) {
      refuse(
        abs,
        given,
        'symlink',
        link === abs
          ? 'symbolic link: never followed, never rewritten'
          : 'a folder on the path is a symbolic link: never followed, nothing below it is rewritten',
      );
      continue;
    }
    if (!existsNoFollow(abs)) {
      refuse(abs, given, 'not-found', 'no such file or folder');
      continue;
    }
    const found = filesOf(scope).filter((f) => isInside(abs, f.abs));
    if (found.length === 0) {
      const isDir = lstatSync(abs).isDirectory();
      if (isDir) continue; // an empty folder: nothing to format
      refuse(abs, given, 'not-a-memory-file', 'not a memory file of the vault (*.md in a scope folder, not hidden, not an editor file)');
      continue;
    }
    for (const f of found) out.push({ abs: f.abs, given: f.path, linkFreeFrom: top });
  }
  return out;
}

function existsNoFollow(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

function isSymlink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Opens the folder `dir` through {@link DirHandle}: `top` as given, then each folder below it from
 * its parent's handle, never through a link.
 *
 * @throws the file system's error (`ELOOP`/`ENOTDIR` for a link or a file on the way, `EXDEV`
 *   when `dir` is not inside `top`)
 */
function openBelow(top: string, dir: string): DirHandle {
  const rel = relative(top, dir);
  if (rel.startsWith('..') || isAbsolute(rel)) throw Object.assign(new Error('outside the vault'), { code: 'ENOTDIR' });
  return DirHandle.open(dirname(top), [basename(top), ...(rel ? rel.split(sep) : [])]);
}

const SYMLINK_ON_PATH = 'a folder on the path is a symbolic link (or not a folder): never followed, nothing below it is rewritten';

/**
 * Formats one memory file (or, with `check`, says whether it would change). The file is read and
 * rewritten through a handle on its folder, opened from `linkFreeFrom` down without following a
 * link (store/dir-handle.ts), so a folder swapped for a link meanwhile is never followed.
 *
 * @param absPath the file
 * @param path how to name it in the result
 * @param rt random names for the temporary file
 * @param linkFreeFrom the folder below which no link may sit (default: the file's folder)
 * @returns the outcome; refusals are values, not exceptions
 */
export function formatMemoryFile(absPath: string, path: string, rt: Runtime, check: boolean, linkFreeFrom: string = dirname(absPath)): FmtFileResult {
  const base: FmtFileResult = { path, absPath, status: 'refused' };
  let dir: DirHandle;
  try {
    dir = openBelow(linkFreeFrom, dirname(absPath));
  } catch (err) {
    if (isLinkRefusal(err)) return { ...base, code: 'symlink', message: SYMLINK_ON_PATH };
    return { ...base, code: 'unreadable', message: `file could not be read (${(err as NodeJS.ErrnoException).code ?? 'read-error'})` };
  }
  try {
    return formatIn(dir, basename(absPath), base, rt, check);
  } finally {
    dir.close();
  }
}

function formatIn(dir: DirHandle, name: string, base: FmtFileResult, rt: Runtime, check: boolean): FmtFileResult {
  const read = readFileSafe(dir.child(name), LIMITS.documentMaxBytes);
  if (!dir.stillThere()) return { ...base, code: 'symlink', message: SYMLINK_ON_PATH };
  if (!read.ok) {
    const why =
      read.code === 'too-large'
        ? 'document is too large'
        : read.code === 'ELOOP'
          ? 'symbolic link: never followed, never rewritten'
          : `file could not be read (${read.code})`;
    return { ...base, code: read.code === 'too-large' ? 'document-too-large' : read.code === 'ELOOP' ? 'symlink' : 'unreadable', message: why };
  }
  let parsed;
  try {
    parsed = parseMemory(read.bytes);
  } catch (err) {
    if (!isVaultError(err)) throw err;
    const p = describeParseError(read.bytes, err);
    return { ...base, code: p.code, message: `invalid document, not formatted: ${p.message}`, ...(p.line ? { line: p.line } : {}) };
  }
  if (parsed.canonical) return { ...base, status: 'unchanged' };
  const labels = findSecretShapes(read.bytes.toString('utf8'));
  if (labels.length > 0) return { ...base, code: 'suspected-secret', message: `suspected secret (${labels.join(', ')}); remove it first (see vault doctor)` };
  const text = serializeMemory(parsed.memory);
  // Same values, canonical form: checked before anything is written.
  const back = parseMemory(text);
  if (!back.canonical || !sameValues(back.memory, parsed.memory)) {
    return { ...base, code: 'internal', message: 'the canonical form would not keep the same values; not formatted (please report this)' };
  }
  if (check) return { ...base, status: 'would-format', reasons: parsed.nonCanonical };
  replaceFileInFolder(dir, name, text, read.bytes, {
    tempPrefix: '.ecc-memory-fmt-',
    randomHex: (n) => rt.randomHex(n),
    maxBytes: LIMITS.documentMaxBytes,
    defaultMode: 0o600,
    wording: { shown: name, doing: 'formatted', nothing: 'nothing was written', again: 'vault fmt' },
  });
  return { ...base, status: 'formatted', reasons: parsed.nonCanonical };
}

/**
 * Formats memory files into the canonical ecc.memory.v1 serialization.
 *
 * @param roots the vault
 * @param paths files or folders (empty: every memory file of the scopes)
 * @param rt working directory and random names
 * @param options `check` (write nothing), `scopes`
 * @returns one result per file, in order
 * @throws VaultError `io-error` when a rewrite fails (the original is kept)
 */
export function fmtMemories(roots: VaultRoots, paths: readonly string[], rt: Runtime, options: FmtOptions = {}): FmtResult {
  const scopes = options.scopes?.length ? options.scopes : (['project', 'team'] as Scope[]);
  const files: FmtFileResult[] = [];
  const seen = new Set<string>();
  for (const t of targetsOf(roots, paths, rt.cwd, scopes)) {
    if (seen.has(t.abs)) continue;
    seen.add(t.abs);
    const shown = vaultPathOf(roots, t.abs, relative(rt.cwd, t.abs) || t.given);
    if (t.refused) {
      files.push({ ...t.refused, path: shown });
      continue;
    }
    files.push(formatMemoryFile(t.abs, shown, rt, Boolean(options.check), t.linkFreeFrom));
  }
  const counts: Record<FmtStatus, number> = { unchanged: 0, formatted: 0, 'would-format': 0, refused: 0 };
  for (const f of files) counts[f.status]++;
  return { files, counts };
}
