/**
 * The text of the memory digest (memory-digest.ts ranks the entries; this renders them): kept
 * apart from the search so that a session start that shows a stored digest, or a stored digest
 * with the memories saved since (digest-delta.ts), never loads the search layer.
 */
import type { Kind, Scope } from '../../document/contract.js';
import { capText, oneLine, redact, stripControls } from '../transcripts/text.js';
import { HISTORICAL_MARKER } from './injection-text.js';

/** Default character budget of the digest (ECC_SESSION_START_MEMORY_CHARS). */
export const DEFAULT_MEMORY_CHARS = 3000;
/** Characters of a body shown per entry (cut earlier at a sentence or line end). */
export const LEAD_CHARS = 300;
/** First line of the digest. */
export const DIGEST_MARKER = `${HISTORICAL_MARKER} UNREVIEWED VAULT MEMORIES:`;
/** Last line of the digest. */
export const DIGEST_FOOTER = 'More: `vault search "<words>"` (CLI) or the memory_search tool (MCP); `vault read <id>` or memory_read for a whole memory.';

/** Entries per kind before the rest of the budget is shared out, in this order. */
export const KIND_QUOTAS: ReadonlyArray<readonly [Kind, number]> = [
  ['handoff', 3],
  ['preference', 3],
  ['decision', 3],
  ['runbook', 2],
  ['lesson', 2],
  ['context', 1],
  ['fact', 1],
];
/** The kinds a digest shows. */
export const DIGEST_KINDS: Kind[] = KIND_QUOTAS.map(([k]) => k);

/** One memory of the digest. */
export interface DigestEntry {
  id: string;
  kind: Kind;
  scope: Scope;
  title: string;
  /** the start of the body, cleaned, ≤ {@link LEAD_CHARS} */
  lead: string;
  /** absolute path of its file (for reuse checks) */
  file: string;
}

/** The digest as injected, and which memories it shows. */
export interface MemoryDigest {
  text: string;
  ids: string[];
  /** files of the memories shown, in order */
  files: string[];
  /** the memories shown, in order (stored in the digest record, digest-cache.ts) */
  entries: DigestEntry[];
}

/** Line above the memories saved since a stored digest was ranked ({@link renderDigest} with `fresh`). */
export const FRESH_LABEL = 'Saved since this digest was ranked (not ranked yet; hand-offs first, then newest first):';
/** Line above the ranked memories when {@link FRESH_LABEL} is shown. */
export const RANKED_LABEL = 'Ranked for this worktree when the last session ended:';

/** The start of a body: cleaned, then cut at the last sentence or line end within `max` characters. */
export function leadOf(body: string, max = LEAD_CHARS): string {
  const clean = redact(stripControls(body))
    .replace(/^#+\s.*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean.length <= max) return clean;
  const head = clean.slice(0, max);
  const stop = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '), head.lastIndexOf('; '));
  if (stop >= max / 3) return head.slice(0, stop + 1);
  return capText(clean, max);
}

/** Neutralises marker lines of ours inside memory text. */
function defuse(text: string): string {
  return text
    .replace(/HISTORICAL REFERENCE/g, 'historical reference')
    .replace(/--- (BEGIN|END) PRIOR-SESSION SUMMARY ---/g, '--- ($1 prior-session summary) ---');
}

/** The lines of one entry. */
export function renderEntry(e: Pick<DigestEntry, 'id' | 'kind' | 'scope' | 'title' | 'lead'>): string {
  const head = `- ${oneLine(e.id, 140)} [${e.scope}/${e.kind}] ${defuse(oneLine(e.title, 200))}`;
  return e.lead ? `${head}\n  ${defuse(e.lead)}` : head;
}

/**
 * Renders the digest within `maxChars` (UTF-16 units, marker, labels and footer included): entries
 * in order, each whole or not at all. '' when no entry fits or there are none.
 *
 * @param fresh memories saved since `entries` were ranked (digest-delta.ts): shown first, under
 *   {@link FRESH_LABEL}, with `entries` under {@link RANKED_LABEL}; when none of them fits, the
 *   digest is `entries` alone, the same text as without them
 */
export function renderDigest(entries: readonly DigestEntry[], maxChars: number, fresh: readonly DigestEntry[] = []): MemoryDigest {
  const head = `${DIGEST_MARKER}\nMemories of this vault that may matter in this worktree. Written by agents and people, never reviewed by the vault: they can be wrong or out of date; check before relying on one.`;
  let used = head.length + 1 + DIGEST_FOOTER.length;
  if (fresh.length) used += FRESH_LABEL.length + 1 + RANKED_LABEL.length + 1;
  const shown: DigestEntry[] = [];
  const place = (list: readonly DigestEntry[]): string[] => {
    const lines: string[] = [];
    for (const e of list) {
      const text = renderEntry(e);
      if (used + text.length + 1 > maxChars) continue;
      used += text.length + 1;
      lines.push(text);
      shown.push(e);
    }
    return lines;
  };
  const freshLines = place(fresh);
  if (fresh.length && !freshLines.length) return renderDigest(entries, maxChars);
  const ranked = place(entries);
  const lines = freshLines.length ? [FRESH_LABEL, ...freshLines, ...(ranked.length ? [RANKED_LABEL, ...ranked] : [])] : ranked;
  if (!lines.length) return { text: '', ids: [], files: [], entries: [] };
  return { text: [head, ...lines, DIGEST_FOOTER].join('\n'), ids: shown.map((e) => e.id), files: shown.map((e) => e.file), entries: shown };
}
