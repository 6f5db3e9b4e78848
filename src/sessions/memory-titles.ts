/**
 * A cheap list of memory ids and titles for the session-start context: reads only the first
 * 2 KiB of each file and picks `id`, `title`, `kind`, `status`, `updated_at` and `tags` from its
 * frontmatter lines (`key: <JSON value>`, the canonical form the serializer writes) without the
 * full parser, so the hook stays inside its latency budget. Symlinks and hidden entries are
 * skipped; files and time are bounded.
 * Relevance: words shared with the snapshot (goal, requests, files, branch), then recency.
 *
 * Speed: this runs on every session start over the whole vault (hundreds of files), in code that
 * has not been optimised yet, and what it allocates is paid again by the garbage collector. So
 * each value is found in the raw bytes with native searches and only the values are decoded,
 * never the whole head.
 */
import { closeSync, constants, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { KINDS, type Scope } from '../document/contract.js';
import type { VaultRoots } from '../store/roots.js';
import type { MemoryPointer } from './injection-text.js';

const HEAD_BYTES = 2048;
const ID_SHAPE = /^mem_[a-z0-9][a-z0-9_-]{2,127}$/;
const ASCII = /^[\x00-\x7f]*$/;
/** What a JSON string needs decoding for: escapes, or characters JSON does not allow raw. */
const NOT_PLAIN = /["\\\u0000-\u001f]/;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CLOSE = Buffer.from('\n---');
const KEY = {
  id: Buffer.from('\nid:'),
  title: Buffer.from('\ntitle:'),
  kind: Buffer.from('\nkind:'),
  status: Buffer.from('\nstatus:'),
  updated: Buffer.from('\nupdated_at:'),
  tags: Buffer.from('\ntags:'),
};

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
 * The value of the first `<key>: ...` line before `end` (the closing `---` of the frontmatter),
 * as its trimmed byte range, or undefined.
 */
function rangeOf(buf: Buffer, end: number, key: Buffer): [number, number] | undefined {
  const at = buf.indexOf(key);
  if (at === -1 || at >= end) return undefined;
  let s = at + key.length;
  let e = buf.indexOf(10, s);
  if (e === -1 || e > end) e = end;
  while (s < e && (buf[s] === 32 || buf[s] === 9)) s++;
  while (e > s && (buf[e - 1] === 32 || buf[e - 1] === 9 || buf[e - 1] === 13)) e--;
  return [s, e];
}

/** A JSON string value (`"..."`, as the serializer writes it) decoded, else undefined. */
function stringAt(buf: Buffer, end: number, key: Buffer): string | undefined {
  const r = rangeOf(buf, end, key);
  if (!r || r[1] - r[0] < 2 || buf[r[0]] !== 0x22 || buf[r[1] - 1] !== 0x22) return undefined;
  const inner = buf.toString('utf8', r[0] + 1, r[1] - 1);
  if (!NOT_PLAIN.test(inner)) return inner; // the JSON string's text is its value
  try {
    const v: unknown = JSON.parse(`"${inner}"`);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a file's first {@link HEAD_BYTES} bytes and takes the wanted frontmatter values (the
 * lines after the opening `---` up to the closing one; the first occurrence of a key counts);
 * undefined when it cannot be read or does not open with `---`.
 */
function readHeadValues(path: string, buf: Buffer): HeadValues | undefined {
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
  // Bytes past `n` are left over from an earlier file: every search stops at `end`.
  let end = buf.indexOf(CLOSE, 3);
  if (end === -1 || end + CLOSE.length > n) end = n;
  const tags = rangeOf(buf, end, KEY.tags);
  return {
    id: stringAt(buf, end, KEY.id),
    title: stringAt(buf, end, KEY.title),
    kind: stringAt(buf, end, KEY.kind),
    status: stringAt(buf, end, KEY.status),
    updated: stringAt(buf, end, KEY.updated),
    tags: tags ? buf.toString('utf8', tags[0], tags[1]) : undefined,
  };
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).slice(0, 400));
}

/** How many distinct words of `text` are in `wanted` (the words of {@link words}). */
function sharedWords(text: string, wanted: Set<string>): number {
  if (wanted.size === 0) return 0;
  const lower = text.toLowerCase();
  // ASCII text (the usual title) takes the plain regex: the same words, without Unicode tables.
  const found = ASCII.test(lower) ? lower.match(/[a-z0-9]{3,}/g) : lower.match(/[\p{L}\p{N}]{3,}/gu);
  const seen: string[] = [];
  for (const w of found ?? []) if (wanted.has(w) && !seen.includes(w)) seen.push(w);
  return seen.length;
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
  options: { limit: number; maxFiles: number; deadline?: number; now?: () => number },
): MemoryPointer[] {
  const wanted = words(context);
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
        const v = readHeadValues(p, buf);
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
    const root = roots[scope];
    for (const kind of KINDS) visit(scope, join(root, `${kind}s`), 1);
  }
  found.sort((a, b) => b.score - a.score || (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1));
  return found.slice(0, options.limit).map(({ id, title, kind, scope }) => ({ id, title, kind, scope }));
}
