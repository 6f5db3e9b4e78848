import { realpathSync } from 'node:fs';
import type { Argv } from 'yargs';
import { SCOPES } from '../../document/contract.js';
import { EXIT } from '../../errors.js';
import { printText, rootsFor, runCommand, usageError, type CliContext } from '../command-context.js';
import { readBodyInput, reportSaved, saveInputFrom, saveOptionsFrom, type SaveArgs } from './save.js';

/** True when two worktree paths name the same folder (symlinks resolved when they exist). */
function sameWorktree(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return a === b || real(a) === real(b);
}

interface HandoffArgs extends SaveArgs {
  unique?: boolean;
  'from-session'?: string;
  from?: string;
  target?: string[];
}

/**
 * `vault handoff`: save a `handoff` memory, create-only and unreviewed. Either from a session
 * snapshot (`--from-session <shortid>`) or, like the reference CLI, from a body
 * (`--body/--body-file/--stdin`) with `--from H --target H`.
 */
export const handoffCommand = (ctx: CliContext) => ({
  command: 'handoff',
  describe: 'save a hand-off memory, from a session snapshot or a body (create-only, unreviewed)',
  builder: (y: Argv) =>
    y
      .option('title', { type: 'string', describe: 'title, 1..200 characters (required)' })
      .option('from-session', { type: 'string', describe: 'short id of a session snapshot (see `vault sessions list`), or the session id' })
      .option('body', { type: 'string', describe: 'body text (Markdown)' })
      .option('body-file', { type: 'string', describe: 'read the body from a UTF-8 file or a named pipe (/dev/stdin too), to its end' })
      .option('stdin', { type: 'boolean', describe: 'read the body from standard input' })
      .option('from', { type: 'string', describe: 'harness handing off (source_harness)' })
      .option('target', { type: 'string', array: true, describe: 'harness that should pick it up (repeatable; alias of --target-harness)' })
      .option('target-harness', { type: 'string', array: true, describe: 'harness that should pick it up (repeatable; default all)' })
      .option('scope', { type: 'string', choices: SCOPES, describe: 'project (default), team or user' })
      .option('tag', { type: 'string', array: true, describe: 'tag (repeatable)' })
      .option('link', { type: 'string', array: true, describe: 'id of a related memory (repeatable)' })
      .option('allow-local-link', {
        type: 'boolean',
        describe: "keep a team memory's links to project-scope memories without the warning (they are broken in every other clone)",
      })
      .option('id', { type: 'string', describe: 'explicit id' })
      .option('unique', { type: 'boolean', describe: 'refuse to save when the scope already holds a memory with the same title or a near-identical body' })
      .option('dry-run', {
        type: 'boolean',
        describe: 'check the memory, its links and folders, write nothing; the similar-memory check (and --unique) runs only on a real save',
      })
      .example(
        '$0 handoff --from-session 6e4f2a1b --title "Auth refactor: where it stands" --target-harness codex',
        'hand a Claude Code session over to Codex',
      ),
  handler: (argv: HandoffArgs) => runCommand(ctx, argv, () => runHandoff(ctx, argv)),
});

/**
 * `vault handoff`: builds the body from a session snapshot (or reads it), saves a `handoff`
 * memory through the save operation, and reports it.
 *
 * @throws VaultError `usage` when the title or the source is missing; whatever the save refuses
 */
export async function runHandoff(ctx: CliContext, argv: HandoffArgs): Promise<number> {
  for (const flag of ['title', 'from-session', 'from', 'scope', 'id'] as const) if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
  // Everything missing is named at once (a bare `vault handoff` used to name only --title).
  const hasSource = argv['from-session'] !== undefined || (argv.from ?? argv['source-harness']) !== undefined;
  if (argv.title === undefined && !hasSource)
    usageError(
      'a hand-off needs --title and a source: --from-session <shortid> (see `vault sessions list`), or --from <harness> --target <harness> with --body, --body-file or --stdin',
      'e.g. vault handoff --from-session 6e4f2a1b --title "Auth refactor: where it stands"',
    );
  if (argv.title === undefined) usageError('a hand-off needs --title "<1..200 characters>"');
  const targets = [...(argv.target ?? []), ...(argv['target-harness'] ?? [])];
  let body: string;
  let source = argv.from ?? argv['source-harness'];
  let sessionWorktree: string | undefined;
  if (argv['from-session'] !== undefined) {
    if (argv.body !== undefined || argv['body-file'] !== undefined || argv.stdin)
      usageError('--from-session builds the body itself: leave out --body, --body-file and --stdin');
    const { handoffFromSession } = await import('../../operations/handoff.js');
    const handoff = await handoffFromSession(ctx.io.runtime, String(argv['from-session']));
    body = handoff.body;
    source ??= handoff.harness;
    sessionWorktree = handoff.worktree;
  } else {
    if (source === undefined)
      usageError(
        'a hand-off needs --from <harness> (or --from-session <shortid>)',
        'e.g. vault handoff --from claude-code --target codex --title "..." --body "..."',
      );
    if (!targets.length) usageError('a hand-off needs at least one --target <harness> (or "all")');
    body = await readBodyInput(ctx, argv);
  }
  const { save } = await import('../../operations/save.js');
  const roots = await rootsFor(ctx, argv);
  const input = await saveInputFrom(ctx, argv, { body, kind: 'handoff', sourceHarness: source, targetHarnesses: targets.length ? targets : undefined });
  const result = await save(roots, input, ctx.io.runtime, saveOptionsFrom(ctx, argv));
  const m = result.memory;
  reportSaved(ctx, argv, result, roots, { sourceHarness: m.sourceHarness, targetHarnesses: m.targetHarnesses });
  if (argv.json) return EXIT.ok;
  if (sessionWorktree !== undefined && !sameWorktree(sessionWorktree, roots.worktreeRoot)) {
    ctx.io.stderr(
      `warning: that session ran in ${sessionWorktree}, not in this worktree (${roots.worktreeRoot}); the hand-off is saved in this worktree's vault\n`,
    );
  }
  printText(ctx, `  from ${m.sourceHarness} for ${m.targetHarnesses.join(', ')}`);
  return EXIT.ok;
}
