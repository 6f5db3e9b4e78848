import type { Argv } from 'yargs';
import { SCOPES } from '../../document/contract.js';
import { VaultError } from '../../errors.js';
import type { StoredProposal } from '../../operations/review.js';
import { printJson, printText, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';
import { redact } from '../../sessions/transcripts/text.js';
import { reportSaved } from './save.js';

interface ReviewArgs extends GlobalArgs {
  action?: string;
  id?: string;
  edit?: boolean;
  scope?: string;
  link?: string[];
}

/** One proposal as `list` shows it: id, kind, title, and where in which session it came from. */
function headline(p: StoredProposal): string {
  const e = p.evidence;
  return `${p.id}  ${p.kind.padEnd(10)} ${redact(p.title)}\n      evidence: ${e.harness} session ${e.sessionId ?? p.shortId}, transcript line ${e.line}${e.uuid ? ` (uuid ${e.uuid})` : ''}${e.timestamp ? `, ${e.timestamp}` : ''}`;
}

/**
 * A proposal as shown: title, tags and body through the one secret detector again (the file in
 * the sessions folder is not trusted to be what the hook wrote), so a credential is never echoed.
 */
function redacted(p: StoredProposal): StoredProposal {
  return { ...p, title: redact(p.title), tags: p.tags.map(redact), body: redact(p.body) };
}

function shown(p: StoredProposal): string {
  return `${headline(p)}\n      tags: ${redact(p.tags.join(', ')) || '(none)'}\n\n${redact(p.body)}`;
}

/**
 * `vault review [list|show|accept|reject] [ID]`: the proposed memories the hooks and
 * `vault sessions import` extracted from this worktree's sessions (kept in the sessions folder,
 * never in the vault). Accept saves one through the save operation (unreviewed, like every
 * memory); reject remembers its fingerprint so it is never proposed again.
 */
export const reviewCommand = (ctx: CliContext) => ({
  command: 'review [action] [id]',
  describe: "review the memories proposed from this worktree's sessions: list, show, accept or reject (nothing enters the vault without accept)",
  builder: (y: Argv) =>
    y
      .positional('action', {
        type: 'string',
        choices: ['list', 'show', 'accept', 'reject'],
        describe: 'list, show, accept or reject (default: the one-key loop on a terminal, else list)',
      })
      .positional('id', { type: 'string', describe: 'proposal id (p + 10 hex digits, or a unique prefix) for show, accept, reject' })
      .option('edit', { type: 'boolean', describe: 'accept: edit the title and body in $VISUAL/$EDITOR first' })
      .option('scope', { type: 'string', choices: SCOPES, describe: 'accept: project (default), team or user' })
      .option('link', { type: 'string', array: true, describe: 'accept: id of a related memory (repeatable; default: the most related memory of the scope)' })
      .example('$0 review', 'on a terminal: one proposal at a time, one key each (accept, edit, reject, skip, quit); piped: the list')
      .example('$0 review accept p3f9a0c12de --scope team', 'save one as a team memory')
      .example('$0 review reject p3f9a0c12de', 'never propose it again'),
  handler: (argv: ReviewArgs) => runCommand(ctx, argv, () => runReview(ctx, argv)),
});

/** `vault review`: lists, shows, accepts or rejects proposals of the current worktree. */
async function runReview(ctx: CliContext, argv: ReviewArgs): Promise<void> {
  for (const flag of ['action', 'id', 'scope'] as const) if (Array.isArray(argv[flag])) usageError(`${flag} may be given only once`);
  const rt = ctx.io.runtime;
  const { resolveSessionsDir } = await import('../../sessions/snapshots/snapshot-store.js');
  const review = await import('../../operations/review.js');
  const dir = resolveSessionsDir(rt);
  if (argv.action === undefined && !argv.json && ctx.io.readKey) {
    await reviewLoop(ctx, argv, dir, ctx.io.readKey);
    return;
  }
  const action = argv.action ?? 'list';
  if (action === 'list') {
    const all = review.reviewList(dir, rt.cwd);
    if (argv.json) {
      printJson(ctx, { proposals: all.map(redacted) });
      return;
    }
    if (!all.length) {
      printText(ctx, 'No proposed memories for this worktree. They appear after a session ends (hooks) or `vault sessions import`.');
      return;
    }
    printText(ctx, `${all.length} proposed ${all.length === 1 ? 'memory' : 'memories'} (newest first):`);
    for (const p of all) printText(ctx, headline(p));
    printText(ctx, '\nshow one: vault review show ID   accept: vault review accept ID [--edit] [--scope team]   reject: vault review reject ID');
    return;
  }
  if (!argv.id?.trim()) usageError(`give the id of a proposal: vault review ${action} ID`, 'run `vault review list` to see them');
  const proposal = review.reviewFind(dir, rt.cwd, argv.id);
  if (action === 'show') {
    if (argv.json) printJson(ctx, { proposal: redacted(proposal) });
    else printText(ctx, shown(proposal));
    return;
  }
  if (action === 'reject') {
    review.reviewReject(dir, proposal, rt);
    if (argv.json) printJson(ctx, { id: proposal.id, rejected: true, fingerprint: proposal.fingerprint });
    else printText(ctx, `Rejected ${proposal.id}: it will not be proposed again.`);
    return;
  }
  let changes: { title?: string; body?: string } = {};
  if (argv.edit) changes = await editProposal(ctx, proposal);
  const roots = await rootsFor(ctx, argv);
  const { saved } = await review.reviewAccept(roots, dir, proposal, { ...changes, scope: argv.scope, links: argv.link }, rt);
  reportSaved(ctx, argv, saved, roots, { proposal: proposal.id });
}

/**
 * `vault review` on a terminal: each proposal of this worktree, newest first, with its evidence
 * and body, then one key: `a` accept, `e` edit then accept, `r` reject, `s` (or Enter) skip, `q`
 * (or Ctrl-C, Esc) quit. Accepting saves through the one save operation, as `vault review accept`.
 * A refused save (a secret, an unknown link) is reported and the loop goes on.
 */
async function reviewLoop(ctx: CliContext, argv: ReviewArgs, dir: string, readKey: () => Promise<string>): Promise<void> {
  const rt = ctx.io.runtime;
  const review = await import('../../operations/review.js');
  const all = review.reviewList(dir, rt.cwd);
  if (!all.length) {
    printText(ctx, 'No proposed memories for this worktree. They appear after a session ends (hooks) or `vault sessions import`.');
    return;
  }
  const counts = { accepted: 0, rejected: 0, skipped: 0 };
  for (const [i, p] of all.entries()) {
    printText(ctx, `\n[${i + 1}/${all.length}] ${shown(p)}\n`);
    let key = '';
    while (!'aerqs'.includes(key) || key === '') {
      ctx.io.stdout('[a]ccept  [e]dit, then accept  [r]eject  [s]kip  [q]uit > ');
      const raw = await readKey();
      key = raw === '\r' || raw === '\n' ? 's' : raw === '\u0003' || raw === '\u001b' ? 'q' : raw.toLowerCase().slice(0, 1);
      ctx.io.stdout(`${/^[a-z]$/.test(key) ? key : ''}\n`);
    }
    if (key === 'q') break;
    if (key === 's') {
      counts.skipped++;
      continue;
    }
    if (key === 'r') {
      review.reviewReject(dir, p, rt);
      counts.rejected++;
      printText(ctx, `Rejected ${p.id}: it will not be proposed again.`);
      continue;
    }
    try {
      const changes = key === 'e' ? await editProposal(ctx, p) : {};
      const roots = await rootsFor(ctx, argv);
      const { saved } = await review.reviewAccept(roots, dir, p, { ...changes, scope: argv.scope, links: argv.link }, rt);
      counts.accepted++;
      reportSaved(ctx, argv, saved, roots, { proposal: p.id });
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      ctx.io.stderr(`error: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}\n(${p.id} is kept; the review goes on)\n`);
    }
  }
  printText(ctx, `\nAccepted ${counts.accepted}, rejected ${counts.rejected}, skipped ${counts.skipped}.`);
}

/**
 * Opens the proposal in $VISUAL/$EDITOR as `# <title>` then the body; what comes back is the
 * memory to save.
 *
 * @throws VaultError `usage` (no editor), `io-error` (the editor failed), `invalid-input` (no title line)
 */
async function editProposal(ctx: CliContext, p: StoredProposal): Promise<{ title: string; body: string }> {
  const rt = ctx.io.runtime;
  const editor = [rt.env.VISUAL, rt.env.EDITOR].find((e) => e !== undefined && e.trim() !== '');
  if (!editor) usageError('--edit needs an editor: set $EDITOR (or $VISUAL)', 'or accept without --edit');
  const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { join, resolve } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(resolve(rt.env.TMPDIR || tmpdir()), 'vault-review-'));
  const file = join(dir, `${p.kind}.md`);
  try {
    writeFileSync(file, `# ${p.title}\n\n${p.body}\n`, { mode: 0o600, flag: 'wx' });
    const { runEditor } = await import('./new.js');
    const run = await runEditor(editor, file, rt.env);
    if (run.status !== 0)
      throw new VaultError('io-error', `the editor (${editor}) did not exit cleanly; nothing was saved`, { field: 'editor', rule: 'editor exits 0' });
    const text = readFileSync(file, 'utf8');
    const m = /^#[ \t]+(.+)\r?\n/.exec(text);
    if (!m)
      throw new VaultError('invalid-input', 'the edited proposal has no title line', {
        field: 'title',
        rule: 'first line `# <title>`',
        hint: 'keep the `# ` line at the top',
      });
    return { title: m[1]!.trim(), body: text.slice(m[0].length).trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
