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
      .option('scope', { type: 'string', array: true, choices: [...READ_SCOPE_CHOICES], describe: 'scopes to look in (default project and team)' }),
  handler: (argv: ReadArgs) => runCommand(ctx, argv, () => runRead(ctx, argv)),
});
