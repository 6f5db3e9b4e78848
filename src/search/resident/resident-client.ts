/**
 * The client side of the resident index server: ask the vault's server, or learn within a few
 * milliseconds that there is none to ask. Any doubt (no socket, a socket of another user, a file
 * that is not a socket, a refused connection, a dead or foreign server, another protocol version,
 * a garbled or late reply) answers `undefined`, and the caller works on disk as without a server.
 */
import { lstatSync } from 'node:fs';
import { createConnection } from 'node:net';
import { VaultError, type VaultErrorCode } from '../../errors.js';
import type { VaultRoots } from '../../store/roots.js';
import { fullCheckIntervalFrom } from '../index/index-freshness.js';
import { searchMemories, type SearchOptions, type SearchResponse } from '../query/search-memories.js';
import { findSimilarMemories, type SimilarMemory, type SimilarProbe } from '../query/similar-memories.js';
import { MAX_LINE_BYTES, PROTOCOL_VERSION, socketLocation, vaultKey, type ServerReply, type ServerRequest } from './resident-protocol.js';

/** Who is asking: the process's user id and environment (adapters pass them; core code never reads the process). */
export interface ClientIdentity {
  uid: number;
  env: Readonly<Record<string, string | undefined>>;
}

/** A request without the fields every request carries. */
export type RequestBody = ServerRequest extends infer R ? (R extends ServerRequest ? Omit<R, 'v' | 'vault'> : never) : never;

/** How long a connected server may take to answer before the client gives up on it (ms). */
export const DEFAULT_REPLY_TIMEOUT_MS = 60_000;

/** The reply timeout of callers with a short budget of their own (hooks, ms): a slower server is left for the files. */
export const HOOK_REPLY_TIMEOUT_MS = 1000;

/**
 * Sends one request to the vault's server.
 *
 * @param timeoutMs give up on a server that does not reply in this time (default 60 s: a first
 *   request after many changes may refresh a large index)
 * @returns the reply, or undefined when no usable server answered (never throws)
 */
export function askServer(roots: VaultRoots, body: RequestBody, who: ClientIdentity, timeoutMs = DEFAULT_REPLY_TIMEOUT_MS): Promise<ServerReply | undefined> {
  const at = socketLocation(roots, who.uid, who.env);
  if (!at) return Promise.resolve(undefined);
  try {
    const st = lstatSync(at.path);
    if (!st.isSocket() || st.uid !== who.uid) return Promise.resolve(undefined);
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    let done = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = createConnection(at.path);
    const finish = (reply: ServerReply | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.on('error', () => finish(undefined));
    socket.on('connect', () => socket.write(`${JSON.stringify({ ...body, v: PROTOCOL_VERSION, vault: vaultKey(roots) })}\n`));
    socket.on('data', (d: Buffer) => {
      const nl = d.indexOf(10);
      chunks.push(nl >= 0 ? d.subarray(0, nl) : d);
      size += d.length;
      if (size > MAX_LINE_BYTES) return finish(undefined);
      if (nl >= 0) finish(parseReply(Buffer.concat(chunks).toString('utf8')));
    });
    socket.on('end', () => finish(undefined));
  });
}

function parseReply(line: string): ServerReply | undefined {
  try {
    const r = JSON.parse(line) as ServerReply;
    if (typeof r !== 'object' || r === null || r.v !== PROTOCOL_VERSION || typeof r.ok !== 'boolean') return undefined;
    if (!r.ok && 'refused' in r) return undefined;
    return r;
  } catch {
    return undefined;
  }
}

/**
 * The result of a reply, or the error it carries thrown as the `VaultError` the server raised.
 *
 * @throws VaultError the server's error (same code, message, field, rule and hint)
 */
export function replyResult(reply: ServerReply & { ok: boolean }): unknown {
  if (reply.ok) return reply.result;
  if ('error' in reply) {
    const e = reply.error;
    throw new VaultError(e.code as VaultErrorCode, e.message, { field: e.field, rule: e.rule, hint: e.hint });
  }
  return undefined;
}

/** The reply of the vault's server to `body`, or undefined when none answers or `ECC_VAULT_SERVER=off`. @throws VaultError the server's error */
async function served(roots: VaultRoots, body: RequestBody, who: ClientIdentity, timeoutMs?: number): Promise<unknown> {
  if (who.env.ECC_VAULT_SERVER === 'off') return undefined;
  const reply = await askServer(roots, body, who, timeoutMs);
  return reply ? replyResult(reply) : undefined;
}

