/**
 * The CLI's side of the resident index server: ask it first, fall back to the files. Also the
 * control verbs of `vault watch` (--detach, --stop, --status), which talk to a running server.
 */
import type { RequestBody } from '../search/resident/resident-client.js';
import type { VaultRoots } from '../store/roots.js';
import type { CliContext } from './command-context.js';

/** This process as the server's client sees it (the server only answers its own user). */
export function clientIdentity(ctx: CliContext): { uid: number; env: Readonly<Record<string, string | undefined>> } {
  return { uid: ctx.io.runtime.uid, env: ctx.io.runtime.env };
}

/**
 * The server's answer to a search or read, or `undefined` when no usable server answered (then
 * the caller works on disk). `ECC_VAULT_SERVER=off` skips the server.
 *
 * @throws VaultError the error the server's operation raised (the same the on-disk path raises)
 */
export async function askVaultServer(ctx: CliContext, roots: VaultRoots, body: RequestBody): Promise<unknown> {
  if (ctx.io.runtime.env.ECC_VAULT_SERVER === 'off') return undefined;
  const { askServer, replyResult } = await import('../search/resident/resident-client.js');
  const reply = await askServer(roots, body, clientIdentity(ctx));
  return reply ? replyResult(reply) : undefined;
}
