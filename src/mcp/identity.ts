/**
 * Who the MCP server speaks for. The harness identity is fixed by the operator in the server's
 * environment at launch, never by the client: a model cannot claim to be another harness, read
 * memories routed to another harness, or reach the user scope the operator did not open.
 */
import { SLUG_PATTERN, type Scope } from '../document/contract.js';
import { targetsHarness } from '../document/harness-names.js';
import { VaultError } from '../errors.js';

/** The server's fixed identity and permissions, read once at start-up. */
export interface ServerIdentity {
  /** the harness this server speaks for: `source_harness` of every write, filter of every read */
  harness: string;
  /** true only when the operator set ECC_MEMORY_ALLOW_USER_SCOPE=1 */
  allowUserScope: boolean;
}

/** Environment variables read by {@link readServerIdentity}, in order of precedence. */
export const HARNESS_ENV_VARS = ['ECC_MEMORY_HARNESS', 'VAULT_HARNESS'] as const;

/**
 * Reads the server's identity from its environment.
 *
 * The harness comes from ECC_MEMORY_HARNESS, else its alias VAULT_HARNESS (an empty value counts
 * as unset). It must be a harness slug (`^[a-z0-9][a-z0-9._-]{0,63}$`, from ecc.memory.v1) and
 * not `all`, which is the "every harness" target, not a harness. User scope is opened only by
 * ECC_MEMORY_ALLOW_USER_SCOPE=1 exactly.
 *
 * @param env the process environment
 * @throws VaultError `usage` when the harness is missing or not a slug (message is one line)
 */
export function readServerIdentity(env: Readonly<Record<string, string | undefined>>): ServerIdentity {
  const name = HARNESS_ENV_VARS.find((k) => (env[k] ?? '') !== '');
  if (!name) {
    throw new VaultError('usage', 'ECC_MEMORY_HARNESS is not set; the MCP server needs to know which harness it serves (e.g. ECC_MEMORY_HARNESS=cursor)', {
      field: 'ECC_MEMORY_HARNESS',
      rule: 'required',
      hint: 'set ECC_MEMORY_HARNESS (or VAULT_HARNESS) in the MCP client configuration, see docs/mcp.md',
    });
  }
  const harness = env[name]!;
  if (!SLUG_PATTERN.test(harness) || harness === 'all') {
    throw new VaultError('usage', `${name} must be a harness name of lowercase letters, digits, ".", "_" or "-" (1..64 characters, not "all"), e.g. cursor`, {
      field: name,
      rule: `pattern ${SLUG_PATTERN.source}`,
      hint: 'set it to the name of the harness launching the server, e.g. claude-code, codex, cursor, gemini',
    });
  }
  return { harness, allowUserScope: env.ECC_MEMORY_ALLOW_USER_SCOPE === '1' };
}

/** The scopes recalled when a client does not name any: user scope only on explicit request. */
export const DEFAULT_MCP_SCOPES: readonly Scope[] = ['project', 'team'];

/**
 * Refuses the user scope unless the operator opened it. Runs before any storage access.
 *
 * @param identity the server's identity
 * @param scopes the scopes a tool call asked for explicitly
 * @throws VaultError `invalid-input` with rule `user scope disabled`
 */
export function assertScopesAllowed(identity: ServerIdentity, scopes: readonly Scope[]): void {
  if (scopes.includes('user') && !identity.allowUserScope) {
    throw new VaultError('invalid-input', 'The user memory scope is disabled for this MCP server.', {
      field: 'scope',
      rule: 'user scope disabled',
      hint: 'the operator can enable it by launching the server with ECC_MEMORY_ALLOW_USER_SCOPE=1; otherwise use project or team',
    });
  }
}

/** True when a memory is routed to `harness`: its targets name it or an alias of it (document/harness-names.ts), or `all`. */
export function isVisibleTo(memory: { targetHarnesses: readonly string[] }, harness: string): boolean {
  return targetsHarness(memory.targetHarnesses, harness);
}
