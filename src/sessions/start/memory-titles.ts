/**
 * A cheap list of memory ids and titles for the session-start context: reads only the first
 * 2 KiB of each file and picks `id`, `title`, `kind`, `status`, `updated_at` and `tags` from its
 * frontmatter lines (`key: <JSON value>`, the canonical form the serializer writes) with the
 * frontmatter fast reader (document/frontmatter-reader.ts, the scanner's too) instead of the
 * full parser, so the hook stays inside its latency budget. Symlinks (kind folders included) and
 * hidden entries are skipped; files and time are bounded.
 * Relevance: words shared with the snapshot (goal, requests, files, branch), then recency.
 *
 * Speed: this runs on every session start over the whole vault (hundreds of files), in code that
 * has not been optimised yet, and what it allocates is paid again by the garbage collector. So
 * only the frontmatter is decoded, the reader finds each value with one native search and takes a
 * plain JSON string (no escapes) as it is, and words are cut by character codes (compiling a
 * Unicode property regex such as `\p{L}` costs ~5 ms at start-up on the 2-core machine).
 * The titles are cached per folder in the sessions folder ({@link CACHE_FILE}); see there for
 * what is checked on each start.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, type Dirent, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { ID_PATTERN, KINDS, type Scope } from '../../document/contract.js';
import { frontmatterString, rawFrontmatterValue } from '../../document/frontmatter-reader.js';
import type { VaultRoots } from '../../store/roots.js';
import type { Runtime } from '../../io/runtime.js';
import type { MemoryPointer } from './injection-text.js';
import { ensureStartDir, readSnapshotText, START_DIR, writeSessionFile } from '../snapshots/snapshot-store.js';

const HEAD_BYTES = 2048;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The frontmatter values the title list needs (strings already decoded; `tags` raw). */
interface HeadValues {
  id: string | undefined;
  title: string | undefined;
  kind: string | undefined;
  status: string | undefined;
  updated: string | undefined;
  tags: string | undefined;
}

/**
 * The frontmatter of a file: its first {@link HEAD_BYTES} bytes decoded only up to the closing
 * `---` (a few hundred bytes, not the body); undefined when it cannot be read or does not open
 * with `---`.
 */
function readHead(path: string, buf: Buffer): string | undefined {
  let fd: number | undefined;
  let n: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
    n = readSync(fd, buf, 0, buf.length, 0);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (n < 3 || buf[0] !== 0x2d || buf[1] !== 0x2d || buf[2] !== 0x2d) return undefined;
  // Bytes past `n` are left over from an earlier file: the search result is checked against it.
  let end = buf.indexOf('\n---', 3);
  if (end === -1 || end + 4 > n) end = n;
  return buf.toString('utf8', 0, end);
}

/** The wanted values of a frontmatter head (the first occurrence of a key counts). */
function headValues(head: string): HeadValues {
  return {
    id: frontmatterString(head, 'id'),
    title: frontmatterString(head, 'title'),
    kind: frontmatterString(head, 'kind'),
    status: frontmatterString(head, 'status'),
    updated: frontmatterString(head, 'updated_at'),
    tags: rawFrontmatterValue(head, 'tags'),
  };
}

/**
 * True for a character of a word: an ASCII letter or digit, or a character outside ASCII that
 * is not in a punctuation, symbol, space or surrogate block. An approximation of `[\p{L}\p{N}]`
 * that needs no Unicode tables (it keeps a few symbols of other blocks as letters).
 */
function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);
  if (c < 0xc0) return c === 0xaa || c === 0xb5 || c === 0xba; // Latin-1 punctuation and symbols
  if (c === 0xd7 || c === 0xf7) return false; // × ÷
  if (c >= 0x2000 && c <= 0x2bff) return false; // general punctuation … arrows, symbols, box drawing
  if (c >= 0x3000 && c <= 0x303f) return false; // CJK symbols and punctuation
  if (c >= 0xd800 && c <= 0xdfff) return false; // surrogates: emoji and other astral characters
  if (c >= 0xfe00 && c <= 0xfe6f) return false; // variation selectors, vertical and small forms
  if (c >= 0xff00 && c <= 0xff65) return !((c >= 0xff00 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || c >= 0xff5b);
  return c !== 0xfeff;
}

