/**
 * The CLI entry point: `main(argv, io)` parses the arguments with yargs, runs one command and
 * returns the exit code. It is the one place that catches: a known VaultError becomes one line
 * plus a hint and its exit code; anything else is an internal error (exit 70) with the stack.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { canonicalHarness } from '../document/harness-names.js';
import { EXIT, EXIT_MEANINGS, VaultError } from '../errors.js';
import { redactSecretShapes } from '../secrets/scan-secrets.js';
import { commandModules } from './commands/registry.js';
import { reportError, type CliContext, type CliIo } from './command-context.js';
import { closestMatch } from './suggest.js';
import { boundInput } from '../document/echo-input.js';

/** One exit code's line(s) of the help: the meaning without backticks, wrapped at 96 columns under itself. */
function exitLine([code, meaning]: readonly [number, string]): string {
  const lines: string[] = [];
  for (const word of meaning.replace(/`/g, '').split(' ')) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 1 + word.length <= 90) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return `  ${String(code).padEnd(4)}${lines.join(`\n${' '.repeat(6)}`)}`;
}

export const EXIT_CODES_HELP = `Exit codes:\n${EXIT_MEANINGS.map(exitLine).join('\n')}`;

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

/** The names of the top-level commands, from the registry (`share <id>` → `share`). */
export function commandNames(ctx: CliContext): string[] {
  return commandModules.map((make) => make(ctx).command.split(' ')[0]!);
}

/** A word the user typed, as an error message quotes it: credentials redacted, at most 40 characters, then an ellipsis. */
const clip = (word: string) => boundInput(word, 40);

/** Global flags that take a value: the word after them is not the command. */
const GLOBAL_VALUE_FLAGS = new Set(['--root', '--user-root']);

/**
 * Refuses a first word that names no command, before yargs sees it: yargs would answer
 * "Did you mean hooks?" for `vault bogus`, which neither says the command is unknown nor is
 * near. The message always says "unknown command"; a did-you-mean follows only when one
 * command is a slip of the keyboard away (see {@link closestMatch}).
 *
 * @throws VaultError `usage`
 */
function assertKnownCommand(argv: readonly string[], names: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return;
    if (GLOBAL_VALUE_FLAGS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (names.includes(a)) return;
    const near = closestMatch(a, names);
    throw new VaultError('usage', oneLineUsage(`unknown command "${clip(a)}"${near ? `; did you mean \`vault ${near}\`?` : ''}`), {
      hint: `run \`vault --help\` for the commands: ${names.join(', ')}`,
    });
  }
}

/** `user-root` → `userRoot`, as yargs adds the camel-case key of a kebab-case flag. */
const camel = (name: string) => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Refuses flags the command does not define, before yargs validates: yargs checks required
 * flags first, so a misspelt `--titel` would be reported as a missing `--title`. Runs as
 * middleware inside the matched command, where `y.getOptions().key` holds its flags; a token
 * counts only when yargs parsed it as a flag (it is a key of `argv`), so values are never
 * mistaken for flags.
 *
 * @throws VaultError `usage`: `unknown flag --titel; did you mean --title?`
 */
