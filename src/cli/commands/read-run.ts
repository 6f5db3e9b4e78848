/**
 * The body of `vault read`, free of yargs: shared by the yargs command (commands/read.ts) and
 * the lean start-up path (cli/lean-main.ts), so both print byte-identical output.
 */
import { SCOPES, toFrontmatter, type Scope } from '../../document/contract.js';
import type { ReadResult } from '../../operations/read.js';
import { printJson, printText, rootsFor, type CliContext, type GlobalArgs } from '../command-context.js';
import { askVaultServer } from '../server-link.js';

/** Allowed `--scope` values of `vault read`, in the order the help text lists them. */
export const READ_SCOPE_CHOICES: readonly Scope[] = SCOPES;

/** Parsed arguments of `vault read`, shaped as yargs delivers them. */
export interface ReadArgs extends GlobalArgs {
  id: string;
  scope?: Scope[];
}

/**
 * Reads one memory (fail-closed, see `readMemory`) and prints it: JSON with `--json` (the
 * frontmatter's snake_case keys, `body`, `path`, `canonical`, `backlinks`, then the deprecated
 * camelCase aliases `sourceHarness`, `targetHarnesses`, `createdAt`, `updatedAt`), otherwise
 * a header, the body and the memories that link to it, with terminal control characters removed.
 *
 * @throws VaultError `not-found`, `ambiguous`, `read-incomplete`, `invalid-input` (a malformed id)
 */
export async function runRead(ctx: CliContext, argv: ReadArgs): Promise<void> {
  const roots = await rootsFor(ctx, argv);
  const scopes = argv.scope?.length ? [...new Set(argv.scope)] : (['project', 'team'] as Scope[]);
  const { assertMemoryId } = await import('../../store/ids.js');
  assertMemoryId(String(argv.id));
  // the resident server (`vault watch`) answers when one runs for this vault, else the files do
  let r = (await askVaultServer(ctx, roots, { op: 'read', id: String(argv.id), scopes })) as ReadResult | undefined;
  if (!r) {
    const { readMemory, fullCheckIntervalFrom } = await import('../../operations/read.js');
    r = readMemory(roots, String(argv.id), { scopes, fullCheckIntervalS: fullCheckIntervalFrom(ctx.io.runtime.env.ECC_INDEX_FULL_CHECK_S) });
  }
  if (argv.json) {
    const m = r.memory;
    // the file's own field names (snake_case, in file order); the camelCase keys of earlier
    // versions follow as deprecated aliases with the same values (docs/cli.md, "read --json")
    printJson(ctx, {
      ...toFrontmatter(m),
      body: m.body,
      path: r.path,
      canonical: r.canonical,
      backlinks: r.backlinks,
      sourceHarness: m.sourceHarness,
      targetHarnesses: m.targetHarnesses,
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
    });
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
}
