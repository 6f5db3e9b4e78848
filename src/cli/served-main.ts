/**
 * The served fast path of `vault search` and `vault read`, and the argument parse of the lean
 * commands. bin/vault.js tries {@link runServed} (bundled alone into dist/cli/served-bundle.cjs,
 * a few dozen KB) before it loads the lean bundle (~400 KB): when the vault's index server
 * (`vault watch`) runs, it asks the server for the command's finished output (the server renders
 * it with the CLI's own render functions, search/resident/resident-render.ts) and writes it, so
 * an answer costs the CLI the argument parse, the roots, one socket round trip and one write.
 * Anything else (no server, a refusal, an error the CLI must word, arguments the lean path does
 * not take) answers `undefined` having printed nothing, and the lean CLI runs as before: the
 * output and exit code are those of the lean path, byte for byte (tests/cli/served-main.test.ts).
 */
// a default import: `parseArgs` is a getter of node:util, which the build's lazy-builtins plugin
// (scripts/build.mjs) does not re-export by name
import util from 'node:util';
import { KINDS, SCOPES, STATUSES, type Scope } from '../document/contract.js';
import { fullCheckIntervalFrom } from '../search/index/index-format.js';
import { askServer, serverTimedOut, type RequestBody } from '../search/resident/resident-ask.js';
import type { RenderedOutput } from '../search/resident/resident-protocol.js';
import { resolveRoots, type VaultRoots } from '../store/roots.js';
import type { ReadArgs } from './commands/read-run.js';
import type { SaveArgs } from './commands/save.js';
import { searchOptionsOf } from './commands/search-options.js';
import type { SearchArgs } from './commands/search-run.js';
import { exitAfterOutput, nodeCliIo } from './process-io.js';

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
  // the choices of commands/search-run.ts and read-run.ts (the contract's lists)
  search: { scope: SCOPES, kind: KINDS, status: STATUSES },
  read: { scope: SCOPES },
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
 * The request whose rendered reply is exactly what the lean path would print for `parsed`, or
 * undefined when the lean path must answer (a `--limit` it refuses: its usage error).
 */
function servedRequest(parsed: LeanCommand, env: Readonly<Record<string, string | undefined>>, color: boolean): RequestBody | undefined {
  if (parsed.command === 'read') {
    // as runRead (commands/read-run.ts); the id is checked by the server (an invalid one: an error reply, so the lean path words it)
    const scopes = parsed.args.scope?.length ? [...new Set(parsed.args.scope)] : (['project', 'team'] as Scope[]);
    return { op: 'read', id: String(parsed.args.id), scopes, render: { json: Boolean(parsed.args.json) } };
  }
  if (parsed.command !== 'search') return undefined;
  // as runSearch (commands/search-run.ts): its options, through the same JSON the client sends
  const a = parsed.args;
  if (a.limit !== undefined && !(Number.isInteger(a.limit) && a.limit >= 1 && a.limit <= 100)) return undefined;
  const options = searchOptionsOf(a, fullCheckIntervalFrom(env.ECC_INDEX_FULL_CHECK_S));
  const query = (a.query ?? []).map(String).join(' ');
  return {
    op: 'search',
    query,
    options: JSON.parse(JSON.stringify(options)) as Record<string, unknown>,
    render: { json: Boolean(a.json), color },
  };
}

/**
 * Answers `vault search ...` or `vault read ...` from the vault's running index server.
 *
 * @param argv arguments after the program name
 * @returns 0 once the server's rendered output is written (stdout, then stderr); `undefined`,
 *   with nothing printed, whenever the lean path must answer: `ECC_VAULT_SERVER=off`, arguments
 *   it does not take, roots that cannot be resolved (the lean path words the error), no usable
 *   server (no socket, another user's, a refusal, a timeout), or an error reply
 */
export async function runServed(argv: readonly string[]): Promise<number | undefined> {
  if (process.env.ECC_VAULT_SERVER === 'off') return undefined;
  const parsed = parseLeanArgs(argv);
  if (!parsed || parsed.command === 'save') return undefined;
  const io = nodeCliIo();
  const env = io.runtime.env;
  let roots: VaultRoots;
  try {
    roots = resolveRoots(io.runtime, { root: parsed.args.root, userRoot: parsed.args['user-root'] });
  } catch {
    return undefined;
  }
  const body = servedRequest(parsed, env, io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb');
  if (!body) return undefined;
  const reply = await askServer(roots, body, { uid: io.runtime.uid, env });
  // a server that did not reply in time is not asked again by the lean path (one timeout, not two)
  if (serverTimedOut()) process.env.ECC_VAULT_SERVER = 'off';
  if (!reply?.ok) return undefined;
  const out = reply.result as Partial<RenderedOutput> | null;
  if (typeof out !== 'object' || out === null || typeof out.stdout !== 'string' || typeof out.stderr !== 'string') return undefined;
  io.stdout(out.stdout);
  if (out.stderr) io.stderr(out.stderr);
  return exitAfterOutput(0);
}