function assertKnownFlags(
  raw: readonly string[],
  argv: Record<string, unknown>,
  y: { getOptions(): { key: Record<string, unknown>; alias?: Record<string, string[]> } },
): void {
  const options = y.getOptions();
  const known = Object.keys(options.key).filter((k) => k !== '$0');
  const knownSet = new Set([...known, ...known.map(camel), ...Object.values(options.alias ?? {}).flat()]);
  const command = typeof (argv._ as unknown[] | undefined)?.[0] === 'string' ? String((argv._ as unknown[])[0]) : '';
  for (const token of raw) {
    if (token === '--') return;
    const short = /^-([A-Za-z]+)(?:=|$)/.exec(token);
    if (short) {
      // `-k decision`: no one-letter flag -k; offer the one long flag that starts with k
      for (const letter of short[1]!) {
        if (knownSet.has(letter) || !(letter in argv)) continue;
        const starting = known.filter((k) => k.length > 1 && k === k.toLowerCase() && k.startsWith(letter.toLowerCase()));
        throw new VaultError('usage', `unknown flag -${letter}${starting.length === 1 ? `; did you mean --${starting[0]}?` : ''}`, {
          hint: command ? `run \`vault ${command} --help\` for its flags` : 'run `vault --help`',
        });
      }
      continue;
    }
    const m = /^--([A-Za-z][\w-]*)(?:=|$)/.exec(token);
    if (!m) continue;
    const name = m[1]!;
    const base = name.startsWith('no-') ? name.slice(3) : name;
    if (knownSet.has(name) || knownSet.has(base)) continue;
    if (!(name in argv) && !(camel(name) in argv) && !(base in argv) && !(camel(base) in argv)) continue;
    const near = closestMatch(
      name,
      known.filter((k) => k.length > 1 && k === k.toLowerCase()),
    );
    throw new VaultError('usage', oneLineUsage(`unknown flag --${clip(name)}${near ? `; did you mean --${near}?` : ''}`), {
      hint: command ? `run \`vault ${command} --help\` for its flags` : 'run `vault --help`',
    });
  }
}

/**
 * Refuses a flag that takes a value but was given none: `vault search redis --kind` (the last
 * word), `--limit --json`, `--kind=`. yargs would read an empty list or no value, and the command
 * would run as if the flag were not there. Also refuses a single-value flag given twice. Long
 * flags only.
 *
 * @throws VaultError `usage`: `--kind needs a value`, `--limit may be given only once`
 */
function assertFlagValues(
  raw: readonly string[],
  y: { getOptions(): { string?: string[]; number?: string[]; array?: string[]; boolean?: string[]; count?: string[] } },
  command: string | undefined,
): void {
  const o = y.getOptions();
  const flags = new Set([...(o.boolean ?? []), ...(o.count ?? [])]);
  const valued = new Set([...(o.string ?? []), ...(o.number ?? []), ...(o.array ?? [])].filter((k) => !flags.has(k)));
  const lists = new Set(o.array ?? []);
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i]!;
    if (token === '--') return;
    const m = /^--([A-Za-z][\w-]*)(=?)(.*)$/s.exec(token);
    if (!m || !valued.has(m[1]!)) continue;
    const name = m[1]!;
    // one value per flag but for lists: yargs would make an array, or add up numbers (`--limit 3 --limit 1` was 4)
    if (!lists.has(name)) {
      if (seen.has(name)) throw new VaultError('usage', `--${name} may be given only once`, { hint: usageHint(command) });
      seen.add(name);
    }
    // `--kind=`: an empty value is no value (yargs would read an empty list: no filter)
    if (m[2] === '=') {
      if (m[3] === '') throw flagWithoutValue(name, command);
      continue;
    }
    const next = raw[i + 1];
    // a flag-shaped word (or `--`) is not a value; `-1`, `- item` and `-` are (see isDashValue)
    if (next === undefined || (next.startsWith('-') && !isDashValue(next))) throw flagWithoutValue(name, command);
  }
}

function flagWithoutValue(name: string, command: string | undefined): VaultError {
  return new VaultError('usage', `--${name} needs a value`, { hint: usageHint(command) });
}

/** The command named on the line (the first word that is not a flag or a global flag's value), or undefined. */
function commandWord(argv: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (GLOBAL_VALUE_FLAGS.has(a)) i++;
    else if (!a.startsWith('-')) return names.includes(a) ? a : undefined;
  }
  return undefined;
}

/**
 * A `--harness` value with its alias resolved (`gemini` → `gemini-cli`, `claude` → `claude-code`;
 * document/harness-names.ts), before the choices are checked. A repeated flag stays an array,
 * for the command's "given only once" check.
 */
function harnessArg(value: unknown): unknown {
  return Array.isArray(value) ? value.map((v) => canonicalHarness(String(v))) : canonicalHarness(String(value));
}

