/**
 * The body of `vault read`, free of yargs: shared by the yargs command (commands/read.ts) and
 * the lean start-up path (cli/lean-main.ts), so both print byte-identical output.
 */
import { SCOPES, type Scope } from '../../document/contract.js';
import type { ReadResult } from '../../operations/read.js';
import { isServedRead } from '../../search/resident/resident-protocol.js';
import { rootsFor, type CliContext, type GlobalArgs } from '../command-context.js';
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
  const served = await askVaultServer(ctx, roots, { op: 'read', id: String(argv.id), scopes });
  // a reply of another shape (not the vault's server, a broken one): the files answer
  let r = served !== undefined && isServedRead(served) ? (served as ReadResult) : undefined;
  if (!r) {
    const { readMemory, fullCheckIntervalFrom } = await import('../../operations/read.js');
    r = readMemory(roots, String(argv.id), { scopes, fullCheckIntervalS: fullCheckIntervalFrom(ctx.io.runtime.env.ECC_INDEX_FULL_CHECK_S) });
  }
  const { jsonText, readJson, readText } = await import('../../search/resident/resident-render.js');
  ctx.io.stdout(argv.json ? jsonText(readJson(r)) : readText(r));
}
