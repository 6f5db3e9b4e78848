/**
 * Process entry of the detached index server: `vault watch --detach` spawns this module with the
 * foreground command's arguments as one JSON object, so the server starts without loading yargs
 * and the full CLI (~150-250 ms of its start). It runs exactly the foreground `vault watch`
 * (commands/watch.ts, `runWatch`), printing its JSON lines to the server log.
 */
import { pathToFileURL } from 'node:url';
import util from 'node:util';
import { SCOPES } from '../document/contract.js';
import { EXIT } from '../errors.js';
import { reportError, runCommand, type CliContext } from './command-context.js';
import { runWatch, type WatchArgs } from './commands/watch.js';
import { exitAfterOutput, ignoreClosedPipes, nodeCliIo } from './process-io.js';

/**
 * Runs the foreground index server for the arguments `vault watch --detach` passed.
 *
 * @param json a JSON object of {@link WatchArgs} (`json`, `debounce`, `root`, `user-root`, `scope`); detach, stop and status are ignored
 * @returns the exit code
 */
export async function runDetachedServer(json: string | undefined): Promise<number> {
  ignoreClosedPipes();
  const ctx: CliContext = { io: nodeCliIo(), exitCode: EXIT.ok };
  let args: WatchArgs;
  try {
    const v = JSON.parse(json ?? '') as Record<string, unknown>;
    args = {
      json: v.json === true,
      debounce: typeof v.debounce === 'number' ? v.debounce : 200,
      ...(typeof v.root === 'string' ? { root: v.root } : {}),
      ...(typeof v['user-root'] === 'string' ? { 'user-root': v['user-root'] } : {}),
      ...(Array.isArray(v.scope) ? { scope: v.scope as WatchArgs['scope'] } : {}),
    };
  } catch {
    ctx.io.stderr('error: the index server entry takes one JSON object of arguments (vault watch --detach passes it)\n');
    return EXIT.usage;
  }
  try {
    await runCommand(ctx, args, () => runWatch(ctx, args));
    return ctx.exitCode;
  } catch (err) {
    return reportError(ctx, err, Boolean(args.json));
  }
}

/** The flags {@link runWatchControl} takes, as util.parseArgs options. */
const CONTROL_OPTIONS = {
  detach: { type: 'boolean' },
  stop: { type: 'boolean' },
  status: { type: 'boolean' },
  json: { type: 'boolean' },
  root: { type: 'string' },
  'user-root': { type: 'string' },
  scope: { type: 'string', multiple: true },
} as const;

/**
 * `vault watch --detach`, `--status` or `--stop` for bin/vault.js without loading yargs (its load
 * cost `vault watch --status` ~250 ms, and `--detach` as much before the server starts). Only
 * plain forms are taken: exactly one of the three, each other flag at most once (`--scope` once
 * per value, each one of the scopes), no other word; anything else (help, a typo, `--json true`,
 * `--scope a b`, conflicting verbs, `--debounce`) answers `undefined` before printing anything and
 * the full CLI answers with its own messages.
 *
 * @param argv arguments after the program name, starting with "watch"
 * @returns the exit code, or undefined
 */
export async function runWatchControl(argv: readonly string[]): Promise<number | undefined> {
  if (argv[0] !== 'watch') return undefined;
  let tokens;
  let values: Record<string, unknown>;
  try {
    ({ tokens, values } = util.parseArgs({ args: argv.slice(1), options: CONTROL_OPTIONS, strict: true, allowPositionals: false, tokens: true }));
  } catch {
    return undefined;
  }
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option') return undefined;
    if (t.name !== 'scope' && seen.has(t.name)) return undefined;
    seen.add(t.name);
  }
  const verbs = (['detach', 'stop', 'status'] as const).filter((v) => values[v] === true);
  if (verbs.length !== 1) return undefined;
  const scopes = values.scope as string[] | undefined;
  if (scopes?.some((s) => !(SCOPES as readonly string[]).includes(s))) return undefined;
  const args: WatchArgs = {
    [verbs[0]!]: true,
    ...(values.json === true ? { json: true } : {}),
    ...(typeof values.root === 'string' ? { root: values.root } : {}),
    ...(typeof values['user-root'] === 'string' ? { 'user-root': values['user-root'] } : {}),
    ...(scopes ? { scope: scopes as WatchArgs['scope'] } : {}),
  };
  const ctx: CliContext = { io: nodeCliIo(), exitCode: EXIT.ok };
  try {
    await runCommand(ctx, args, () => runWatch(ctx, args));
    return exitAfterOutput(ctx.exitCode);
  } catch (err) {
    return exitAfterOutput(reportError(ctx, err, Boolean(args.json)));
  }
}

// run when spawned as a script (not when imported)
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  void runDetachedServer(process.argv[2]).then((code) => {
    process.exitCode = code;
  });
}