/** The hint of a usage error: the help of the command that was run, else the top-level help. */
/**
 * yargs' "Not enough non-option arguments: got 1, need at least 2" said in the command's terms:
 * `missing <id>: the command is vault read <id>`, naming the required positionals not given
 * (from the command's own usage line). Undefined for any other message.
 */
function missingArguments(ctx: CliContext, command: string | undefined, msg: string | undefined): string | undefined {
  const m = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(msg ?? '');
  const usage = command === undefined ? undefined : commandModules.map((make) => make(ctx).command).find((c) => c.split(' ')[0] === command);
  if (!m || !usage) return undefined;
  const required = usage.split(' ').filter((w) => /^<[\w-]+>$/.test(w));
  const missing = required.slice(Number(m[1]));
  return missing.length > 0 ? `missing ${missing.join(' ')}: the command is vault ${usage}` : undefined;
}

function usageHint(command: string | undefined): string {
  return command ? `run \`vault ${command} --help\` for its arguments and flags` : 'run `vault --help` for the commands';
}

/**
 * Refuses a value outside an option's or positional's choices, before yargs validates (it would
 * print "Invalid values: Argument: action, Given: ..., Choices: ..." without a suggestion):
 * `unknown action "instal"; did you mean install?`, naming the flag as typed (`--kind`) for a
 * flag, and the allowed values in the hint.
 *
 * @throws VaultError `usage`
 */
function assertKnownChoices(
  raw: readonly string[],
  argv: Record<string, unknown>,
  y: { getOptions(): { key: Record<string, unknown>; choices?: Record<string, readonly unknown[]> } },
): void {
  const choices = y.getOptions().choices ?? {};
  const command = typeof (argv._ as unknown[] | undefined)?.[0] === 'string' ? String((argv._ as unknown[])[0]) : undefined;
  for (const [key, allowed] of Object.entries(choices)) {
    const given = argv[key];
    if (given === undefined) continue;
    const values = ([] as unknown[]).concat(given);
    for (const [i, value] of values.entries()) {
      if (value === undefined || allowed.includes(value)) continue;
      const words = allowed.map(String);
      const asFlag = raw.some((t) => t === `--${key}` || t.startsWith(`--${key}=`));
      const near = closestMatch(String(value), words);
      // `--scope user tabs`: a list flag takes the plain words after it, so "tabs" was meant as the query
      const taken =
        asFlag && i > 0 && allowed.includes(values[i - 1])
          ? `; words after --${key} count as more --${key} values: put the query first (\`vault ${command ?? '…'} ${clip(String(value))} --${key} ${String(values[i - 1])}\`)`
          : '';
      throw new VaultError(
        'usage',
        oneLineUsage(`unknown ${asFlag ? `--${key} value` : key} "${clip(String(value))}"${near ? `; did you mean ${near}?` : ''}`),
        { hint: `${asFlag ? `--${key}` : key} is one of: ${words.join(', ')}${taken}; ${usageHint(command)}` },
      );
    }
  }
}

/**
 * A word that can only be a value, though it starts with "-": a Markdown list item
 * (`- first item`), a number (`-5`), a YAML fence (`---`), a lone `-`, or any word with a space
 * in it. `--` (the end of the flags) and flag-shaped words (`--body`, `-k`) are not.
 */
const isDashValue = (word: string) => word.startsWith('-') && word !== '--' && (/\s/.test(word) || !/^--?[A-Za-z]/.test(word));

/**
 * Joins a string flag and a following value that starts with "-" (`--body "- first item"` →
 * `--body=- first item`): yargs would take the value for a flag and answer "Not enough
 * arguments following: body". `stringFlags` maps each spelling of the command's string flags
 * (`body`, a one-letter alias) to its name; words after `--` are left alone.
 */
