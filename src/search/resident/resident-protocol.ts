/**
 * The resident index server's wire contract, shared by the server (src/server/) and its clients
 * (the CLI, the hooks): where its socket lives, which vault it serves, and the shape of one
 * request and one reply. One connection carries one request line and one reply line of JSON.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { indexDirFor } from '../../store/layout.js';
import type { VaultRoots } from '../../store/roots.js';

/** Bumped whenever a request or reply changes shape; a client and a server of different versions never talk. */
export const PROTOCOL_VERSION = 4;

/** A request or reply line longer than this (bytes) is refused (a search reply of 100 hits stays far below). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Linux's sun_path holds 108 bytes with the final NUL; longer socket paths go to the short folder. */
export const MAX_SOCKET_PATH_BYTES = 107;

/**
 * How the CLI would print an answer: `vault search|read` with `--json` (`json`), and for a search
 * in text whether its terminal takes colour (`color`). A request carrying it is answered with the
 * CLI's own output ({@link RenderedOutput}) instead of the operation's result.
 */
export interface RenderRequest {
  json: boolean;
  color?: boolean;
}

/**
 * The bytes `vault search` or `vault read` prints for a served answer (exit code 0), rendered by
 * the server with the CLI's render functions (resident-render.ts). An answer the CLI would print
 * differently than these functions alone can (an empty text search: its hints look at the user
 * scope) is refused instead, and the CLI answers by itself.
 */
export interface RenderedOutput {
  stdout: string;
  stderr: string;
}

/** One request. `vault` is {@link vaultKey} of the client's roots; a server of another vault refuses it. */
export type ServerRequest =
  | { v: number; vault: string; op: 'search'; query: string; options: Record<string, unknown>; render?: RenderRequest }
  | { v: number; vault: string; op: 'read'; id: string; scopes: string[]; render?: RenderRequest }
  | { v: number; vault: string; op: 'similar'; memory: { title: string; body: string; scope: string; id?: string | undefined } }
  | { v: number; vault: string; op: 'recall'; query: string; harness: string; exclude: string[]; fullCheckIntervalS: number }
  | { v: number; vault: string; op: 'status' }
  | { v: number; vault: string; op: 'stop' };

/** One reply: the operation's result, a `VaultError` as JSON, or a refusal (the client then works on disk). */
export type ServerReply =
  | { v: number; ok: true; result: unknown }
  | { v: number; ok: false; error: { code: string; message: string; field?: string; rule?: string; hint?: string } }
  | { v: number; ok: false; refused: string };

/** What identifies a vault: its roots, so a server started with other roots (--root, HOME) never answers. */
export function vaultKey(roots: VaultRoots): string {
  return JSON.stringify([roots.memoryRoot, roots.team, roots.project, roots.user, roots.gitDir ?? '', roots.commonGitDir ?? '']);
}

/**
 * The folder of the server's socket, log and cookie files: the parent of the team index folder
 * (`<git dir>/ecc-memory-index`, else `<memory root>/.index`), so one server serves one worktree.
 */
export function serverDirFor(roots: VaultRoots): string {
  return dirname(indexDirFor(roots, 'team'));
}

/** Where the socket is and whether a short folder had to be used. */
export interface SocketLocation {
  path: string;
  /** the 0700 folder holding it when the index folder's path was too long, else undefined */
  shortDir: string | undefined;
}

/**
 * The socket path of a vault's server: `<server dir>/server.sock`, or, when that is longer than
 * {@link MAX_SOCKET_PATH_BYTES}, `<dir>/<hash>.sock` in `$XDG_RUNTIME_DIR` (when it is a folder of
 * this user, mode 0700) or `/tmp/vault-<uid>` (made 0700 and checked: a real folder of this user
 * that nobody else may enter). Answers undefined when no safe short folder exists.
 *
 * @param uid this process's user id
 * @param env the environment (reads `XDG_RUNTIME_DIR`)
 * @param create make `/tmp/vault-<uid>` when missing (the server); clients only look
 */
export function socketLocation(roots: VaultRoots, uid: number, env: Readonly<Record<string, string | undefined>>, create = false): SocketLocation | undefined {
  const dir = serverDirFor(roots);
  const near = join(dir, 'server.sock');
  if (Buffer.byteLength(near) <= MAX_SOCKET_PATH_BYTES) return { path: near, shortDir: undefined };
  const name = `${createHash('sha256').update(dir).digest('hex').slice(0, 20)}.sock`;
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const candidates = [...(runtimeDir?.startsWith('/') ? [runtimeDir] : []), `/tmp/vault-${uid}`];
  for (const c of candidates) {
    if (create && c === `/tmp/vault-${uid}`) {
      try {
        mkdirSync(c, { mode: 0o700 });
      } catch {
        // exists already (checked below) or cannot be made
      }
    }
    if (privateDir(c, uid) && Buffer.byteLength(join(c, name)) <= MAX_SOCKET_PATH_BYTES) return { path: join(c, name), shortDir: c };
  }
  return undefined;
}

/** A real folder (not a link) owned by `uid` that no one else can enter or list. */
export function privateDir(path: string, uid: number): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrs = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * True when a served search result has the shape the CLI renders (a SearchResponse): a listener
 * that is not the vault's server, or a broken one, must make the client fall back to the files,
 * never crash it on a missing field.
 */
export function isServedSearch(v: unknown): boolean {
  if (!isRecord(v) || !Array.isArray(v.results) || typeof v.total !== 'number' || !isRecord(v.diagnostics)) return false;
  const d = v.diagnostics;
  if (
    !Array.isArray(d.invalidFiles) ||
    !isStrs(d.skippedSymlinks) ||
    typeof d.complete !== 'boolean' ||
    !isStrs(d.incompleteReasons) ||
    !Array.isArray(d.index)
  )
    return false;
  return v.results.every(
    (h: unknown) =>
      isRecord(h) &&
      ['id', 'title', 'kind', 'scope', 'status', 'path', 'excerpt', 'updatedAt'].every((k) => isStr(h[k])) &&
      typeof h.score === 'number' &&
      isStrs(h.tags),
  );
}

/** True when a served read result has the shape the CLI renders (see {@link isServedSearch}). */
export function isServedRead(v: unknown): boolean {
  if (!isRecord(v) || !isRecord(v.memory) || !isStr(v.path) || typeof v.canonical !== 'boolean' || !Array.isArray(v.backlinks)) return false;
  const m = v.memory;
  return (
    ['schema', 'id', 'title', 'kind', 'scope', 'trust', 'status', 'sourceHarness', 'createdAt', 'updatedAt', 'body'].every((k) => isStr(m[k])) &&
    isStrs(m.targetHarnesses) &&
    isStrs(m.tags) &&
    isStrs(m.links) &&
    v.backlinks.every((b: unknown) => isRecord(b) && ['id', 'title', 'kind', 'status'].every((k) => isStr(b[k])))
  );
}

/** True when a served similar-memory check has the shape a save reads (see {@link isServedSearch}). */
export function isServedSimilar(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.every(
      (s: unknown) =>
        isRecord(s) &&
        isStr(s.id) &&
        isStr(s.title) &&
        isStr(s.path) &&
        (s.reason === 'same-title' || s.reason === 'similar-body') &&
        typeof s.similarity === 'number',
    )
  );
}
