import type { Argv } from 'yargs';
import type { Scope } from '../../document/contract.js';
import { printJson, printText, rootsFor, runCommand, type CliContext, type GlobalArgs } from '../context.js';

interface ReadArgs extends GlobalArgs {
  id: string;
  scope?: Scope[];
}

/** `vault read <id>`: print one memory, fail-closed. */
export const readCommand = (ctx: CliContext) => ({
  command: 'read <id>',
  describe: 'print one memory with the memories that link to it',
  builder: (y: Argv) =>
    y
      .positional('id', { type: 'string', describe: 'memory id (mem_...)' })
      .option('scope', { type: 'string', array: true, choices: ['team', 'project', 'user'], describe: 'scopes to look in (default project and team)' }),
  handler: (argv: ReadArgs) =>
    runCommand(ctx, argv, async () => {
      const { readMemory } = await import('../../vault/read-memory.js');
      const roots = await rootsFor(ctx, argv);
      const scopes = argv.scope?.length ? [...new Set(argv.scope)] : (['project', 'team'] as Scope[]);
      const r = readMemory(roots, String(argv.id), { scopes });
      if (argv.json) {
        printJson(ctx, { ...r.memory, path: r.path, canonical: r.canonical, backlinks: r.backlinks });
        return;
      }
      const m = r.memory;
      printText(ctx, `${m.title}`);
      printText(ctx, `${m.id} · ${m.kind} · ${m.scope} · ${m.status} · ${m.trust}`);
      printText(ctx, `path: ${r.path}`);
      if (m.tags.length) printText(ctx, `tags: ${m.tags.join(', ')}`);
      if (m.links.length) printText(ctx, `links: ${m.links.join(', ')}`);
      printText(ctx, `from ${m.sourceHarness} for ${m.targetHarnesses.join(', ')} · created ${m.createdAt} · updated ${m.updatedAt}`);
      printText(ctx, '');
      printText(ctx, m.body);
      if (r.backlinks.length) {
        printText(ctx, '');
        printText(ctx, 'linked from:');
        for (const b of r.backlinks) printText(ctx, `  ${b.id}  ${b.title} (${b.kind}, ${b.status})`);
      }
    }),
});
