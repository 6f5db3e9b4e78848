/**
 * Hand-offs: a session snapshot turned into the body of a `handoff` memory, following the handoff
 * template's sections (State, Next steps, Open questions, Pointers), then saved by the save
 * operation. Used only by an explicit command (`vault handoff --from-session`); nothing is ever
 * promoted automatically.
 */
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import type { SessionSnapshot } from '../sessions/snapshots/snapshot.js';
import { capText, redact, stripControls } from '../sessions/transcripts/text.js';
import { quoteInput } from '../document/echo-input.js';

/** What a hand-off takes from a session snapshot. */
export interface SessionHandoff {
  /** the hand-off body ({@link handoffBodyFromSnapshot}) */
  body: string;
  /** the harness the session ran in */
  harness: string;
  /** the worktree the session ran in */
  worktree: string;
}

/**
 * Finds a session snapshot in the sessions folder and builds a hand-off from it.
 *
 * @param rt the sessions folder's location (home, ECC_SESSIONS_DIR)
 * @param ref the snapshot's short id, its session id, or its file name (matched against the listing only)
 * @throws VaultError `not-found` (no such snapshot), `invalid-input` (damaged snapshot, refused ECC_SESSIONS_DIR)
 */
export async function handoffFromSession(rt: Runtime, ref: string): Promise<SessionHandoff> {
  const store = await import('../sessions/snapshots/snapshot-store.js');
  const dir = store.resolveSessionsDir(rt);
  const file = ref.trim() ? store.findSnapshotFile(dir, ref) : undefined;
  if (!file)
    throw new VaultError('not-found', `no session snapshot with short id, session id or file name ${quoteInput(ref)}`, {
      field: 'from-session',
      hint: 'run `vault sessions list` to see them',
    });
  const snapshot = store.loadSnapshot(file.path);
  if (!snapshot)
    throw new VaultError('invalid-input', `session snapshot ${file.shortId} is incomplete or damaged`, {
      field: 'from-session',
      hint: 'let the next hook rewrite it, or pick another snapshot',
    });
  return { body: handoffBodyFromSnapshot(snapshot), harness: snapshot.harness, worktree: snapshot.worktree };
}

/** Largest body produced, characters (the document format allows 64 KiB of UTF-8). */
const MAX_BODY_CHARS = 24_000;

/**
 * Builds the handoff body.
 *
 * @param s the snapshot
 * @returns Markdown, credential shapes redacted, at most 24,000 characters
 */
export function handoffBodyFromSnapshot(s: SessionSnapshot): string {
  const out: string[] = [];
  out.push(
    `Hand-off from session ${s.shortId} (${s.harness}) in ${s.project}, branch ${s.branch ?? 'unknown'}, last updated ${s.updatedAt}. Facts from the session snapshot; verify against git before acting.`,
  );
  out.push('', '## State', '');
  if (s.goal) out.push(`Goal: ${s.goal}`, '');
  if (s.lastState) out.push(...s.lastState.split('\n').map((l) => (l ? `> ${l}` : '>')), '');
  if (s.notes.length) out.push('Notes:', ...s.notes.map((n) => `- ${n}`), '');
  out.push('## Next steps', '');
  out.push(...(s.openItems.length ? s.openItems.map((i) => `- ${i}`) : ['- (none recorded)']), '');
  out.push('## Open questions', '');
  out.push(...(s.problems.length ? s.problems.map((p) => `- Unresolved? ${p}`) : ['- (none recorded)']), '');
  out.push('## Pointers', '');
  out.push(`- Worktree: ${s.worktree}`);
  for (const f of s.files.slice(-30)) out.push(`- File: ${f}`);
  for (const c of s.commands.slice(-10)) out.push(`- Ran: \`${c.replace(/`/g, "'")}\``);
  return capText(redact(stripControls(out.join('\n'))).trim(), MAX_BODY_CHARS);
}