/** The words (3 or more word characters, {@link isWordChar}) of a text, lowercased, in order. */
function wordsOf(text: string, max: number): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= lower.length && out.length < max; i++) {
    if (i < lower.length && isWordChar(lower.charCodeAt(i))) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      if (i - start >= 3) out.push(lower.slice(start, i));
      start = -1;
    }
  }
  return out;
}

function words(text: string): Set<string> {
  return new Set(wordsOf(text, 400));
}

/**
 * What the list keeps of an active memory: id, title, kind, `updated_at`, and the words of its
 * title and tags (space-separated, for ranking). A file that is not an active memory of a known
 * kind with an id and a title is kept as null.
 */
type Listed = [id: string, title: string, kind: string, updated: string, words: string];

function listedOf(head: string | undefined): Listed | null {
  if (head === undefined) return null;
  const v = headValues(head);
  const kind = v.kind ?? 'note';
  if (!(KINDS as readonly string[]).includes(kind) || !v.id || !v.title || !ID_PATTERN.test(v.id) || v.status !== 'active') return null;
  return [v.id, v.title, kind, v.updated ?? '', [...words(v.tags === undefined ? v.title : `${v.title} ${v.tags}`)].join(' ')];
}

/** True for the name of a kind folder (`decisions`, `notes`, …). */
function isKindFolder(name: string): boolean {
  return (KINDS as readonly string[]).some((k) => name === `${k}s`);
}

/** True for a {@link Listed} read back from the cache (every part a string, the id well formed). */
function isListed(x: unknown): x is Listed {
  return (
    Array.isArray(x) &&
    x.length === 5 &&
    typeof x[0] === 'string' &&
    ID_PATTERN.test(x[0]) &&
    typeof x[1] === 'string' &&
    typeof x[2] === 'string' &&
    (KINDS as readonly string[]).includes(x[2]) &&
    typeof x[3] === 'string' &&
    typeof x[4] === 'string'
  );
}

/**
 * The title cache, `.start/memory-titles.json` in the sessions folder (a subfolder, so that
 * rewriting it does not change the sessions folder's mtime, which start records depend on;
 * start-cache.ts): per folder of the vault
 * (absolute path) its modification time when listed, its subfolders and, per memory file, its
 * size and mtime when read with what the list keeps of it ({@link Listed}).
 *
 * What a start checks (one lstat per folder, not per file):
 * - A folder whose mtime still matches is not listed again: adding, removing or renaming a file
 *   in it (git, editors that save by rename, `vault save`) changes its mtime. A folder modified
 *   within {@link RACY_MS} of its listing, or holding a file modified that recently, is stored
 *   untrusted (mtime 0) and listed again next time: it may change again within the same tick;
 *   such a file is stored with mtime -1, so its entry is never reused.
 * - A file edited in place (same folder, same name) changes only its own mtime: every memory the
 *   list is about to show is checked by its size and mtime first and re-read when either
 *   changed, so a shown id, title and status are always current. An in-place edit can only
 *   leave the ranking of a memory that is not shown stale (or an edit back to `active` unseen)
 *   until its folder changes.
 * Names in the cache are checked before use (a plain file or folder name, `.md` files, kind
 * folders under a scope root), so a forged cache cannot point outside the vault. Folders not
 * visited in a run (another repository's vault) are kept, up to {@link CACHE_MAX_FOLDERS}.
 * Advisory: a missing or damaged cache is rebuilt; a damaged entry is read again.
 */
