/**
 * A cheap list of memory ids and titles for the session-start context: reads only the first
 * 2 KiB of each file and picks `id`, `title`, `kind`, `status`, `updated_at` and `tags` from its
 * frontmatter lines (`key: <JSON value>`, the canonical form the serializer writes) without the
 * full parser, so the hook stays inside its latency budget. Symlinks (kind folders included) and
 * hidden entries are skipped; files and time are bounded.
 * Relevance: words shared with the snapshot (goal, requests, files, branch), then recency.
 *
 * Speed: this runs on every session start over the whole vault (hundreds of files), in code that
 * has not been optimised yet, and what it allocates is paid again by the garbage collector. So
 * only the frontmatter is decoded, each value is found with one native search, and a plain JSON
 * string (no escapes) is taken as it is.
 */
import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readFileSync, readSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { KINDS, type Scope } from '../document/contract.js';
import type { VaultRoots } from '../store/roots.js';
import type { Runtime } from '../io/runtime.js';
import type { MemoryPointer } from './injection-text.js';
import { writeAtomic } from './snapshot-store.js';

const HEAD_BYTES = 2048;
const ID_SHAPE = /^mem_[a-z0-9][a-z0-9_-]{2,127}$/;
const ASCII = /^[\x00-\x7f]*$/;
/** What a JSON string needs decoding for: escapes, or characters JSON does not allow raw. */
const NOT_PLAIN = /["\\\u0000-\u001f]/;
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

/** White space as String.prototype.trim sees it (a value line holds no line break). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The range of the first `\n<key>` line's value, trimmed (`key` includes the colon). */
function valueRange(head: string, key: string): [number, number] | undefined {
  const at = head.indexOf(key);
  if (at === -1) return undefined;
  let s = at + key.length;
  let e = head.indexOf('\n', s);
  if (e === -1) e = head.length;
  while (s < e && isSpace(head.charCodeAt(s))) s++;
  while (e > s && isSpace(head.charCodeAt(e - 1))) e--;
  return [s, e];
}

/** The trimmed raw value of the first `\n<key>` line. */
function rawValue(head: string, key: string): string | undefined {
  const r = valueRange(head, key);
  return r && head.slice(r[0], r[1]);
}

/**
 * A JSON string value (`"..."`, as the serializer writes it) decoded, else undefined. Found and
 * trimmed by position, so only the value itself is cut out of the head.
 */
function stringValue(head: string, key: string): string | undefined {
  const r = valueRange(head, key);
  if (!r || r[1] - r[0] < 2 || head.charCodeAt(r[0]) !== 34 || head.charCodeAt(r[1] - 1) !== 34) return undefined;
  const inner = head.slice(r[0] + 1, r[1] - 1);
  if (!NOT_PLAIN.test(inner)) return inner; // the JSON string's text is its value
  try {
    const v: unknown = JSON.parse(head.slice(r[0], r[1]));
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The wanted values of a frontmatter head (the first occurrence of a key counts). */
function headValues(head: string): HeadValues {
  return {
    id: stringValue(head, '\nid:'),
    title: stringValue(head, '\ntitle:'),
    kind: stringValue(head, '\nkind:'),
    status: stringValue(head, '\nstatus:'),
    updated: stringValue(head, '\nupdated_at:'),
    tags: rawValue(head, '\ntags:'),
  };
}

/**
 * The words (letters and digits, 3 or more) of a lowercased text. ASCII text (the usual title or
 * path) takes the plain regex, which finds the same words without compiling Unicode tables.
 */
function wordsOf(lower: string): RegExpMatchArray | null {
  return ASCII.test(lower) ? lower.match(/[a-z0-9]{3,}/g) : lower.match(/[\p{L}\p{N}]{3,}/gu);
}

function words(text: string): Set<string> {
  return new Set((wordsOf(text.toLowerCase()) ?? []).slice(0, 400));
}

/** How many distinct words of `text` are in `wanted` (the words of {@link words}). */
function sharedWords(text: string, wanted: Set<string>): number {
  if (wanted.size === 0) return 0;
  const found = wordsOf(text.toLowerCase());
  const seen: string[] = [];
  for (const w of found ?? []) if (wanted.has(w) && !seen.includes(w)) seen.push(w);
  return seen.length;
}

/**
 * The title cache, `.memory-titles.json` in the sessions folder: per memory file (absolute path)
 * its size and mtime when read, and the frontmatter values the list needs (null: not a memory
 * head). A file whose size and mtime still match is not opened again, the same fingerprint rule
 * as the search index's; a file modified within {@link RACY_MS} of the read is not cached (it may
 * change again within the same mtime tick). Advisory: a missing or damaged cache is rebuilt.
 */
const CACHE_FILE = '.memory-titles.json';
const CACHE_VERSION = 1;
const RACY_MS = 2000;
type CachedHead = [size: number, mtime: number, values: HeadValues | null];

function readCache(dir: string): Map<string, CachedHead> {
  try {
    const v = JSON.parse(readFileSync(`${dir}${sep}${CACHE_FILE}`, 'utf8')) as { v?: unknown; files?: unknown };
    if (v.v !== CACHE_VERSION || typeof v.files !== 'object' || v.files === null) return new Map();
    const out = new Map<string, CachedHead>();
    for (const [path, e] of Object.entries(v.files as Record<string, unknown>)) {
      if (!Array.isArray(e) || typeof e[0] !== 'number' || typeof e[1] !== 'number') continue;
      const h = e[2] as Record<string, unknown> | null;
      if (h !== null && (typeof h !== 'object' || !['id', 'title', 'kind', 'status', 'updated', 'tags'].every((k) => h[k] === undefined || typeof h[k] === 'string'))) continue;
      out.set(path, [e[0], e[1], h as HeadValues | null]);
    }
    return out;
  } catch {
    return new Map();
  }
}

/**
 * Lists the most relevant active memories of the given scopes by id and title.
 *
 * @param roots vault roots (read only)
 * @param context text to rank by (shared words)
 * @param options `limit` pointers returned, `maxFiles` files read, `deadline`/`now` time bound (ms)
 */
export function listMemoryPointers(
  roots: VaultRoots,
  scopes: readonly Scope[],
  context: string,
  options: { limit: number; maxFiles: number; deadline?: number; now?: () => number; cache?: { dir: string; rt: Runtime } },
): MemoryPointer[] {
  const wanted = words(context);
  const cache = options.cache ? readCache(options.cache.dir) : undefined;
  const next = new Map<string, CachedHead>();
  let dirty = false;
  const nowMs = options.cache ? options.cache.rt.now().getTime() : 0;
  /** The head values of a file, from the cache when its fingerprint matches. */
  const valuesOf = (p: string, buf: Buffer): HeadValues | null | undefined => {
    if (!cache) {
      const head = readHead(p, buf);
      return head === undefined ? null : headValues(head);
    }
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st || !st.isFile()) return undefined;
    const hit = cache.get(p);
    if (hit && hit[0] === st.size && hit[1] === st.mtimeMs) {
      next.set(p, hit);
      return hit[2];
    }
    const head = readHead(p, buf);
    const values = head === undefined ? null : headValues(head);
    dirty = true;
    if (st.mtimeMs < nowMs - RACY_MS) next.set(p, [st.size, st.mtimeMs, values]);
    return values;
  };
  const buf = Buffer.allocUnsafe(HEAD_BYTES);
  const found: Array<MemoryPointer & { score: number; updated: string }> = [];
  let read = 0;
  const overdue = () => options.deadline !== undefined && options.now !== undefined && options.now() > options.deadline;
  const visit = (scope: Scope, dir: string, depth: number): void => {
    if (depth > 3 || read >= options.maxFiles || overdue()) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (read >= options.maxFiles) return;
      if (e.name.startsWith('.') || e.isSymbolicLink()) continue;
      const p = `${dir}${sep}${e.name}`;
      if (e.isDirectory()) visit(scope, p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.md')) {
        read++;
        const v = valuesOf(p, buf);
        if (!v) continue;
        const { id, title } = v;
        const kind = v.kind ?? 'note';
        if (!(KINDS as readonly string[]).includes(kind)) continue;
        if (!id || !title || !ID_SHAPE.test(id) || v.status !== 'active') continue;
        const score = sharedWords(v.tags === undefined ? title : `${title} ${v.tags}`, wanted);
        found.push({ id, title, kind, scope, score, updated: v.updated ?? '' });
      }
    }
  };
  for (const scope of scopes) {
    // The kind folders that exist (real folders, not links) are taken from one listing of the
    // root: a missing folder would cost a thrown error each, and most vaults use a few kinds.
    const root = roots[scope];
    let folders: Dirent[];
    try {
      folders = existsSync(root) ? readdirSync(root, { withFileTypes: true }) : [];
    } catch {
      folders = [];
    }
    const present = new Set(folders.filter((d) => d.isDirectory()).map((d) => d.name));
    for (const kind of KINDS) if (present.has(`${kind}s`)) visit(scope, join(root, `${kind}s`), 1);
  }
  if (options.cache && (dirty || (cache && cache.size !== next.size))) {
    try {
      writeAtomic(options.cache.dir, CACHE_FILE, JSON.stringify({ v: CACHE_VERSION, files: Object.fromEntries(next) }), 'titles', options.cache.rt);
    } catch {
      /* advisory: the next start reads the files again */
    }
  }
  found.sort((a, b) => b.score - a.score || (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1));
  return found.slice(0, options.limit).map(({ id, title, kind, scope }) => ({ id, title, kind, scope }));
}