/**
 * A search answered by the vault's index server, or `undefined` when none answers (the caller
 * then runs `searchMemories` on the files). `ECC_VAULT_SERVER=off` in `who.env` skips the server.
 *
 * @param timeoutMs give up on a server that does not reply in this time (default {@link DEFAULT_REPLY_TIMEOUT_MS})
 * @throws VaultError what `searchMemories` throws for the same arguments (the server ran it)
 */
export async function searchThroughServer(
  roots: VaultRoots,
  query: string,
  options: SearchOptions,
  who: ClientIdentity,
  timeoutMs?: number,
): Promise<SearchResponse | undefined> {
  const body: RequestBody = { op: 'search', query, options: JSON.parse(JSON.stringify(options)) as Record<string, unknown> };
  return (await served(roots, body, who, timeoutMs)) as SearchResponse | undefined;
}

/**
 * A search answered by the vault's server when one runs, else by `searchMemories` on the files
 * (the same answer either way). Without `options.fullCheckIntervalS` the interval between full
 * checks comes from `ECC_INDEX_FULL_CHECK_S` in `who.env`, as in the CLI.
 *
 * @param timeoutMs how long a running server may take to reply before the files answer (hooks pass their short budget)
 * @throws VaultError `invalid-input` for a bad option (see searchMemories)
 */
export async function searchServedOrOnDisk(
  roots: VaultRoots,
  query: string,
  options: SearchOptions,
  who: ClientIdentity,
  timeoutMs?: number,
): Promise<SearchResponse> {
  const o: SearchOptions = { ...options, fullCheckIntervalS: options.fullCheckIntervalS ?? fullCheckIntervalFrom(who.env.ECC_INDEX_FULL_CHECK_S) };
  return (await searchThroughServer(roots, query, o, who, timeoutMs)) ?? searchMemories(roots, query, o);
}

/**
 * The similar-memory check of a save (`findSimilarMemories`), answered by the vault's server when
 * one runs, else on the files (ECC_INDEX_FULL_CHECK_S from `who.env`); the same answer either way.
 *
 * @returns similar memories, same title first
 */
export async function similarServedOrOnDisk(roots: VaultRoots, memory: SimilarProbe, who: ClientIdentity): Promise<SimilarMemory[]> {
  const probe = { title: memory.title, body: memory.body, scope: memory.scope, ...(memory.id !== undefined ? { id: memory.id } : {}) };
  const r = (await served(roots, { op: 'similar', memory: probe }, who)) as SimilarMemory[] | undefined;
  return r ?? findSimilarMemories(roots, probe, { fullCheckIntervalS: fullCheckIntervalFrom(who.env.ECC_INDEX_FULL_CHECK_S) });
}

/** What answers on the vault's socket: nothing, the vault's index server (its status), or a listener that is not ours. */
export type ServerPresence = { kind: 'none' } | { kind: 'ours'; status: Record<string, unknown> & { pid: number } } | { kind: 'foreign'; socket: string };

/**
 * Asks the vault's socket for the server's status and says who answered. A reply of our
 * protocol whose result holds no pid (a positive integer) is not our server's: something else
 * listens on the path (see {@link foreignListenerError}).
 *
 * @param timeoutMs as {@link askServer}
 */
export async function serverPresence(roots: VaultRoots, who: ClientIdentity, timeoutMs: number): Promise<ServerPresence> {
  const r = await askServer(roots, { op: 'status' }, who, timeoutMs);
  if (!r?.ok) return { kind: 'none' };
  const status = r.result as Record<string, unknown> | undefined;
  const pid = typeof status === 'object' && status !== null ? status.pid : undefined;
  if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0) return { kind: 'ours', status: status as Record<string, unknown> & { pid: number } };
  return { kind: 'foreign', socket: socketLocation(roots, who.uid, who.env)?.path ?? '(the server socket)' };
}

/**
 * The refusal to start a server where a listener that is not the vault's holds the socket path
 * (it answers, so the path is not stale and is not removed).
 *
 * @returns VaultError `io-error` (exit 7) naming the socket and the fix
 */
export function foreignListenerError(socket: string): VaultError {
  return new VaultError('io-error', `cannot start the index server: ${socket} is held by a listener that is not the vault's index server`, {
    rule: 'one index server per vault, on its own socket',
    hint: `stop the program listening on ${socket} (or remove the socket if nothing should listen there), then run \`vault watch\` again`,
  });
}