const CACHE_FILE = 'memory-titles.json';
const CACHE_VERSION = 2;
const RACY_MS = 2000;
/** Largest cache file read (bytes); a larger one is ignored and rebuilt. */
const CACHE_MAX_BYTES = 8 * 1024 * 1024;
/** Most folders kept in the cache (those visited in the last run first). */
const CACHE_MAX_FOLDERS = 512;
/** One memory file of a cached folder: name, size (bytes), mtime (ms), what is listed of it. */
type CachedFile = [name: string, size: number, mtime: number, listed: Listed | null];
/** One cached folder: mtime when listed (0: untrusted), memory files, subfolders. */
interface CachedFolder {
  m: number;
  files: CachedFile[];
  dirs: string[];
}

/**
 * The cached folders. Only the outline is checked here; each file record is checked where it is
 * used ({@link isCachedFile}), so a start does not walk the cache twice.
 */
function readCache(dir: string): Map<string, CachedFolder> {
  const out = new Map<string, CachedFolder>();
  try {
    // never through a link, never from a FIFO or device, never more than the cap
    const text = readSnapshotText(`${dir}${sep}${START_DIR}${sep}${CACHE_FILE}`, CACHE_MAX_BYTES);
    if (text === undefined) return out;
    const v = JSON.parse(text) as { v?: unknown; dirs?: unknown };
    if (v.v !== CACHE_VERSION || typeof v.dirs !== 'object' || v.dirs === null) return out;
    for (const [path, e] of Object.entries(v.dirs as Record<string, unknown>)) {
      const f = e as CachedFolder | null;
      if (typeof f === 'object' && f !== null && typeof f.m === 'number' && Array.isArray(f.files) && Array.isArray(f.dirs)) out.set(path, f);
    }
  } catch {
    /* rebuilt */
  }
  return out;
}

/** A plain name inside a folder: not empty, no separator, not hidden (so neither `.` nor `..`), no NUL. */
function isPlainName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= 255 &&
    !name.startsWith('.') &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !name.includes('\u0000')
  );
}

function isCachedFile(x: unknown): x is CachedFile {
  return (
    Array.isArray(x) &&
    x.length === 4 &&
    isPlainName(x[0]) &&
    x[0].endsWith('.md') &&
    typeof x[1] === 'number' &&
    typeof x[2] === 'number' &&
    (x[3] === null || isListed(x[3]))
  );
}

/** The number of distinct words of a {@link Listed} that are in `wanted`. */
function score(listed: Listed, wanted: Set<string>): number {
  if (wanted.size === 0 || listed[4] === '') return 0;
  let n = 0;
  for (const w of listed[4].split(' ')) if (wanted.has(w)) n++;
  return n;
}

/** A memory the list may show, with where its values came from. */
interface Candidate {
  listed: Listed;
  scope: Scope;
  score: number;
  path: string;
  /** the cache record of its file (updated in place when re-read) */
  file: CachedFile;
  folder: CachedFolder;
  /** its size and mtime were checked in this run */
  checked: boolean;
}

/**
 * What a list was made from, so it can be reused without listing again while none of it
 * changed ({@link listStillValid}): every folder visited with its {@link folderStamp}, and the
 * file (path, size in bytes, mtime in ms) of every memory listed. `complete` is false when the
 * list cannot be reused: a folder or a listed file was modified within {@link RACY_MS} of the
 * listing, or the listing stopped early (file cap, deadline).
 */
export interface ListProof {
  folders: Array<[path: string, stamp: number]>;
  files: Array<[path: string, size: number, mtime: number]>;
  complete: boolean;
}

/** A folder's state for a {@link ListProof}: its mtime (ms), -1 when absent, -2 when not a real folder. */
function folderStamp(st: Stats | undefined): number {
  return !st ? -1 : st.isDirectory() ? st.mtimeMs : -2;
}

