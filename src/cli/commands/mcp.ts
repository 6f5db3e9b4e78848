import type { Argv } from 'yargs';
import { isVaultError } from '../../errors.js';
import { rootsFor, runCommand, type CliContext, type GlobalArgs } from '../context.js';
import { sanitizeTerminalText } from '../terminal-text.js';

/**
 * A failed launch exits 1 with one line on stderr: MCP clients show a server's stderr and exit
 * status, and the line must say what to set without a stack trace.
 */
const STARTUP_FAILED = 1;

/** `vault mcp`: serve the vault to any MCP client over stdio. */
export const mcpCommand = (ctx: CliContext) => ({
  command: 'mcp',
  describe: 'serve the vault as an MCP server over stdio (needs ECC_MEMORY_HARNESS; see docs/mcp.md)',
  builder: (y: Argv) =>
    y
      .example('ECC_MEMORY_HARNESS=cursor $0 mcp', 'serve the vault to Cursor (configure it in .cursor/mcp.json)')
      .epilog(
        'Environment:\n' +
          '  ECC_MEMORY_HARNESS           required: the harness this server speaks for (alias VAULT_HARNESS)\n' +
          '  ECC_MEMORY_ALLOW_USER_SCOPE  set to 1 to let tool calls that ask for it use the user scope\n' +
          'stdout carries JSON-RPC only; logs go to stderr.',
      ),
  handler: (argv: GlobalArgs) =>
    runCommand(ctx, argv, async () => {
      const { readServerIdentity } = await import('../../mcp/identity.js');
      let identity;
      let roots;
      try {
        identity = readServerIdentity(ctx.io.runtime.env);
        roots = await rootsFor(ctx, argv);
      } catch (err) {
        if (!isVaultError(err)) throw err;
        ctx.io.stderr(`vault mcp: startup failed: ${sanitizeTerminalText(err.message)}\n`);
        return STARTUP_FAILED;
      }
      const { serveStdio } = await import('../../mcp/server.js');
      await serveStdio({ roots, rt: ctx.io.runtime, identity, log: (line) => ctx.io.stderr(`${line}\n`) });
      return 0;
    }),
});
