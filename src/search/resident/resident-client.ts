/**
 * The client side of the resident index server: ask the vault's server, or learn within a few
 * milliseconds that there is none to ask. Any doubt (no socket, a socket of another user, a file
 * that is not a socket, a refused connection, a dead or foreign server, another protocol version,
 * a garbled or late reply) answers `undefined`, and the caller works on disk as without a server.
 */
import { VaultError, type VaultErrorCode } from '../../errors.js';
import type { VaultRoots } from '../../store/roots.js';
import { fullCheckIntervalFrom } from '../index/index-freshness.js';
import { searchMemories, type SearchOptions, type SearchResponse } from '../query/search-memories.js';
import { findSimilarMemories, type SimilarMemory, type SimilarProbe } from '../query/similar-memories.js';
import { askServer, type ClientIdentity, type RequestBody } from './resident-ask.js';
import { isServedSearch, isServedSimilar, socketLocation, type ServerReply } from './resident-protocol.js';

export { askServer, DEFAULT_REPLY_TIMEOUT_MS, HOOK_REPLY_TIMEOUT_MS, type ClientIdentity, type RequestBody } from './resident-ask.js';

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
  const r = await served(roots, body, who, timeoutMs);
  // a reply of another shape (not the vault's server, a broken one): the files answer
  return isServedSearch(r) ? (r as SearchResponse) : undefined;
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
  const r = await served(roots, { op: 'similar', memory: probe }, who);
  return isServedSimilar(r)
    ? (r as SimilarMemory[])
    : findSimilarMemories(roots, probe, { fullCheckIntervalS: fullCheckIntervalFrom(who.env.ECC_INDEX_FULL_CHECK_S) });
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