/**
 * True when nothing a list was made from changed since: every folder has the same stamp and
 * every listed file the same size and mtime. Then listing again would show the same memories
 * (an in-place edit of a memory that is not listed aside, as with the title cache).
 */
export function listStillValid(proof: ListProof): boolean {
  if (!proof.complete) return false;
  for (const [path, stamp] of proof.folders) if (folderStamp(lstatSync(path, { throwIfNoEntry: false })) !== stamp) return false;
  for (const [path, size, mtime] of proof.files) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size !== size || st.mtimeMs !== mtime) return false;
  }
  return true;
}

/**
 * Lists the most relevant active memories of the given scopes by id and title.
 *
 * @param roots vault roots (read only)
 * @param context text to rank by (shared words)
 * @param options `limit` pointers returned, `maxFiles` files considered, `deadline`/`now` time
 *   bound (ms since epoch); `cache`: keep the title cache in `cache.dir` (the sessions folder);
 *   `proof`: filled with what the list was made from (reliable only with `cache`, whose clock
 *   tells racy modifications apart)
 */
export function listMemoryPointers(
  roots: VaultRoots,
  scopes: readonly Scope[],
  context: string,
  options: { limit: number; maxFiles: number; deadline?: number; now?: () => number; cache?: { dir: string; rt: Runtime }; proof?: ListProof },
): MemoryPointer[] {
  const proof: ListProof = options.proof ?? { folders: [], files: [], complete: true };
  if (!options.cache) proof.complete = false;
  const wanted = words(context);
  const cache = options.cache ? readCache(options.cache.dir) : new Map<string, CachedFolder>();
  const next = new Map<string, CachedFolder>();
  let dirty = false;
  const nowMs = options.cache ? options.cache.rt.now().getTime() : 0;
  const racy = (mtimeMs: number) => !options.cache || mtimeMs >= nowMs - RACY_MS;
  const buf = Buffer.allocUnsafe(HEAD_BYTES);
  const found: Candidate[] = [];
  let seen = 0;
  const overdue = () => options.deadline !== undefined && options.now !== undefined && options.now() > options.deadline;

  /** Reads a file's head into its cache record: false when it is no longer a regular file. */
  const reread = (path: string, file: CachedFile, folder: CachedFolder): boolean => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) return false;
    file[1] = st.size;
    file[2] = st.mtimeMs;
    file[3] = listedOf(readHead(path, buf));
    if (racy(st.mtimeMs)) {
      folder.m = 0;
      file[2] = -1;
    }
    dirty = true;
    return true;
  };
  const add = (scope: Scope, path: string, file: CachedFile, folder: CachedFolder, checked: boolean) => {
    const listed = file[3];
    if (listed) found.push({ listed, scope, score: score(listed, wanted), path, file, folder, checked });
  };

  /**
   * Collects the memories of one folder (depth 0: a scope root, whose only content of interest
   * is its kind folders): from the cache when the folder's mtime still matches, else listed.
   */
  const visit = (scope: Scope, dir: string, depth: number): void => {
    if (depth > 3 || seen >= options.maxFiles || overdue()) {
      proof.complete = false;
      return;
    }
    const st = lstatSync(dir, { throwIfNoEntry: false });
    const stamp = folderStamp(st);
    proof.folders.push([dir, stamp]);
    if (stamp > 0 && racy(stamp)) proof.complete = false;
    if (!st?.isDirectory()) return; // absent, or a link: never followed
    const cached = cache.get(dir);
    const subOk = (d: unknown) => isPlainName(d) && (depth > 0 || isKindFolder(d));
    if (
      cached &&
      cached.m !== 0 &&
      cached.m === st.mtimeMs &&
      (depth > 0 || cached.files.length === 0) &&
      cached.files.every(isCachedFile) &&
      cached.dirs.every(subOk)
    ) {
      next.set(dir, cached);
      for (const file of cached.files) {
        if (seen >= options.maxFiles) {
          proof.complete = false;
          return;
        }
        seen++;
        add(scope, `${dir}${sep}${file[0]}`, file, cached, false);
      }
      for (const sub of cached.dirs) visit(scope, `${dir}${sep}${sub}`, depth + 1);
      return;
    }
    dirty = true;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const known = new Map<string, CachedFile>();
    for (const f of cached?.files ?? []) if (isCachedFile(f)) known.set(f[0], f);
    const folder: CachedFolder = { m: racy(st.mtimeMs) ? 0 : st.mtimeMs, files: [], dirs: [] };
    next.set(dir, folder);
    for (const e of entries) {
      if (e.name.startsWith('.') || e.isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (depth === 0 && !isKindFolder(e.name)) continue;
        folder.dirs.push(e.name);
        visit(scope, `${dir}${sep}${e.name}`, depth + 1);
      } else if (depth > 0 && e.isFile() && e.name.endsWith('.md')) {
        if (seen >= options.maxFiles) {
          folder.m = 0; // listed in part: not trusted next time
          proof.complete = false;
          continue;
        }
        seen++;
        const path = `${dir}${sep}${e.name}`;
        const fst = lstatSync(path, { throwIfNoEntry: false });
        if (!fst?.isFile()) continue;
        const old = known.get(e.name);
        const file: CachedFile = old && old[1] === fst.size && old[2] === fst.mtimeMs ? old : [e.name, fst.size, fst.mtimeMs, listedOf(readHead(path, buf))];
        if (racy(fst.mtimeMs)) {
          folder.m = 0;
          file[2] = -1; // read within the racy window: never reused by its fingerprint
        }
        folder.files.push(file);
        add(scope, path, file, folder, true);
      }
    }
  };
  for (const scope of scopes) visit(scope, roots[scope], 0);

  const order = (a: Candidate, b: Candidate) => {
    const [x, y] = [a.listed, b.listed];
    return b.score - a.score || (x[3] < y[3] ? 1 : x[3] > y[3] ? -1 : x[0] < y[0] ? -1 : 1);
  };
  // Every memory about to be shown is checked against its file; one that changed is re-read and
  // the ranking done again (each round checks at least one more file, so this ends).
  for (;;) {
    found.sort(order);
    let changed = -1;
    for (let i = 0; i < Math.min(options.limit, found.length); i++) {
      const c = found[i]!;
      if (c.checked) continue;
      const st = lstatSync(c.path, { throwIfNoEntry: false });
      if (st?.isFile() && st.size === c.file[1] && st.mtimeMs === c.file[2]) {
        c.checked = true;
        continue;
      }
      changed = i;
      break;
    }
    if (changed === -1) break;
    const c = found[changed]!;
    found.splice(changed, 1);
    if (reread(c.path, c.file, c.folder)) add(c.scope, c.path, c.file, c.folder, true);
    else c.folder.m = 0; // gone or no longer a file: list the folder again next time
  }
  if (options.cache && (dirty || [...next.keys()].some((k) => !cache.has(k)))) {
    // the folders of this run first, then those of other vaults still cached, up to the cap
    for (const [path, f] of cache) if (next.size < CACHE_MAX_FOLDERS && !next.has(path)) next.set(path, f);
    const sub = ensureStartDir(options.cache.dir);
    try {
      if (sub) writeSessionFile(sub, CACHE_FILE, JSON.stringify({ v: CACHE_VERSION, dirs: Object.fromEntries(next) }), 'titles', options.cache.rt, true);
    } catch {
      /* advisory: the next start lists the folders again */
    }
  }
  const shown = found.slice(0, options.limit);
  for (const c of shown) {
    proof.files.push([c.path, c.file[1], c.file[2]]);
    if (c.file[2] === -1 || racy(c.file[2])) proof.complete = false;
  }
  return shown.map(({ listed, scope }) => ({ id: listed[0], title: listed[1], kind: listed[2], scope }));
}
