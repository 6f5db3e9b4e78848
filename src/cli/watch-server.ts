/**
 * Process entry of the detached index server: `vault watch --detach` spawns this module with the
 * foreground command's arguments as one JSON object, so the server starts without loading yargs
 * and the full CLI (~150-250 ms of its start). It runs exactly the foreground `vault watch`
 * (commands/watch.ts, `runWatch`), printing its JSON lines to the server log.
 */
import { pathToFileURL } from 'node:url';
import { EXIT } from '../errors.js';
import { reportError, runCommand, type CliContext } from './command-context.js';
import { runWatch, type WatchArgs } from './commands/watch.js';
import { ignoreClosedPipes, nodeCliIo } from './process-io.js';

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

// run when spawned as a script (not when imported)
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  void runDetachedServer(process.argv[2]).then((code) => {
    process.exitCode = code;
  });
}
