/**
 * The lean start-up path of the hot commands `vault search`, `vault read` and `vault save`:
 * bin/vault.js loads this (bundled into dist/cli/lean-bundle.cjs, run with a V8 code cache by
 * lean-loader.ts) instead of the yargs CLI, which costs
 * ~100-250 ms to load. Arguments are parsed with Node's own `util.parseArgs` (`parseLeanArgs`,
 * in served-main.ts: the served fast path parses them the same way), and only forms
 * whose meaning is certain are handled here; for anything else (help, version, unknown or misspelt flags, a value
 * outside the choices, a missing value, a repeated single-value flag, `--`, a `--json true`, a
 * save without `--title` or with a word no flag takes)
 * {@link runLeanCli} answers `undefined` before printing anything, and the caller runs the full
 * yargs CLI, so messages and exit codes stay exactly those of yargs. The command bodies are the
 * same functions the yargs commands call (commands/search-run.ts, commands/read-run.ts,
 * `runSave` of commands/save.ts).
 *
 * Set `ECC_VAULT_CLI=full` to skip this path (bin/vault.js; tests compare both paths that way).
 * With a running index server, `vault search` and `vault read` are answered before this path is
 * loaded (served-main.ts); it runs when that path answers `undefined`.
 */
import { EXIT } from '../errors.js';
import { reportError, runCommand, type CliContext } from './command-context.js';
import { runRead } from './commands/read-run.js';
import { runSave } from './commands/save.js';
import { runSearch } from './commands/search-run.js';
import { parseLeanArgs } from './served-main.js';
import { exitAfterOutput, nodeCliIo } from './process-io.js';

export { parseLeanArgs, type LeanCommand } from './served-main.js';

/**
 * Runs `vault search`, `vault read` or `vault save` for this process without loading yargs.
 *
 * @param argv arguments after the program name
 * @returns the exit code (see `EXIT`), or `undefined` when the arguments need the full CLI;
 *   nothing has been printed in that case
 */
export async function runLeanCli(argv: readonly string[]): Promise<number | undefined> {
  const parsed = parseLeanArgs(argv);
  if (!parsed) return undefined;
  const ctx: CliContext = { io: nodeCliIo(), exitCode: EXIT.ok };
  try {
    if (parsed.command === 'search') await runCommand(ctx, parsed.args, () => runSearch(ctx, parsed.args));
    else if (parsed.command === 'read') await runCommand(ctx, parsed.args, () => runRead(ctx, parsed.args));
    else await runCommand(ctx, parsed.args, () => runSave(ctx, parsed.args));
    return exitAfterOutput(ctx.exitCode);
  } catch (err) {
    return exitAfterOutput(reportError(ctx, err, Boolean(parsed.args.json)));
  }
}
