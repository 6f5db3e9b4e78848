/**
 * The vault's memories as MCP resources, `memory://<id>`, for clients that browse resources.
 * Listing and reading go through the same identity policy as the tools: only memories targeted
 * at this server's harness (or `all`) in the project and team scopes, read fail-closed.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isVaultError } from '../errors.js';
import { DEFAULT_MCP_SCOPES } from './identity.js';
import { listVisibleMemories, readVisibleMemory, type McpContext } from './memory-access.js';
import { ProtocolError } from './protocol-error.js';
import { RECALL_NOTICE } from './tool-result.js';

/** Resources listed at most: clients render the list whole; the newest memories come first. */
export const MAX_LISTED_RESOURCES = 1000;

/** JSON-RPC error code for an unknown resource (MCP specification, "Resources: error handling"). */
const RESOURCE_NOT_FOUND = -32002;
const INTERNAL_ERROR = -32603;

/** Maps a failed read to a protocol error with a stable code in `data`, never a path or stack. */
function resourceError(err: unknown, log: (line: string) => void): ProtocolError {
  if (isVaultError(err) && err.code === 'read-incomplete') {
    // the hint is the CLI's own (it names the doctor command of the scopes read, never a path)
    return new ProtocolError(INTERNAL_ERROR, `MEMORY_READ_INCOMPLETE: the vault could not be fully read; ${err.hint ?? 'run `vault doctor`'}`, {
      code: 'MEMORY_READ_INCOMPLETE',
    });
  }
  if (isVaultError(err) && (err.code === 'not-found' || err.code === 'invalid-input' || err.code === 'ambiguous')) {
    const message = err.code === 'ambiguous' ? 'more than one file claims this memory id' : 'memory was not found, or is not visible to this harness';
    return new ProtocolError(RESOURCE_NOT_FOUND, `MEMORY_READ_FAILED: ${message}`, { code: 'MEMORY_READ_FAILED', reason: err.code });
  }
  const e = err instanceof Error ? err : new Error(String(err));
  log(`vault mcp: internal error reading a resource: ${e.stack ?? e.message}`);
  return new ProtocolError(INTERNAL_ERROR, 'MEMORY_READ_FAILED: internal error; details are in the server log', {
    code: 'MEMORY_READ_FAILED',
    reason: 'internal',
  });
}

/**
 * Registers the `memory://{id}` resource template, with a list of the visible active memories.
 *
 * @param server the MCP server
 * @param ctx roots, runtime, identity and log of this server
 */
export function registerMemoryResources(server: McpServer, ctx: McpContext): void {
  const template = new ResourceTemplate('memory://{id}', {
    list: async () => {
      try {
        const listed = await listVisibleMemories(ctx, MAX_LISTED_RESOURCES);
        return {
          resources: listed.map((m) => ({
            uri: `memory://${m.id}`,
            name: m.id,
            title: m.title,
            description: `${m.kind} · ${m.scope} · unreviewed · updated ${m.updatedAt}`,
            mimeType: 'text/markdown',
          })),
        };
      } catch (err) {
        throw resourceError(err, ctx.log);
      }
    },
  });

  server.registerResource(
    'memory',
    template,
    {
      title: 'Vault memory',
      description: `One memory of the vault as its ecc.memory.v1 Markdown file (frontmatter + body). ${RECALL_NOTICE}`,
      mimeType: 'text/markdown',
    },
    async (uri, variables): Promise<ReadResourceResult> => {
      try {
        const id = Array.isArray(variables.id) ? variables.id.join(',') : String(variables.id ?? '');
        const r = await readVisibleMemory(ctx, id, DEFAULT_MCP_SCOPES);
        const { serializeMemory } = await import('../document/serialize.js');
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: serializeMemory(r.memory) }] };
      } catch (err) {
        throw resourceError(err, ctx.log);
      }
    },
  );
}
