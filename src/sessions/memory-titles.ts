/**
 * A cheap list of memory ids and titles for the session-start context: reads only the first
 * 2 KiB of each file and picks `id`, `title`, `kind`, `status` and `updated_at` from the
 * frontmatter lines (`key: <JSON value>`), without the full parser, so the hook stays inside
 * its latency budget. Symlinks and hidden entries are skipped; files and time are bounded.
 * Relevance: words shared with the snapshot (goal, requests, files, branch), then recency.
 */
import { closeSync, constants, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { KINDS, type Scope } from '../document/contract.js';
import type { VaultRoots } from '../store/roots.js';
import type { MemoryPointer } from './injection-text.js';

const HEAD_BYTES = 2048;

function readHead(path: string, buf: Buffer): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function field(head: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:\\s*(".*")\\s*$`, 'm').exec(head);
  if (!m) return undefined;
  try {
    const v = JSON.parse(m[1]!);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).slice(0, 400));
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
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(scope, p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.md')) {
        read++;
        const head = readHead(p, buf);
        if (!head?.startsWith('---')) continue;
        const id = field(head, 'id');
        const title = field(head, 'title');
        const kind = field(head, 'kind') ?? 'note';
        if (!(KINDS as readonly string[]).includes(kind)) continue;
        if (!id || !title || !/^mem_[a-z0-9][a-z0-9_-]{2,127}$/.test(id) || field(head, 'status') !== 'active') continue;
        let score = 0;
        for (const w of words(`${title} ${head.match(/^tags:.*$/m)?.[0] ?? ''}`)) if (wanted.has(w)) score++;
        found.push({ id, title, kind, scope, score, updated: field(head, 'updated_at') ?? '' });
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
