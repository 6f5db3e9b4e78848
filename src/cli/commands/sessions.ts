import type { Argv } from 'yargs';
import { VaultError } from '../../errors.js';
import { printJson, printText, progressStream, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';
import { quoteInput } from '../../document/echo-input.js';
import { startsWithCalendarDay } from '../../document/validate.js';

interface SessionsArgs extends GlobalArgs {
  action: string;
  target?: string[];
  all?: boolean;
  harness?: string;
  since?: string;
  'max-mib'?: number;
  'max-files'?: number;
}

/** `vault sessions list|show|import`: the session snapshots the hooks wrote (outside the vault), and their backfill. */
export const sessionsCommand = (ctx: CliContext) => ({
  command: 'sessions <action> [target..]',
  describe:
    'list session snapshots, show one, or import them from existing transcripts (snapshots live outside the vault, in ~/.ecc/sessions; import never writes into a vault)',
  builder: (y: Argv) =>
    y
      .positional('action', { type: 'string', choices: ['list', 'show', 'import'], describe: 'list, show or import' })
      .positional('target', {
        type: 'string',
        array: true,
        describe:
          'show: short id of the snapshot (or the session id, or the file name); import: transcript files or folders (default ~/.claude/projects and ~/.codex/sessions)',
      })
      .option('all', {
        type: 'boolean',
        describe: "list: every worktree (default: all; kept for symmetry); import: every repository's sessions (default: the current repository's)",
      })
      .option('harness', {
        type: 'string',
        choices: ['claude-code', 'codex'],
        describe: "import: only this harness's transcripts (and the harness of every PATH; aliases such as claude resolve)",
      })
      .option('since', { type: 'string', describe: 'import: only transcripts modified on or after DATE (YYYY-MM-DD, UTC, or an ISO time)' })
      .option('max-mib', { type: 'number', describe: 'import: skip (and count) transcripts larger than this many MiB (default and most 64)' })
      .option('max-files', {
        type: 'number',
        describe: 'import: import at most this many transcripts per run, newest first; the rest are skipped and counted (default and most 1000)',
      })
      .example('$0 sessions import', "backfill snapshots and proposals from this repository's Claude Code and Codex transcripts")
      .example('$0 sessions import --all --since 2026-01-01 --json', "every repository's sessions since January, summary as JSON")
      .example('$0 sessions import ~/old-transcripts --harness codex', 'given files or folders'),
  handler: (argv: SessionsArgs) =>
    runCommand(ctx, argv, async () => {
      const store = await import('../../sessions/snapshots/snapshot-store.js');
      const dir = store.resolveSessionsDir(ctx.io.runtime);
      const targets = argv.target ?? [];
      if (argv.action === 'import') {
        await runImport(ctx, argv, dir, targets);
        return;
      }
      if (argv.harness !== undefined || argv.since !== undefined || argv['max-mib'] !== undefined || argv['max-files'] !== undefined)
        throw new VaultError('usage', '--harness, --since, --max-mib and --max-files belong to `vault sessions import`');
      if (argv.action === 'list' && targets.length)
        throw new VaultError('usage', `vault sessions list takes no argument (got ${quoteInput(targets[0]!)})`, {
          hint: 'use `vault sessions show <shortid>` for one snapshot',
        });
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
      if (targets.length > 1) throw new VaultError('usage', 'give one short id: vault sessions show <shortid>');
      const ref = String(targets[0] ?? '');
      if (!ref.trim())
        throw new VaultError('usage', 'give the short id of a snapshot: vault sessions show <shortid>', { hint: 'run `vault sessions list` to see them' });
      const file = store.findSnapshotFile(dir, ref);
      if (!file)
        throw new VaultError('not-found', `no session snapshot with short id, session id or file name ${quoteInput(ref)}`, {
          hint: 'run `vault sessions list` to see them',
        });
      const text = store.readSnapshotShown(file.path) ?? '';
      if (argv.json) {
        printJson(ctx, { file: file.path, snapshot: store.loadSnapshot(file.path) ?? null, text });
        return;
      }
      printText(ctx, text.trimEnd());
    }),
});

/** Parses `--since`: a UTC day (YYYY-MM-DD) or an ISO time; ms since epoch. */
function parseSince(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms) || !startsWithCalendarDay(text))
    throw new VaultError('usage', `--since takes a date (YYYY-MM-DD, UTC) or an ISO time, not ${quoteInput(text, 40)}`, {
      hint: 'for example --since 2026-01-31',
    });
  return ms;
}

/**
 * A progress bar on stderr (cli-progress), only when stderr is a terminal:
 * `importing [...] done/total transcripts`, cleared at the end.
 */
async function importProgress(ctx: CliContext): Promise<{ update: (done: number, total: number) => void; stop: () => void } | undefined> {
  if (!ctx.io.stderrIsTTY) return undefined;
  const stream = progressStream(ctx);
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    { format: 'importing [{bar}] {value}/{total} transcripts', stream, hideCursor: false, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done, total) => {
      if (!started) {
        bar.start(total, done);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

const REASONS: Record<string, string> = {
  symlink: 'a symbolic link (never followed)',
  'too-large': 'over the size limit',
  'over-file-limit': 'over the file limit of this run',
  'other-repository': 'another repository (use --all)',
  'before-since': 'older than --since',
  'no-cwd': 'no working directory or session id recorded',
  empty: 'nothing to record',
  unreadable: 'not a readable transcript',
  'not-transcript': 'not a transcript (Claude Code and Codex transcripts are *.jsonl files)',
};

/** `1 transcript`, `2 transcripts`. */
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `vault sessions import [PATH…]`: backfills snapshots and proposals (sessions/import-sessions.ts); never writes into the vault. */
async function runImport(ctx: CliContext, argv: SessionsArgs, dir: string, paths: string[]): Promise<void> {
  const { importSessions } = await import('../../sessions/import-sessions.js');
  const maxMib = argv['max-mib'];
  const progress = await importProgress(ctx);
  let summary: import('../../sessions/import-sessions.js').ImportSummary;
  try {
    summary = importSessions(ctx.io.runtime, {
      sessionsDir: dir,
      paths,
      ...(argv.harness ? { harness: argv.harness as 'claude-code' | 'codex' } : {}),
      ...(argv.since !== undefined ? { sinceMs: parseSince(argv.since) } : {}),
      ...(argv.all ? { all: true } : {}),
      ...(maxMib !== undefined ? { maxBytes: Math.floor(maxMib * 1024 * 1024) } : {}),
      ...(argv['max-files'] !== undefined ? { maxFiles: argv['max-files'] } : {}),
      ...(progress ? { onProgress: progress.update } : {}),
    });
  } finally {
    progress?.stop();
  }
  if (argv.json) {
    printJson(ctx, { dir, ...summary });
    return;
  }
  printText(
    ctx,
    `${count(summary.found, 'transcript')} found: ${summary.imported} imported, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.skipped} skipped; ${summary.proposals ? `${count(summary.proposals, 'new proposal')} (run \`vault review\`)` : 'no new proposals'}`,
  );
  for (const [reason, n] of Object.entries(summary.skippedBy)) printText(ctx, `  skipped ${n}: ${REASONS[reason] ?? reason}`);
  if (summary.entriesCut) printText(ctx, '  the folder walk stopped at its entry limit: give narrower paths');
  printText(ctx, `Snapshots in ${dir} (nothing was written into the vault)`);
}
