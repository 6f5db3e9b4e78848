import type { Argv } from 'yargs';
import type { Scope } from '../../document/contract.js';
import { printJson, printText, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';

interface InitArgs extends GlobalArgs {
  scope?: Scope[];
  obsidian?: boolean;
  'dry-run'?: boolean;
  here?: boolean;
}

/** `vault init [--scope S]...`: create the vault's folders. */
export const initCommand = (ctx: CliContext) => ({
  command: 'init',
  describe: 'create the vault folders (default scopes: project and team)',
  builder: (y: Argv) =>
    y
      .option('scope', { type: 'string', array: true, choices: ['team', 'project', 'user'], describe: 'scope(s) to create (repeatable)' })
      .option('obsidian', {
        type: 'boolean',
        describe: 'also write a minimal .obsidian/ config (hide the index, inbox/ and attachments/ folders, property types); existing files are kept',
      })
      .option('here', {
        type: 'boolean',
        describe: 'make the working directory a vault (.ecc/memory here) outside a git repository; never in the home folder',
      })
      .option('dry-run', { type: 'boolean', describe: 'check the folders and the project .gitignore, create nothing (also ECC_DRY_RUN=1)' })
      .example('$0 init', 'create .ecc/memory/{team,project} with kind folders')
      .example('$0 init --here', 'make this folder (not a git repository) a vault'),
  handler: (argv: InitArgs) =>
    runCommand(ctx, argv, async () => {
      const { initVault } = await import('../../operations/init.js');
      if (Array.isArray(argv.here)) usageError('--here may be given only once');
      const roots = await rootsFor(ctx, argv, { here: Boolean(argv.here) });
      const scopes = [...new Set(argv.scope?.length ? argv.scope : (['project', 'team'] as Scope[]))];
      const dryRun = Boolean(argv['dry-run']) || ctx.io.runtime.env.ECC_DRY_RUN === '1';
      const result = initVault(roots, scopes, { dryRun });
      const obsidian = [];
      if (argv.obsidian && !dryRun) {
        const { writeObsidianConfig } = await import('../../operations/obsidian-config.js');
        const dirs = [...(scopes.some((s) => s !== 'user') ? [roots.memoryRoot] : []), ...(scopes.includes('user') ? [roots.user] : [])];
        for (const dir of dirs)
          obsidian.push(
            writeObsidianConfig(dir, {
              hiddenFolders: ['.index/'],
              ...(dir === roots.user ? { dirMode: 0o700, fileMode: 0o600 } : { gitignore: roots.gitDir !== undefined }),
            }),
          );
      }
      const rel = (p: string) => (p.startsWith(`${roots.worktreeRoot}/`) ? p.slice(roots.worktreeRoot.length + 1) : p);
      if (argv.json) {
        printJson(ctx, {
          dryRun,
          scopes: result.scopes,
          roots: Object.fromEntries(Object.entries(result.roots).map(([k, v]) => [k, rel(v!)])),
          created: result.created.map(rel),
          ...(argv.obsidian
            ? {
                obsidian: obsidian.map((o) => ({
                  dir: rel(o.dir),
                  written: o.written,
                  kept: o.kept,
                  ...(o.vaultGitignore ? { gitignore: { path: rel(o.vaultGitignore.path), written: o.vaultGitignore.written } } : {}),
                })),
              }
            : {}),
        });
      } else {
        for (const s of result.scopes) printText(ctx, `${s.padEnd(8)} ${rel(result.roots[s]!)}`);
        if (dryRun)
          printText(
            ctx,
            result.created.length
              ? `dry run: would create ${result.created.length} folder(s); nothing written`
              : 'dry run: already initialised; nothing written',
          );
        else printText(ctx, result.created.length ? `created ${result.created.length} folder(s)` : 'already initialised; nothing changed');
        for (const o of obsidian) {
          printText(
            ctx,
            `obsidian ${rel(o.dir)}: ${o.written.length ? `wrote ${o.written.join(', ')}` : 'nothing written'}${o.kept.length ? `; kept existing ${o.kept.join(', ')}` : ''}`,
          );
          if (o.vaultGitignore)
            printText(
              ctx,
              o.vaultGitignore.written
                ? `ignore   ${rel(o.vaultGitignore.path)}: wrote /.trash/, /inbox/, /attachments/ (Obsidian scratch, never committed)`
                : `ignore   ${rel(o.vaultGitignore.path)}: kept existing (add /.trash/, /inbox/, /attachments/ to it yourself if missing)`,
            );
        }
      }
    }),
});
