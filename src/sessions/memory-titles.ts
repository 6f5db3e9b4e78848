/**
 * A cheap list of memory ids and titles for the session-start context: reads only the first
 * 2 KiB of each file, decodes only its frontmatter, and picks `id`, `title`, `kind`, `status`,
 * `updated_at` and `tags` from the frontmatter lines (`key: <JSON value>`, the canonical form the
 * serializer writes), without the full parser, so the hook stays inside its latency budget. Symlinks and hidden entries are skipped; files and time are bounded.
 * Relevance: words shared with the snapshot (goal, requests, files, branch), then recency.
 */
import { closeSync, constants, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { KINDS, type Scope } from '../document/contract.js';
import type { VaultRoots } from '../store/roots.js';
import type { MemoryPointer } from './injection-text.js';

const HEAD_BYTES = 2048;
const ID_SHAPE = /^mem_[a-z0-9][a-z0-9_-]{2,127}$/;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The frontmatter values the title list needs (raw, as written after `key:`). */
interface HeadValues {
  id?: string;
  title?: string;
  kind?: string;
  status?: string;
  updated?: string;
  tags?: string;
}

/**
 * Reads the frontmatter part of a file's first {@link HEAD_BYTES} bytes (only up to the closing
 * `---`, so a few hundred bytes are decoded, not the body); undefined when it cannot be read or
 * does not open with `---`.
 */
function readHead(path: string, buf: Buffer): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, OPEN_FLAGS);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n < 3 || buf[0] !== 0x2d || buf[1] !== 0x2d || buf[2] !== 0x2d) return undefined;
    let end = buf.indexOf('\n---', 3);
    if (end === -1 || end + 4 > n) end = n;
    return buf.toString('utf8', 0, end);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The raw value of `key` when the line at `at` (ending at `end`) starts with it. */
function valueAt(head: string, at: number, end: number, key: string): string | undefined {
  return head.startsWith(key, at) ? head.slice(at + key.length, end).trim() : undefined;
}

/**
 * The raw values of the wanted keys in a frontmatter head (its lines after the opening `---`;
 * the first occurrence of a key counts), in one pass without splitting the text.
 */
function headValues(head: string): HeadValues {
  const v: HeadValues = {};
  let at = head.indexOf('\n') + 1;
  while (at > 0 && at < head.length) {
    let end = head.indexOf('\n', at);
    if (end === -1) end = head.length;
    switch (head.charCodeAt(at)) {
      case 105: // i
        v.id ??= valueAt(head, at, end, 'id:');
        break;
      case 116: // t
        v.title ??= valueAt(head, at, end, 'title:');
        v.tags ??= valueAt(head, at, end, 'tags:');
        break;
      case 107: // k
        v.kind ??= valueAt(head, at, end, 'kind:');
        break;
      case 115: // s
        v.status ??= valueAt(head, at, end, 'status:');
        break;
      case 117: // u
        v.updated ??= valueAt(head, at, end, 'updated_at:');
        break;
    }
    at = end + 1;
  }
  return v;
}

/** A JSON string value (`"..."`, as the serializer writes it), else undefined. */
function stringValue(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.length < 2 || raw.charCodeAt(0) !== 34 || raw.charCodeAt(raw.length - 1) !== 34) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).slice(0, 400));
}

/** How many distinct words of `text` are in `wanted`. */
function sharedWords(text: string, wanted: Set<string>): number {
  if (wanted.size === 0) return 0;
  const seen: string[] = [];
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) if (wanted.has(w) && !seen.includes(w)) seen.push(w);
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
        const head = readHead(p, buf);
        if (head === undefined) continue;
        const values = headValues(head);
        const id = stringValue(values.id);
        const title = stringValue(values.title);
        const kind = stringValue(values.kind) ?? 'note';
        if (!(KINDS as readonly string[]).includes(kind)) continue;
        if (!id || !title || !ID_SHAPE.test(id) || stringValue(values.status) !== 'active') continue;
        const score = sharedWords(`${title} ${values.tags ?? ''}`, wanted);
        found.push({ id, title, kind, scope, score, updated: stringValue(values.updated) ?? '' });
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
