/**
 * Turns a session snapshot into the body of a `handoff` memory, following the handoff template's
 * sections (State, Next steps, Open questions, Pointers). Used only by an explicit command
 * (`vault handoff --from-session`); nothing is ever promoted automatically.
 */
import type { SessionSnapshot } from '../sessions/snapshots/snapshot.js';
import { capText, redact, stripControls } from '../sessions/transcripts/text.js';

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
