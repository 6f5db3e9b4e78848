import type { Argv } from 'yargs';
import { isVaultError, VaultError } from '../../errors.js';
import { runCommand, type CliContext, type GlobalArgs } from '../command-context.js';
import type { VaultRoots } from '../../store/roots.js';
import { sanitizeTerminalText } from '../../unicode/terminal-text.js';

/**
 * A failed launch exits 1 with one line on stderr: MCP clients show a server's stderr and exit
 * status, and the line must say what to set without a stack trace.
 */
const STARTUP_FAILED = 1;

interface McpArgs extends GlobalArgs {
  project?: string;
}

/** Resolves `--project` to an existing folder: a typo must not create a vault somewhere new. */
async function projectFolder(cwd: string, project: string): Promise<string> {
  const [{ statSync }, { resolve }] = await Promise.all([import('node:fs'), import('node:path')]);
  const dir = resolve(cwd, project);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir)
    throw new VaultError('usage', `--project ${project} is not an existing folder`, {
      field: 'project',
      hint: 'give the path of the project (repository) folder',
    });
  return dir;
}

/**
 * The start-up warning for a server that found no vault (the rule of store/roots.ts: no git work
 * tree, no explicit root, no `.ecc/memory` folder other than the user root). It still serves
 * (the client may only search), but project and team saves are refused.
 */
async function noProjectWarning(roots: VaultRoots): Promise<string | undefined> {
  if (roots.located !== 'none') return undefined;
  const { noVaultMessage } = await import('../../store/roots.js');
  return `vault mcp: warning: ${noVaultMessage(roots)}; hint: start the server in the project folder, pass --project <repo>, set ECC_MEMORY_PROJECT_ROOT, or run \`vault init --here\` there`;
}

/** `vault mcp`: serve the vault to any MCP client over stdio. */
export const mcpCommand = (ctx: CliContext) => ({
  command: 'mcp',
  describe: 'serve the vault as an MCP server over stdio (needs ECC_MEMORY_HARNESS; see docs/mcp.md)',
  builder: (y: Argv) =>
    y
      .option('project', {
        type: 'string',
        describe: 'serve the vault of this project folder instead of the working directory (for clients that start servers elsewhere)',
      })
      .example('ECC_MEMORY_HARNESS=cursor $0 mcp', 'serve the vault to Cursor (configure it in .cursor/mcp.json)')
      .epilog(
        'Environment:\n' +
          '  ECC_MEMORY_HARNESS           required: the harness this server speaks for (alias VAULT_HARNESS)\n' +
          '  ECC_MEMORY_ALLOW_USER_SCOPE  set to 1 to let tool calls that ask for it use the user scope\n' +
          'stdout carries JSON-RPC only; logs go to stderr.\n' +
          'Exit codes: 0 when the client closes the connection; 1 when the identity or --project is missing or invalid.',
      ),
  handler: (argv: McpArgs) =>
    runCommand(ctx, argv, async () => {
      const { readServerIdentity, serveStdio } = await import('../../mcp/server.js');
      let identity;
      let roots;
      let rt = ctx.io.runtime;
      try {
        identity = readServerIdentity(rt.env);
        if (argv.project !== undefined) rt = { ...rt, cwd: await projectFolder(rt.cwd, argv.project) };
        const { resolveRoots } = await import('../../store/roots.js');
        roots = resolveRoots(rt, { root: argv.root, userRoot: argv['user-root'] });
      } catch (err) {
        if (!isVaultError(err)) throw err;
        ctx.io.stderr(`vault mcp: startup failed: ${sanitizeTerminalText(err.message)}\n`);
        return STARTUP_FAILED;
      }
      const warning = await noProjectWarning(roots);
      if (warning) ctx.io.stderr(`${sanitizeTerminalText(warning)}\n`);
      await serveStdio({ roots, rt, identity, log: (line) => ctx.io.stderr(`${line}\n`) });
      return 0;
    }),
});
