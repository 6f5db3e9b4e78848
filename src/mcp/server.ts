/**
 * The vault's MCP server: the official SDK's McpServer with the memory tools and resources, and
 * a stdio runner. stdout carries JSON-RPC and nothing else; every log line goes to stderr.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './memory-access.js';
import { registerMemoryDigest } from './memory-digest.js';
import { registerMemoryResources } from './memory-resources.js';
import { registerMemoryTools } from './memory-tools.js';
import { registerProposalTools } from './proposal-tools.js';
import { LineStdioTransport } from './stdio-transport.js';
import { toolCallRefusal } from './tool-arguments.js';
import { TOOL_INPUTS } from './tool-schemas.js';
import { RECALL_NOTICE } from './tool-result.js';

// The CLI starts the server through this module only (adapters reach each other by their entry).
export { readServerIdentity, type ServerIdentity } from './identity.js';

/** Name the server announces in `initialize` (as the reference ecc.memory.v1 server does). */
export const MCP_SERVER_NAME = 'ecc-memory-vault';

function packageVersion(): string {
  try {
    // dist/mcp/server.js and src/mcp/server.ts both sit two levels below package.json.
    return String((createRequire(import.meta.url)('../../package.json') as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

/**
 * Builds the MCP server for one vault and one harness identity (not yet connected).
 *
 * @param ctx roots, runtime, the fixed identity, and the stderr logger
 * @returns an McpServer with memory_save, memory_search, memory_read, memory_doctor, memory_proposals,
 *   `memory://{id}`, and the memory digest (`memory_digest` prompt, `memory://digest`)
 */
export function createVaultMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: packageVersion() },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: [
        `This server is the project's memory vault, speaking for harness "${ctx.identity.harness}".`,
        'Search it (memory_search) before re-deciding something or at the start of a task; save durable decisions, conventions, lessons and hand-offs (memory_save).',
        RECALL_NOTICE,
      ].join(' '),
    },
  );
  registerMemoryTools(server, ctx);
  registerMemoryDigest(server, ctx);
  registerMemoryResources(server, ctx);
  registerProposalTools(server, ctx);
  return server;
}

/**
 * Serves the vault over stdio until the client closes standard input.
 *
 * Anything that would print to stdout through `console` is redirected to stderr first, so a
 * stray log line from a dependency cannot corrupt the JSON-RPC stream. Messages are read by
 * {@link LineStdioTransport}: a line over 1 MiB is refused with `-32700` and the server goes on.
 *
 * @param ctx server context
 * @returns when the connection has closed
 */
export async function serveStdio(ctx: McpContext): Promise<void> {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;

  const server = createVaultMcpServer(ctx);
  // tool arguments are checked before the SDK sees them: it would answer a bad one as a tool result
  const transport = new LineStdioTransport(process.stdin, process.stdout, { screen: (message) => toolCallRefusal(message, TOOL_INPUTS) });
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  transport.onerror = (err) => ctx.log(`vault mcp: transport error: ${err.message}`);
  // The SDK's stdio transport does not watch for end of input. When the client closes our stdin,
  // requests already received must still be answered, so close only once the event loop has
  // nothing left to do (every handler finished and its answer was written).
  process.once('beforeExit', () => void server.close().catch(() => undefined));
  await server.connect(transport);
  ctx.log(`vault mcp: serving harness "${ctx.identity.harness}" for ${ctx.roots.worktreeRoot}${ctx.identity.allowUserScope ? ' (user scope enabled)' : ''}`);
  await closed;
}
