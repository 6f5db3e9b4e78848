/**
 * The server's view of the vault: the library's operations with the server's identity applied
 * (harness filter, user-scope gate). Shared by the tools and the `memory://` resources so both
 * answer the same question the same way. No vault logic lives here, only the identity policy.
 */
import type { Memory, Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import type { VaultRoots } from '../store/roots.js';
import type { Backlink } from '../operations/read.js';
import { assertScopesAllowed, DEFAULT_MCP_SCOPES, isVisibleTo, type ServerIdentity } from './identity.js';

/** Everything a tool or resource handler needs, fixed at start-up. */
export interface McpContext {
  roots: VaultRoots;
  rt: Runtime;
  identity: ServerIdentity;
  /** writes one line to the server log (stderr); never to the protocol stream */
  log(line: string): void;
}

/** A memory read through the server: visible to its harness, with visible backlinks only. */
export interface VisibleRead {
  memory: Memory;
  path: string;
  backlinks: Backlink[];
}

/**
 * The scopes a call may look in: its explicit choice, else project and team; user only when
 * asked for and enabled.
 *
 * @throws VaultError `invalid-input` (user scope disabled)
 */
export function scopesFor(ctx: McpContext, requested: readonly Scope[] | undefined): Scope[] {
  const scopes = requested?.length ? [...new Set(requested)] : [...DEFAULT_MCP_SCOPES];
  assertScopesAllowed(ctx.identity, scopes);
  return scopes;
}

/**
 * Reads one memory fail-closed (see `readMemory`), then applies the harness filter: a memory not
 * targeted at this harness (or `all`) answers exactly like a missing one, and backlinks from
 * memories hidden from this harness are dropped.
 *
 * @param ctx server context
 * @param id memory id (checked against the ecc.memory.v1 id grammar before any path use)
 * @param scopes scopes to look in, already allowed by {@link scopesFor}
 * @throws VaultError `invalid-input`, `read-incomplete`, `ambiguous`, `not-found`
 */
export async function readVisibleMemory(ctx: McpContext, id: string, scopes: readonly Scope[]): Promise<VisibleRead> {
  const { readMemory, fullCheckIntervalFrom } = await import('../operations/read.js');
  const harness = ctx.identity.harness;
  // through the index, as `vault read`: an unrelated broken file does not block the lookup
  const found = readMemory(ctx.roots, id, {
    scopes,
    fullCheckIntervalS: fullCheckIntervalFrom(ctx.rt.env.ECC_INDEX_FULL_CHECK_S),
    backlinkFilter: (m) => isVisibleTo(m, harness),
  });
  if (!isVisibleTo(found.memory, harness)) {
    throw new VaultError('not-found', `memory ${id} is not visible to harness ${harness}`);
  }
  return { memory: found.memory, path: found.path, backlinks: found.backlinks };
}

/** A memory listed as a resource. */
export interface ListedMemory {
  id: string;
  title: string;
  kind: string;
  scope: Scope;
  updatedAt: string;
}

/**
 * Lists the active memories of the default scopes visible to this harness, newest first.
 *
 * @param max at most this many (clients render resource lists whole)
 */
export async function listVisibleMemories(ctx: McpContext, max: number): Promise<ListedMemory[]> {
  const { scanVault } = await import('../scanner/scan-vault.js');
  const scan = scanVault(ctx.roots, { scopes: DEFAULT_MCP_SCOPES });
  return scan.entries
    .map((e) => e.memory)
    .filter((m) => m.status === 'active' && isVisibleTo(m, ctx.identity.harness))
    .sort((a, b) => (a.updatedAt !== b.updatedAt ? (a.updatedAt < b.updatedAt ? 1 : -1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, max)
    .map((m) => ({ id: m.id, title: m.title, kind: m.kind, scope: m.scope, updatedAt: m.updatedAt }));
}
