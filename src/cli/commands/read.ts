import type { Argv } from 'yargs';
import { runCommand, type CliContext } from '../command-context.js';
import { READ_SCOPE_CHOICES, runRead, type ReadArgs } from './read-run.js';

/** `vault read <id>`: print one memory, fail-closed (body in read-run.ts, shared with the lean path). */
export const readCommand = (ctx: CliContext) => ({
  command: 'read <id>',
  describe: 'print one memory with the memories that link to it',
  builder: (y: Argv) =>
    y
      .positional('id', { type: 'string', describe: 'memory id (mem_...)' })
      .option('scope', { type: 'string', array: true, choices: [...READ_SCOPE_CHOICES], describe: 'scopes to look in (default project and team)' })
      .epilog(
        "--json prints the frontmatter under the file's own field names (schema, id, title, kind, scope, trust, status, " +
          'source_harness, target_harnesses, tags, links, created_at, updated_at), then body, path, canonical and backlinks. ' +
          'The camelCase keys sourceHarness, targetHarnesses, createdAt and updatedAt follow with the same values; they are ' +
          'deprecated aliases, kept for scripts written against earlier versions, and will be removed in a future major version.',
      ),
  handler: (argv: ReadArgs) => runCommand(ctx, argv, () => runRead(ctx, argv)),
});
