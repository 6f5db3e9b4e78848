/**
 * Asking the vault's index server one question: the socket, one request line, one reply line.
 * Kept apart from resident-client.ts (which also holds the on-disk fallbacks and so loads the
 * search engine) so the CLI's served fast path (cli/served-main.ts) stays a small bundle.
 */
import { lstatSync } from 'node:fs';
import { createConnection } from 'node:net';
import { systemClock } from '../../io/runtime.js';
import type { VaultRoots } from '../../store/roots.js';
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

/** The reply timeout of `ECC_VAULT_SERVER_TIMEOUT_MS` (a whole number of ms, 1 to 600,000), else {@link DEFAULT_REPLY_TIMEOUT_MS}. */
export function replyTimeoutFrom(value: string | undefined): number {
  const ms = value !== undefined && /^\d{1,6}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  return ms >= 1 && ms <= 600_000 ? ms : DEFAULT_REPLY_TIMEOUT_MS;
}

/** The reply timeout of callers with a short budget of their own (hooks, ms): a slower server is left for the files. */
export const HOOK_REPLY_TIMEOUT_MS = 1000;

/**
 * When a connected server last failed to reply in time (ms since the epoch): for a minute after,
 * this process asks no server (a hung server costs a command one timeout, not one per question;
 * a long-running process such as the MCP server tries again later).
 */
let timedOutAt: number | undefined;
const SKIP_AFTER_TIMEOUT_MS = 60_000;

function skipping(): boolean {
  return timedOutAt !== undefined && systemClock.nowMs() - timedOutAt < SKIP_AFTER_TIMEOUT_MS;
}

/** True while requests of this process skip the server after a timeout (see {@link askServer}); the CLI's served path passes it on to the lean path. */
export function serverTimedOut(): boolean {
  return skipping();
}

/**
 * Sends one request to the vault's server.
 *
 * @param timeoutMs give up on a server that does not reply in this time (default
 *   `ECC_VAULT_SERVER_TIMEOUT_MS` of `who.env`, else 60 s: a first request after many changes may
 *   refresh a large index); after one such timeout, requests of
 *   this process answer undefined at once for a minute
 * @returns the reply, or undefined when no usable server answered (never throws)
 */
export function askServer(roots: VaultRoots, body: RequestBody, who: ClientIdentity, timeoutMs?: number): Promise<ServerReply | undefined> {
  if (skipping()) return Promise.resolve(undefined);
  const limitMs = timeoutMs ?? replyTimeoutFrom(who.env.ECC_VAULT_SERVER_TIMEOUT_MS);
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
    const timer = setTimeout(() => {
      timedOutAt = systemClock.nowMs();
      finish(undefined);
    }, limitMs);
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