export function joinDashValues(argv: readonly string[], stringFlags: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    const m = /^--([A-Za-z][\w-]*)$/.exec(a) ?? /^-([A-Za-z])$/.exec(a);
    const name = m ? stringFlags.get(m[1]!) : undefined;
    const next = argv[i + 1];
    if (name !== undefined && next !== undefined && isDashValue(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** The string flags of `command` and of the global flags, each spelling mapped to the flag's name (see {@link joinDashValues}). */
function stringFlagsOf(ctx: CliContext, command: string | undefined): Map<string, string> {
  const flags = new Map<string, string>([
    ['root', 'root'],
    ['user-root', 'user-root'],
  ]);
  const make = commandModules.find((m) => m(ctx).command.split(' ')[0] === command);
  if (!make) return flags;
  const options = (make(ctx).builder(yargs([])) as { getOptions(): { string: string[]; alias: Record<string, string[]> } }).getOptions();
  for (const name of options.string) {
    flags.set(name, name);
    for (const alias of options.alias[name] ?? []) flags.set(alias, name);
  }
  return flags;
}

/** Builds the yargs parser (also used to generate docs/cli.md). */
export function buildParser(ctx: CliContext, argv: readonly string[]) {
  const command = commandWord(argv, commandNames(ctx));
  let parser = yargs([...argv])
    .scriptName('vault')
    .version(packageVersion())
    .usage(
      '$0 <command> [options]\n\nA memory for AI coding agents: create-only Markdown memories (ecc.memory.v1), reviewed in git.\nDefault recall scopes: project and team; user scope must be requested explicitly.',
    )
    .option('json', { type: 'boolean', describe: 'print machine-readable JSON on stdout' })
    .option('root', { type: 'string', describe: 'vault folder holding team/ and project/ (default: <repo>/.ecc/memory; env ECC_MEMORY_PROJECT_ROOT)' })
    .option('user-root', { type: 'string', describe: 'user scope folder (default: ~/.ecc/memory; env ECC_MEMORY_USER_ROOT)' })
    .help()
    .alias('help', 'h')
    .alias('version', ['v', 'V'])
    .strict()
    .demandCommand(1, 'name a command')
    .middleware(
      ((
        args: Record<string, unknown>,
        y: Parameters<typeof assertKnownFlags>[2] & Parameters<typeof assertKnownChoices>[2] & Parameters<typeof assertFlagValues>[1],
      ) => {
        assertKnownFlags(argv, args, y);
        assertFlagValues(argv, y, command);
        // `--harness gemini` is `--harness gemini-cli` for every command (document/harness-names.ts)
        if (args.harness !== undefined) args.harness = harnessArg(args.harness);
        assertKnownChoices(argv, args, y);
      }) as never,
      true,
    )
    .epilog(EXIT_CODES_HELP)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs' own validation errors (YError: a flag without its value, ...) are usage errors too.
      if (err && err.name !== 'YError') throw err;
      // a flag declared with requiresArg, given no value (yargs: "Not enough arguments following: title")
      const noValue = /^Not enough arguments following: ([\w-]+)$/.exec(msg ?? err?.message ?? '');
      if (noValue) throw flagWithoutValue(noValue[1]!, command);
      throw new VaultError('usage', missingArguments(ctx, command, msg) ?? oneLineUsage(msg ?? err?.message), { hint: usageHint(command) });
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
    const names = commandNames(ctx);
    assertKnownCommand(argv, names);
    argv = joinDashValues(argv, stringFlagsOf(ctx, commandWord(argv, names)));
    let helpOutput = '';
    await buildParser(ctx, argv).parseAsync([...argv], {}, (_err, _args, output) => {
      helpOutput = output;
    });
    if (helpOutput) io.stdout(helpOutput.endsWith('\n') ? helpOutput : `${helpOutput}\n`);
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof Error && err.name === 'YError') {
      return reportError(ctx, new VaultError('usage', oneLineUsage(err.message), { hint: usageHint(commandWord(argv, commandNames(ctx))) }), json);
    }
    return reportError(ctx, err, json);
  }
}
