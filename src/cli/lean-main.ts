/**
 * The lean start-up path of the hot commands `vault search`, `vault read` and `vault save`:
 * bin/vault.js loads this (bundled into dist/cli/lean-bundle.cjs, run with a V8 code cache by
 * lean-loader.ts) instead of the yargs CLI, which costs
 * ~100-250 ms to load. Arguments are parsed with Node's own `util.parseArgs`, and only forms
 * whose meaning is certain are handled here; for anything else (help, version, unknown or misspelt flags, a value
 * outside the choices, a missing value, a repeated single-value flag, `--`, a `--json true`, a
 * save without `--title` or with a word no flag takes)
 * {@link runLeanCli} answers `undefined` before printing anything, and the caller runs the full
 * yargs CLI, so messages and exit codes stay exactly those of yargs. The command bodies are the
 * same functions the yargs commands call (commands/search-run.ts, commands/read-run.ts,
 * `runSave` of commands/save.ts).
 *
 * Set `ECC_VAULT_CLI=full` to skip this path (bin/vault.js; tests compare both paths that way).
 */
// a default import: `parseArgs` is a getter of node:util, which the build's lazy-builtins plugin
// (scripts/build.mjs) does not re-export by name
import util from 'node:util';
import { EXIT } from '../errors.js';
import { reportError, runCommand, type CliContext } from './command-context.js';
import { KINDS, SCOPES } from '../document/contract.js';
import { READ_SCOPE_CHOICES, runRead, type ReadArgs } from './commands/read-run.js';
import { runSave, type SaveArgs } from './commands/save.js';
import { runSearch, SEARCH_KIND_CHOICES, SEARCH_SCOPE_CHOICES, SEARCH_STATUS_CHOICES, type SearchArgs } from './commands/search-run.js';
import { nodeCliIo } from './process-io.js';

/** One command the lean path can run, with its arguments shaped as yargs would deliver them. */
export type LeanCommand = { command: 'search'; args: SearchArgs } | { command: 'read'; args: ReadArgs } | { command: 'save'; args: SaveArgs };

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean };

const GLOBAL_OPTIONS: Record<string, OptionSpec> = { json: { type: 'boolean' }, root: { type: 'string' }, 'user-root': { type: 'string' } };
const SEARCH_OPTIONS: Record<string, OptionSpec> = {
  ...GLOBAL_OPTIONS,
  scope: { type: 'string', multiple: true },
  kind: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  status: { type: 'string', multiple: true },
  'target-harness': { type: 'string' },
  'source-harness': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  fresh: { type: 'boolean' },
};
const READ_OPTIONS: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, scope: { type: 'string', multiple: true } };
/** The flags of `vault save` (commands/save.ts), as util.parseArgs options. */
const SAVE_OPTIONS: Record<string, OptionSpec> = {
  ...GLOBAL_OPTIONS,
  title: { type: 'string' },
  body: { type: 'string' },
  'body-file': { type: 'string' },
  stdin: { type: 'boolean' },
  kind: { type: 'string' },
  scope: { type: 'string' },
  tag: { type: 'string', multiple: true },
  link: { type: 'string', multiple: true },
  'source-harness': { type: 'string' },
  'target-harness': { type: 'string', multiple: true },
  id: { type: 'string' },
  'dry-run': { type: 'boolean' },
  template: { type: 'boolean' },
  section: { type: 'string', multiple: true },
  'allow-local-link': { type: 'boolean' },
  unique: { type: 'boolean' },
  wikilinks: { type: 'boolean' },
};
const COMMAND_OPTIONS: Record<LeanCommand['command'], Record<string, OptionSpec>> = { search: SEARCH_OPTIONS, read: READ_OPTIONS, save: SAVE_OPTIONS };

const CHOICES: Record<LeanCommand['command'], Record<string, readonly string[]>> = {
  search: { scope: SEARCH_SCOPE_CHOICES, kind: SEARCH_KIND_CHOICES, status: SEARCH_STATUS_CHOICES },
  read: { scope: READ_SCOPE_CHOICES },
  save: { kind: KINDS, scope: SCOPES },
};

/** `--limit` values whose meaning is plain (yargs reads `007`, `1e1`, `0x5` as numbers too: those go to yargs). */
const PLAIN_LIMIT = /^(?:0|[1-9]\d{0,5})$/;

