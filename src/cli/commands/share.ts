import type { Argv } from 'yargs';
import { EXIT } from '../../errors.js';
import { printJson, printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface ShareArgs extends GlobalArgs {
  id: string;
}

/** Quotes a path for a POSIX shell when it needs it. */
function shellQuote(p: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** `vault share <id>`: move a project memory into the team scope (then commit it for review). */
export const shareCommand = (ctx: CliContext) => ({
  command: 'share <id>',
  describe: 'move a local project memory into the team scope, ready to commit and review',
  builder: (y: Argv) => y.positional('id', { type: 'string', describe: 'memory id (mem_...)' }),
  handler: (argv: ShareArgs) =>
    runCommand(ctx, argv, async () => {
      const [{ shareMemory }, { repoPathOf }] = await Promise.all([import('../../operations/share.js'), import('../../doctor/repo-path.js')]);
      const roots = await rootsFor(ctx, argv);
      const r = await shareMemory(roots, String(argv.id), ctx.io.runtime);
      const gitAdd = `git add ${shellQuote(repoPathOf(roots, r.to))}`;
      if (argv.json) {
        printJson(ctx, { id: r.memory.id, from: r.from, to: r.to, gitAdd });
      } else {
        printText(ctx, `Shared ${r.memory.kind} ${r.memory.id}: ${r.from} → ${r.to} (trust stays unreviewed)`);
        printText(ctx, `  commit it: ${gitAdd}`);
      }
      return EXIT.ok;
    }),
});
