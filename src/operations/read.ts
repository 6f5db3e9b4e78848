/**
 * Fail-closed lookup of one memory by id, with its backlinks.
 *
 * The lookup answers from the search index (opened fresh, see search/index/index-freshness.ts):
 * the ids in the index decide "not found" and "ambiguous", the one file found is read and checked
 * in full (parse, location, secrets), and backlinks come from the index's links column. It is
 * "incomplete" only when a file that could be the memory asked for is unreadable or invalid
 * ({@link couldBeMemory}), or the scope could not be seen whole; an unrelated broken file does
 * not block it.
 */
import { sep } from 'node:path';
import { doctorCommandFor, LIMITS, linkedIds, type Memory, type Scope } from '../document/contract.js';
import { isVaultError, VaultError } from '../errors.js';
import { scanFileBytes, scanVault, type ScanEntry, type ScanOptions, type ScanResult } from '../scanner/scan-vault.js';
import { openScopeIndex, type ScopeIndex } from '../search/index/index-freshness.js';

export { fullCheckIntervalFrom } from '../search/index/index-freshness.js';
import type { InvalidRecord } from '../search/index/index-format.js';
import { assertMemoryId } from '../store/ids.js';
import { readScopeFile } from '../store/read-scope-file.js';
import { NO_VAULT_HINT, noVaultMessage, scopeRoot, type VaultRoots } from '../store/roots.js';

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