/**
 * Parses `search ...`, `read ...` or `save ...` the way the yargs definitions do, or answers `undefined`
 * when the arguments are not certainly a plain, valid form (the caller then runs yargs).
 * Mirrors two yargs behaviours on purpose: an array flag (`--scope`, `--kind`, `--tag`,
 * `--status`) also takes the plain words after it (`--tag a b` = tags a and b), and flags may
 * come before, between or after the positional words.
 *
 * @param argv arguments after the program name
 */
export function parseLeanArgs(argv: readonly string[]): LeanCommand | undefined {
  const command = argv[0];
  if (command !== 'search' && command !== 'read' && command !== 'save') return undefined;
  const rest = argv.slice(1);
  if (rest.some((a) => a === '--' || a === '-')) return undefined;
  const options = COMMAND_OPTIONS[command];
  let tokens;
  try {
    ({ tokens } = util.parseArgs({ args: rest, options, strict: true, allowPositionals: true, tokens: true }));
  } catch {
    return undefined; // unknown flag, missing value, value given to a boolean, ...: yargs words it
  }
  const single: Record<string, string | boolean> = {};
  const arrays: Record<string, string[]> = {};
  const positionals: string[] = [];
  let greedy: string | undefined; // the array flag that takes the following plain words
  let afterBoolean = false;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') return undefined;
    if (t.kind === 'positional') {
      // yargs reads `--json true` / `--json false` as the flag's value
      if (afterBoolean && /^(?:true|false)$/i.test(t.value)) return undefined;
      afterBoolean = false;
      if (greedy) arrays[greedy]!.push(t.value);
      else positionals.push(t.value);
      continue;
    }
    const spec = options[t.name]!;
    afterBoolean = spec.type === 'boolean';
    greedy = spec.multiple ? t.name : undefined;
    if (spec.multiple) (arrays[t.name] ??= []).push(t.value ?? '');
    else if (t.name in single)
      return undefined; // yargs turns a repeated flag into an array: let it answer
    else single[t.name] = spec.type === 'boolean' ? true : (t.value ?? '');
  }
  for (const [name, allowed] of Object.entries(CHOICES[command])) {
    if (arrays[name]?.some((v) => !allowed.includes(v))) return undefined;
    if (typeof single[name] === 'string' && !allowed.includes(single[name])) return undefined;
  }
  const global = {
    ...(single.json !== undefined ? { json: true } : {}),
    ...(single.root !== undefined ? { root: String(single.root) } : {}),
    ...(single['user-root'] !== undefined ? { 'user-root': String(single['user-root']) } : {}),
  };
  if (command === 'save') {
    // yargs words a missing --title and a stray word (strict mode)
    if (positionals.length || typeof single.title !== 'string') return undefined;
    const args: SaveArgs = { ...global, title: single.title };
    for (const name of ['body', 'body-file', 'kind', 'scope', 'source-harness', 'id'] as const) {
      if (single[name] !== undefined) args[name] = String(single[name]);
    }
    for (const name of ['tag', 'link', 'target-harness', 'section'] as const) if (arrays[name]) args[name] = arrays[name];
    for (const name of ['stdin', 'dry-run', 'template', 'allow-local-link', 'unique', 'wikilinks'] as const) {
      if (single[name] !== undefined) args[name] = true;
    }
    return { command, args };
  }
  if (command === 'read') {
    if (positionals.length !== 1) return undefined;
    return { command, args: { ...global, id: positionals[0]!, ...(arrays.scope ? { scope: arrays.scope as ReadArgs['scope'] } : {}) } };
  }
  const args: SearchArgs = { ...global, query: positionals };
  if (arrays.scope) args.scope = arrays.scope as SearchArgs['scope'];
  if (arrays.kind) args.kind = arrays.kind as SearchArgs['kind'];
  if (arrays.tag) args.tag = arrays.tag;
  if (arrays.status) args.status = arrays.status as SearchArgs['status'];
  for (const name of ['target-harness', 'source-harness', 'since', 'until'] as const) {
    if (single[name] !== undefined) args[name] = String(single[name]);
  }
  if (single.fresh !== undefined) args.fresh = true;
  if (single.limit !== undefined) {
    if (!PLAIN_LIMIT.test(String(single.limit))) return undefined;
    args.limit = Number(single.limit);
  }
  return { command, args };
}

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
    return ctx.exitCode;
  } catch (err) {
    return reportError(ctx, err, Boolean(parsed.args.json));
  }
}
