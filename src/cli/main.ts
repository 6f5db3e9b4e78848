/**
 * The CLI entry point: `main(argv, io)` parses the arguments with yargs, runs one command and
 * returns the exit code. It is the one place that catches: a known VaultError becomes one line
 * plus a hint and its exit code; anything else is an internal error (exit 70) with the stack.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { EXIT, VaultError } from '../errors.js';
import { redactSecretShapes } from '../secrets/scan-secrets.js';
import { commandModules } from './commands/registry.js';
import { reportError, type CliContext, type CliIo } from './command-context.js';

export const EXIT_CODES_HELP = `Exit codes:
  0   success
  1   findings: doctor found errors (or warnings with --strict); fmt --check would change files
  2   usage: unknown command or flag, missing or conflicting arguments
  3   invalid input: a field rule, a size limit, a suspected secret, an invalid document
  4   not found: no memory with that id
  5   conflict: the id already exists (writes are create-only) or two files claim one id
  6   incomplete: the vault could not be fully read, so a lookup refuses to say "not found"
  7   file system or environment problem: permissions, symlinks, project .gitignore
  70  internal error (a bug; please report it)`;

/**
 * yargs' validation messages span several lines and quote the given value ("Invalid values:
 * Argument: kind, Given: ..."): make them one line, and never echo a credential a user pasted.
 */
function oneLineUsage(msg: string | undefined): string {
  const text = (msg ?? 'invalid arguments')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
  return redactSecretShapes(text).text;
}

/**
 * This package's version, from its own package.json (two folders up from dist/cli/ and from
 * src/cli/). yargs would guess it from the package.json above its own node_modules folder, which
 * in a project that installed vault as a dependency is the project's.
 */
function packageVersion(): string {
  try {
    const version: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Builds the yargs parser (also used to generate docs/cli.md). */
export function buildParser(ctx: CliContext, argv: readonly string[]) {
  let parser = yargs([...argv])
    .scriptName('vault')
    .version(packageVersion())
    .usage(
      '$0 <command> [options]\n\nA memory for AI coding agents: create-only Markdown memories (ecc.memory.v1), reviewed in git.\nDefault recall scopes: project and team; user scope must be requested explicitly.',
    )
    .option('json', { type: 'boolean', describe: 'print machine-readable JSON on stdout' })
    .option('root', { type: 'string', describe: 'vault folder holding team/ and project/ (default: <repo>/.ecc/memory; env ECC_MEMORY_PROJECT_ROOT)' })
    .option('user-root', { type: 'string', describe: 'user scope folder (default: ~/.ecc/memory; env ECC_MEMORY_USER_ROOT)' })
    .strict()
    .demandCommand(1, 'name a command')
    .recommendCommands()
    .epilog(EXIT_CODES_HELP)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs' own validation errors (YError: a flag without its value, ...) are usage errors too.
      if (err && err.name !== 'YError') throw err;
      throw new VaultError('usage', oneLineUsage(msg ?? err?.message), { hint: 'run `vault --help` or `vault <command> --help`' });
    });
  for (const make of commandModules) parser = parser.command(make(ctx) as never);
  return parser;
}

/**
 * Runs the CLI.
 *
 * @param argv arguments after the program name
 * @param io the process's streams and runtime
 * @returns the exit code (see {@link EXIT_CODES_HELP})
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const ctx: CliContext = { io, exitCode: EXIT.ok };
  const json = argv.includes('--json');
  if (argv.length === 0) {
    argv = ['--help'];
  }
  try {
    let helpOutput = '';
    await buildParser(ctx, argv).parseAsync([...argv], {}, (_err, _args, output) => {
      helpOutput = output;
    });
    if (helpOutput) io.stdout(helpOutput.endsWith('\n') ? helpOutput : `${helpOutput}\n`);
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof Error && err.name === 'YError') {
      return reportError(ctx, new VaultError('usage', oneLineUsage(err.message), { hint: 'run `vault --help` or `vault <command> --help`' }), json);
    }
    return reportError(ctx, err, json);
  }
}