/** Options of {@link readMemory}. */
export interface ReadOptions extends ScanOptions {
  /** run the index's full per-file check first (default: the folder check; see docs/concepts.md) */
  fresh?: boolean | undefined;
  /** seconds between full checks (default 60; 0 = always; the CLI passes ECC_INDEX_FULL_CHECK_S) */
  fullCheckIntervalS?: number | undefined;
  /** keep only the backlinks from memories this accepts (MCP: those visible to its harness); default all */
  backlinkFilter?: ((m: Memory) => boolean) | undefined;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Collects the backlinks of `id` among scanned entries.
 *
 * @returns entries linking to `id`, sorted by id (code points), without bodies
 */
export function backlinksOf(id: string, entries: readonly ScanEntry[]): Backlink[] {
  return entries
    .filter((e) => e.memory.id !== id && linkedIds(e.memory).includes(id))
    .map((e) => ({ id: e.memory.id, title: e.memory.title, kind: e.memory.kind, scope: e.scope, status: e.memory.status, path: e.path }))
    .sort(byId);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** An `id` line (YAML or JSON frontmatter) holding an escape sequence, which may spell the id without its bytes. */
const ESCAPED_ID_LINE = /^[ \t]*["']?id["']?[ \t]*:[^\n]*\\/m;

/**
 * True when an invalid or unreadable file could be the memory `id`, so that neither "found" nor
 * "not found" can be claimed: its name is `<id>.md`; it claims the id (a misplaced or quarantined
 * memory); it could not be read or is over the size bound; its bytes are not UTF-8, contain the
 * id, or hold an escape sequence on an `id` line. Reads the file again (bounded).
 *
 * @param absPath the file
 * @param record its diagnostic: code, and the id it claims when it parsed
 */
export function couldBeMemory(id: string, roots: VaultRoots, scope: Scope, relPath: string, record: { code: string; id?: string | undefined }): boolean {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (name === `${id}.md` || record.id === id || record.code === 'unreadable' || record.code === 'document-too-large') return true;
  const read = readScopeFile(roots, scope, relPath, LIMITS.documentMaxBytes);
  if (!read.ok) return true;
  if (read.bytes.includes(id)) return true;
  let text: string;
  try {
    text = STRICT_UTF8.decode(read.bytes);
  } catch {
    return true;
  }
  return ESCAPED_ID_LINE.test(text);
}

function incomplete(why: string, scopes: readonly Scope[], hint?: string): VaultError {
  return new VaultError('read-incomplete', `memory lookup is incomplete: ${why}`, {
    rule: 'fail-closed reads',
    hint:
      hint ?? `run \`${doctorCommandFor(scopes)}\` and fix the reported files; a memory cannot be declared missing while a file that may be it is unreadable`,
  });
}

function ambiguous(id: string, paths: readonly string[]): VaultError {
  return new VaultError('ambiguous', `memory ${id} is claimed by ${paths.length} files: ${paths.join(', ')}`, {
    rule: 'unique ids',
    hint: 'keep one of them; run `vault doctor` for details',
  });
}

function notFound(id: string, scopes: readonly Scope[]): VaultError {
  return new VaultError('not-found', `memory ${id} was not found in scopes ${scopes.join(', ')}`, {
    hint: scopes.includes('user') ? 'check the id with `vault search`' : 'check the id with `vault search`, or add --scope user',
  });
}

/** A skipped symlink named `<id>.md` may be this very memory: it was never read. */
function linkedLookalike(id: string, symlinks: readonly string[], scopes: readonly Scope[]): VaultError | undefined {
  const linked = symlinks.find((p) => p.slice(p.lastIndexOf('/') + 1) === `${id}.md`);
  return linked === undefined
    ? undefined
    : incomplete(`${linked} is a symbolic link, which is never followed`, scopes, `replace the link with the real file (see \`${doctorCommandFor(scopes)}\`)`);
}

/**
 * Finds one memory by id, fail-closed.
 *
 * Order of answers: an invalid id is refused; a lookup that could not see a whole scope (a scan
 * bound, an unreadable folder, a link above or at the scope) or that meets an unreadable or
 * invalid file that could be this memory ({@link couldBeMemory}), or a skipped symlink named
 * `<id>.md`, answers `read-incomplete` before any found/not-found decision; two files with the id
 * answer `ambiguous`; none answers `not-found`.
 *
 * Answers from the search index (fresh by the folder check, or the full check with `fresh`; a
 * file read that differs from the index runs the full check and answers again). With scan
 * `limits` it scans the files instead (the bounds then apply).
 *
 * @param roots the vault's roots
 * @param id the memory id
 * @param options scopes to search (default project and team), freshness, scan limits
 * @throws VaultError `invalid-input`, `read-incomplete`, `ambiguous`, `not-found`
 */
export function readMemory(roots: VaultRoots, id: string, options: ReadOptions = {}): ReadResult {
  assertMemoryId(id);
  const scopes = options.scopes ?? (['project', 'team'] as Scope[]);
  try {
    return readAnswer(roots, id, scopes, options);
  } catch (err) {
    // Outside any vault the project and team scopes are empty: say so, with the three ways to have one.
    if (roots.located === 'none' && isVaultError(err) && err.code === 'not-found' && scopes.some((s) => s !== 'user'))
      throw new VaultError('not-found', `${err.message}: ${noVaultMessage(roots)}`, { hint: `${NO_VAULT_HINT}; for your own memories add --scope user` });
    throw err;
  }
}

function readAnswer(roots: VaultRoots, id: string, scopes: readonly Scope[], options: ReadOptions): ReadResult {
  if (options.limits) return readFromScan(roots, scanVault(roots, options), id, options.backlinkFilter);
  const full = options.fresh === true;
  try {
    return readThroughIndex(roots, id, scopes, { full, fullCheckIntervalS: options.fullCheckIntervalS }, options.backlinkFilter);
  } catch (err) {
    if (!(err instanceof StaleIndex)) throw err;
    return readThroughIndex(roots, id, scopes, { full: true }, options.backlinkFilter);
  }
}

/** A file read during a lookup differs from what the index holds (an in-place write): check every file and look again. */
class StaleIndex extends Error {
  override readonly name = 'StaleIndex';
}

interface IndexedDoc {
  index: ScopeIndex;
  path: string;
  size: number;
  mtime: number;
}

/** Reads and checks one indexed memory file in full; a file that no longer matches the index is {@link StaleIndex} (or undefined after a full check). */
function readIndexed(roots: VaultRoots, d: IndexedDoc, full: boolean): ScanEntry | undefined {
  const scope = d.index.scope;
  const segments = d.path.split('/');
  const absPath = scopeRoot(roots, scope) + sep + segments.join(sep);
  const read = readScopeFile(roots, scope, d.path, LIMITS.documentMaxBytes);
  const same = read.ok && read.size === d.size && (d.mtime === -1 || read.mtimeMs === d.mtime);
  if (!same && !full) throw new StaleIndex(d.path);
  if (!read.ok) return undefined;
  const r = scanFileBytes({ scope, path: `${scope}/${d.path}`, absPath, segments }, read.bytes, read.mtimeMs, { secretCheck: true, keepText: false });
  if (!r.entry && !full) throw new StaleIndex(d.path);
  return r.entry;
}

/**
 * The opened indexes of the scopes a read looks in, with what their check found: every index, whether
 * every folder could be seen (with the first reason when not), the symbolic links skipped, and whether
 * every file was checked (`full`; else the folder-level check, and a file that differs is a
 * {@link StaleIndex}).
 */
export interface OpenedForRead {
  indexes: ScopeIndex[];
  complete: boolean;
  incompleteReasons: string[];
  symlinks: string[];
  full: boolean;
}

/** Opens the indexes on disk, through the freshness check (full with `full`). */
function openOnDisk(roots: VaultRoots, scopes: readonly Scope[], freshness: { full: boolean; fullCheckIntervalS?: number | undefined }): OpenedForRead {
  const opened = scopes.map((scope) => openScopeIndex(roots, scope, { full: freshness.full, fullCheckIntervalS: freshness.fullCheckIntervalS }));
  return {
    indexes: opened.map((o) => o.index),
    complete: opened.every((o) => o.report.complete),
    incompleteReasons: opened.flatMap((o) => o.report.incompleteReasons),
    symlinks: opened.flatMap((o) => o.report.symlinks),
    full: opened.every((o) => o.report.check === 'full'),
  };
}

/**
 * {@link readMemory} over indexes opened elsewhere (the index server's kept ones, each checked in
 * full and watched since): the same fail-closed rule, the same answer as a read of the files.
 *
 * @param opened the indexes of `scopes` (see {@link OpenedForRead}); kept indexes pass `full: true`
 * @throws VaultError `invalid-input`, `read-incomplete`, `ambiguous`, `not-found`
 */
export function readFromIndexes(roots: VaultRoots, id: string, scopes: readonly Scope[], opened: OpenedForRead): ReadResult {
  assertMemoryId(id);
  return answerFromIndexes(roots, id, scopes, opened, undefined);
}

function readThroughIndex(
  roots: VaultRoots,
  id: string,
  scopes: readonly Scope[],
  freshness: { full: boolean; fullCheckIntervalS?: number | undefined },
  backlinkFilter: ((m: Memory) => boolean) | undefined,
): ReadResult {
  return answerFromIndexes(roots, id, scopes, openOnDisk(roots, scopes, freshness), backlinkFilter);
}

function answerFromIndexes(
  roots: VaultRoots,
  id: string,
  scopes: readonly Scope[],
  opened: OpenedForRead,
  backlinkFilter: ((m: Memory) => boolean) | undefined,
): ReadResult {
  const full = opened.full;
  if (!opened.complete) throw incomplete(opened.incompleteReasons[0] ?? 'a folder could not be read', scopes);
  const linked = linkedLookalike(id, opened.symlinks, scopes);
  if (linked) throw linked;
  const found: IndexedDoc[] = [];
  const linking: IndexedDoc[] = [];
  for (const index of opened.indexes) {
    const invalid: InvalidRecord[] = index.base.invalid.filter((r) => !Object.hasOwn(index.overlay, r.path));
    const { base, overlay } = index;
    // the documents with that id or linking to it, found in the columns without decoding every id
    const withId = new Set(base.numbersWithId(id));
    const candidates = [...new Set([...withId, ...base.numbersLinkingTo(id)])].sort((a, b) => a - b);
    for (const i of candidates) {
      const isIt = withId.has(i);
      const path = base.path(i);
      if (Object.hasOwn(overlay, path)) continue;
      (isIt ? found : linking).push({ index, path, size: base.size[i]!, mtime: base.mtime[i]! });
    }
    for (const path of Object.keys(overlay)) {
      const e = overlay[path]!;
      if ('invalid' in e) invalid.push(e.invalid);
      else if ('doc' in e) {
        if (e.doc.id === id) found.push({ index, path, size: e.doc.size, mtime: e.doc.mtime });
        else if (e.doc.links.includes(id)) linking.push({ index, path, size: e.doc.size, mtime: e.doc.mtime });
      }
    }
    const blocking = invalid.filter((r) => couldBeMemory(id, roots, index.scope, r.path, r)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (blocking.length > 0) {
      const first = blocking[0]!;
      throw incomplete(`${index.scope}/${first.path} could be memory ${id} but is not a valid memory (${first.code}: ${first.message})`, scopes);
    }
  }
  if (found.length > 1) throw ambiguous(id, found.map((d) => `${d.index.scope}/${d.path}`).sort());
  const hit = found[0];
  if (!hit) throw notFound(id, scopes);
  const entry = readIndexed(roots, hit, full);
  if (!entry || entry.memory.id !== id) throw incomplete(`${hit.index.scope}/${hit.path} changed while it was read`, scopes, 'run the command again');
  const backlinks: Backlink[] = [];
  for (const d of linking) {
    const e = readIndexed(roots, d, full);
    if (!e || e.memory.id === id || !linkedIds(e.memory).includes(id) || (backlinkFilter && !backlinkFilter(e.memory))) continue;
    backlinks.push({ id: e.memory.id, title: e.memory.title, kind: e.memory.kind, scope: e.scope, status: e.memory.status, path: e.path });
  }
  return { memory: entry.memory, scope: entry.scope, path: entry.path, absPath: entry.absPath, canonical: entry.canonical, backlinks: backlinks.sort(byId) };
}

/**
 * {@link readMemory} over an existing scan result (the same rule: only files that could be the memory block it).
 *
 * @param backlinkFilter keep only the backlinks from memories it accepts (default all)
 */
export function readFromScan(roots: VaultRoots, scan: ScanResult, id: string, backlinkFilter?: (m: Memory) => boolean): ReadResult {
  if (!scan.complete) throw incomplete(scan.incompleteReasons[0] ?? 'the vault could not be read completely', scan.scopes);
  const blocking = scan.invalid.filter((f) => couldBeMemory(id, roots, f.scope, f.path.slice(f.scope.length + 1), f));
  if (blocking.length > 0) {
    const first = blocking[0]!;
    throw incomplete(`${first.path} could be memory ${id} but is not a valid memory (${first.code}: ${first.message})`, scan.scopes);
  }
  const linked = linkedLookalike(id, scan.symlinks, scan.scopes);
  if (linked) throw linked;
  const found = scan.entries.filter((e) => e.memory.id === id);
  if (found.length > 1)
    throw ambiguous(
      id,
      found.map((e) => e.path),
    );
  const entry = found[0];
  if (!entry) throw notFound(id, scan.scopes);
  return {
    memory: entry.memory,
    scope: entry.scope,
    path: entry.path,
    absPath: entry.absPath,
    canonical: entry.canonical,
    backlinks: backlinksOf(id, backlinkFilter ? scan.entries.filter((e) => backlinkFilter(e.memory)) : scan.entries),
  };
}
