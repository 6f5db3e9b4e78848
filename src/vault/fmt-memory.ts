/**
 * `vault fmt`: rewrites memory files that are valid but not in canonical form (BOM, CRLF,
 * block-style or unquoted YAML, body spacing) into the canonical serialization. It is the one
 * command that rewrites an existing file, and it never changes a value: the new text must parse
 * back to exactly the same values, canonically, or nothing is written. Invalid files, files with
 * a suspected secret and symbolic links are refused and left alone.
 *
 * A rewrite goes to a hidden temporary file in the same folder (O_EXCL|O_NOFOLLOW, same
 * permissions, fsynced) and is renamed over the original only if the original did not change
 * in the meantime; a crash leaves the old file or the new one, never half of either.
 */
import { closeSync, constants, fsyncSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { LIMITS, SCOPES, type Memory, type Scope } from '../document/contract.js';
import { parseMemory, type NonCanonicalReason } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { isVaultError, VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { describeParseError } from '../scanner/parse-problem.js';
import { isEditorFile, readFileSafe, walkVault, DEFAULT_SCAN_LIMITS } from '../scanner/scan-vault.js';
import { findSecretShapes } from '../secrets/scan-secrets.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';

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

/** Collects `*.md` files under a folder: no hidden entries, no symlinks, no editor files. */
function collectFolder(dir: string, depth: number, out: string[]): void {
  if (depth > DEFAULT_SCAN_LIMITS.maxDepth) return;
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of names) {
    if (d.name.startsWith('.') || d.isSymbolicLink()) continue;
    const abs = join(dir, d.name);
    if (d.isDirectory()) collectFolder(abs, depth + 1, out);
    else if (d.isFile() && d.name.endsWith('.md') && !isEditorFile(d.name)) out.push(abs);
  }
}

/**
 * Resolves the files to format: the given paths (files or folders, relative to cwd; a path like
 * `team/decisions/x.md` that does not exist there is taken as vault-relative), or every memory
 * file of the scopes.
 */
function targetsOf(roots: VaultRoots, paths: readonly string[], cwd: string, scopes: readonly Scope[]): Array<{ abs: string; given: string; refused?: FmtFileResult }> {
  if (paths.length === 0) {
    const files: Array<{ abs: string; given: string }> = [];
    walkVault(roots, scopes, DEFAULT_SCAN_LIMITS, (f) => {
      files.push({ abs: f.absPath, given: f.path });
    });
    return files;
  }
  const out: Array<{ abs: string; given: string; refused?: FmtFileResult }> = [];
  for (const given of paths) {
    let abs = resolve(cwd, given);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      const head = given.split(/[\\/]/)[0] as Scope;
      if ((SCOPES as readonly string[]).includes(head) && !isAbsolute(given)) {
        abs = join(scopeRoot(roots, head), given.slice(head.length + 1));
        try {
          st = lstatSync(abs);
        } catch {
          /* reported below */
        }
      }
    }
    if (!st) {
      out.push({ abs, given, refused: { path: given, absPath: abs, status: 'refused', code: 'not-found', message: 'no such file or folder' } });
    } else if (st.isSymbolicLink()) {
      out.push({ abs, given, refused: { path: given, absPath: abs, status: 'refused', code: 'symlink', message: 'symbolic link: never followed, never rewritten' } });
    } else if (st.isDirectory()) {
      const files: string[] = [];
      collectFolder(abs, 0, files);
      for (const f of files) out.push({ abs: f, given: f });
    } else if (!given.endsWith('.md') || isEditorFile(given)) {
      out.push({ abs, given, refused: { path: given, absPath: abs, status: 'refused', code: 'not-a-memory-file', message: 'not a memory file (*.md)' } });
    } else {
      out.push({ abs, given });
    }
  }
  return out;
}

/**
 * Formats one memory file (or, with `check`, says whether it would change).
 *
 * @param absPath the file
 * @param path how to name it in the result
 * @param rt random names for the temporary file
 * @returns the outcome; refusals are values, not exceptions
 */
export function formatMemoryFile(absPath: string, path: string, rt: Runtime, check: boolean): FmtFileResult {
  const base: FmtFileResult = { path, absPath, status: 'refused' };
  const read = readFileSafe(absPath, LIMITS.documentMaxBytes);
  if (!read.ok) {
    const why = read.code === 'too-large' ? 'document is too large' : read.code === 'ELOOP' ? 'symbolic link: never followed, never rewritten' : `file could not be read (${read.code})`;
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
  writeOver(absPath, text, read.bytes, rt);
  return { ...base, status: 'formatted', reasons: parsed.nonCanonical };
}

/** Replaces `absPath` with `text` via a temporary file + rename, if it still holds `expected`. */
function writeOver(absPath: string, text: string, expected: Buffer, rt: Runtime): void {
  const dir = dirname(absPath);
  const st = lstatSync(absPath);
  const tmp = join(dir, `.ecc-memory-fmt-${rt.randomHex(8)}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, st.mode & 0o777);
    const buf = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    const now = readFileSafe(absPath, LIMITS.documentMaxBytes);
    if (!now.ok || !now.bytes.equals(expected)) {
      throw new VaultError('io-error', `${basename(absPath)} changed while it was being formatted; nothing was written`, { hint: 'run vault fmt again' });
    }
    renameSync(tmp, absPath);
    try {
      const dfd = openSync(dir, constants.O_RDONLY);
      try {
        fsyncSync(dfd);
      } finally {
        closeSync(dfd);
      }
    } catch {
      /* directory fsync is not supported everywhere */
    }
  } catch (err) {
    if (isVaultError(err)) throw err;
    throw new VaultError('io-error', `cannot rewrite ${basename(absPath)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'check the folder permissions', cause: err });
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* renamed or never created */
    }
  }
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
    files.push(formatMemoryFile(t.abs, shown, rt, Boolean(options.check)));
  }
  const counts: Record<FmtStatus, number> = { unchanged: 0, formatted: 0, 'would-format': 0, refused: 0 };
  for (const f of files) counts[f.status]++;
  return { files, counts };
}
