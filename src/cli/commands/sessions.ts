import type { Argv } from 'yargs';
import { VaultError } from '../../errors.js';
import { printJson, printText, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface SessionsArgs extends GlobalArgs {
  action: string;
  shortid?: string;
  all?: boolean;
}

/** `vault sessions list|show`: the session snapshots the hooks wrote (outside the vault). */
export const sessionsCommand = (ctx: CliContext) => ({
  command: 'sessions <action> [shortid]',
  describe: 'list session snapshots, or show one (they live outside the vault: ~/.ecc/sessions)',
  builder: (y: Argv) =>
    y
      .positional('action', { type: 'string', choices: ['list', 'show'], describe: 'list or show' })
      .positional('shortid', { type: 'string', describe: 'short id of the snapshot to show (or the session id, or the file name)' })
      .option('all', { type: 'boolean', describe: 'list: every worktree (default: all; kept for symmetry)' }),
  handler: (argv: SessionsArgs) =>
    runCommand(ctx, argv, async () => {
      const store = await import('../../sessions/snapshots/snapshot-store.js');
      const dir = store.resolveSessionsDir(ctx.io.runtime);
      if (argv.action === 'list') {
        const rows = store.listSnapshots(dir).map((f) => {
          const s = store.loadSnapshot(f.path);
          return {
            shortId: f.shortId,
            file: f.name,
            date: f.date,
            updatedAt: s?.updatedAt,
            project: s?.project,
            worktree: s?.worktree,
            branch: s?.branch,
            harness: s?.harness,
            sessionId: s?.sessionId,
            goal: s?.goal,
            complete: Boolean(s),
          };
        });
        if (argv.json) {
          printJson(ctx, { dir, sessions: rows });
          return;
        }
        if (!rows.length) {
          printText(ctx, `No session snapshots in ${dir}`);
          return;
        }
        for (const r of rows)
          printText(
            ctx,
            `${r.shortId}  ${r.updatedAt ?? r.date}  ${r.project ?? '?'} (${r.branch ?? '?'})  ${r.complete ? (r.goal ?? '').slice(0, 80) : '[incomplete snapshot]'}`,
          );
        return;
      }
      const ref = String(argv.shortid ?? '');
      if (!ref.trim())
        throw new VaultError('usage', 'give the short id of a snapshot: vault sessions show <shortid>', { hint: 'run `vault sessions list` to see them' });
      const file = store.findSnapshotFile(dir, ref);
      if (!file)
        throw new VaultError('not-found', `no session snapshot with short id, session id or file name ${JSON.stringify(ref.slice(0, 80))}`, {
          hint: 'run `vault sessions list` to see them',
        });
      const text = store.readSnapshotText(file.path) ?? '';
      if (argv.json) {
        printJson(ctx, { file: file.path, snapshot: store.loadSnapshot(file.path) ?? null, text });
        return;
      }
      printText(ctx, text.trimEnd());
    }),
});
