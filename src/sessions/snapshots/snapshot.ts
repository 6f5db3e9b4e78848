/**
 * The session snapshot: a small Markdown document that records where a session stood. A header
 * of `**Key:** value` lines (project, worktree, repo, branch, session, times), then sections:
 * goal, requests, decisions and notes, files touched, commands, open items, recent problems,
 * last state. It ends with an explicit end marker so a reader can tell a whole file from a cut
 * one. Rendering redacts credential shapes; every value is one clean line except the last
 * state, which is quoted line by line so nothing in it can open a section or fake a marker.
 */
import { oneLine, paragraph, redact } from '../transcripts/text.js';
import { SUMMARY_LIMITS, type Harness, type TranscriptSummary } from '../transcripts/transcript-summary.js';
import type { WorktreeIdentity } from './worktree-identity.js';

/** First line after the title: identifies the format and its version. */
export const SNAPSHOT_MARKER = '<!-- vault:session-snapshot v1 -->';
/** Last line: present only in a completely written snapshot. */
export const SNAPSHOT_END = '<!-- vault:session-snapshot:end -->';

/** A session snapshot as values. */
export interface SessionSnapshot {
  project: string;
  /** realpath of the worktree root */
  worktree: string;
  /** realpath of the common git directory */
  repo: string | undefined;
  branch: string | undefined;
  sessionId: string;
  shortId: string;
  harness: Harness;
  transcript: string | undefined;
  /** ISO-8601 */
  startedAt: string | undefined;
  /** ISO-8601, time of the last update */
  updatedAt: string;
  /** hook event of the last update (stop, session-end, pre-compact) */
  lastEvent: string;
  /** number of updates so far */
  updates: number;
  goal: string | undefined;
  requests: string[];
  notes: string[];
  files: string[];
  commands: string[];
  openItems: string[];
  problems: string[];
  lastState: string | undefined;
  /** how the transcript was read, when not completely */
  readNote: string | undefined;
  /**
   * which repository instance at that path (worktree-identity.ts `repoId`): a repository
   * deleted and created again at the same path has another one. Absent in older snapshots.
   */
  repoId?: string | undefined;
}

const HEADER_KEYS: Array<[label: string, key: keyof SessionSnapshot]> = [
  ['Project', 'project'],
  ['Worktree', 'worktree'],
  ['Repo', 'repo'],
  ['Repo Id', 'repoId'],
  ['Branch', 'branch'],
  ['Session', 'sessionId'],
  ['Short Id', 'shortId'],
  ['Harness', 'harness'],
  ['Transcript', 'transcript'],
  ['Started', 'startedAt'],
  ['Last Updated', 'updatedAt'],
  ['Last Event', 'lastEvent'],
  ['Updates', 'updates'],
  ['Read', 'readNote'],
];

const LIST_SECTIONS: Array<[title: string, key: 'requests' | 'notes' | 'files' | 'commands' | 'openItems' | 'problems', max: number]> = [
  ['Requests', 'requests', SUMMARY_LIMITS.prompts],
  ['Decisions and notes', 'notes', 24],
  ['Files touched', 'files', SUMMARY_LIMITS.files],
  ['Commands', 'commands', SUMMARY_LIMITS.commands],
  ['Open items', 'openItems', SUMMARY_LIMITS.openItems],
  ['Recent problems', 'problems', SUMMARY_LIMITS.toolErrors],
];

/**
 * Builds a snapshot from a transcript summary.
 *
 * @param summary what the transcript says
 * @param where the worktree of the session
 * @param ids session id and short id; `event` and `now` (ISO) of this update
 */
export function snapshotFromSummary(
  summary: TranscriptSummary,
  where: WorktreeIdentity,
  ids: { sessionId: string; shortId: string; transcript: string | undefined; event: string; now: string },
): SessionSnapshot {
  const notes: string[] = [];
  if (summary.title) notes.push(`Session title: ${summary.title}`);
  notes.push(...summary.compactions);
  const readParts: string[] = [];
  if (summary.skippedBytes > 0) readParts.push(`${summary.skippedBytes} bytes of the transcript were not read (size budget or deadline)`);
  if (summary.invalidLines > 0) readParts.push(`${summary.invalidLines} invalid lines skipped`);
  return {
    project: where.project,
    worktree: where.worktree,
    repo: where.repo,
    ...(where.repoId ? { repoId: where.repoId } : {}),
    branch: where.branch ?? summary.gitBranch,
    sessionId: ids.sessionId,
    shortId: ids.shortId,
    harness: summary.harness,
    transcript: ids.transcript,
    startedAt: summary.startedAt,
    updatedAt: ids.now,
    lastEvent: ids.event,
    updates: 1,
    goal: summary.goal,
    requests: [...summary.prompts],
    notes,
    files: [...summary.files],
    commands: [...summary.commands],
    openItems: [...(summary.openItems ?? [])],
    problems: [...summary.toolErrors],
    lastState: summary.lastAssistant,
    readNote: readParts.length ? readParts.join('; ') : undefined,
  };
}

function unionRecent(older: readonly string[], newer: readonly string[], max: number): string[] {
  const out = older.filter((v) => !newer.includes(v));
  out.push(...newer);
  return out.slice(-max);
}

/**
 * Merges a fresh snapshot of a session into the one already on disk: the start time stays,
 * lists are united (a transcript read through windows may miss what an earlier read saw),
 * the newest goal, open items and last state win when present.
 *
 * @param existing the snapshot on disk (same session)
 * @param fresh the snapshot built now
 */
export function mergeSnapshots(existing: SessionSnapshot, fresh: SessionSnapshot): SessionSnapshot {
  const started = [existing.startedAt, fresh.startedAt].filter((v): v is string => Boolean(v)).sort()[0];
  return {
    ...fresh,
    startedAt: started,
    updates: existing.updates + 1,
    goal: existing.goal ?? fresh.goal,
    requests: unionRecent(existing.requests, fresh.requests, SUMMARY_LIMITS.prompts),
    notes: unionRecent(existing.notes, fresh.notes, 24),
    files: unionRecent(existing.files, fresh.files, SUMMARY_LIMITS.files),
    commands: unionRecent(existing.commands, fresh.commands, SUMMARY_LIMITS.commands),
    openItems: fresh.openItems.length || fresh.lastState ? fresh.openItems : existing.openItems,
    problems: fresh.problems.length ? fresh.problems : existing.problems,
    lastState: fresh.lastState ?? existing.lastState,
    readNote: fresh.readNote,
  };
}

/** A pre-compact hook's note ("Context compaction (auto) started at …"). */
const COMPACTION_START = /^Context compaction \(.*\) started at /;
/** Most compaction-start notes kept in a snapshot, so they never crowd out the others. */
const MAX_COMPACTION_NOTES = 8;

/**
 * Adds one note (e.g. a compaction event) to a snapshot, most recent last. Of the
 * compaction-start notes only the {@link MAX_COMPACTION_NOTES} most recent are kept: a long
 * session compacts often, and the 24 notes are for decisions and summaries too.
 */
export function withNote(snapshot: SessionSnapshot, note: string): SessionSnapshot {
  const line = oneLine(note, 300);
  let notes = snapshot.notes;
  if (COMPACTION_START.test(line)) {
    const starts = notes.filter((n) => COMPACTION_START.test(n));
    const drop = new Set(starts.slice(0, Math.max(0, starts.length - (MAX_COMPACTION_NOTES - 1))));
    notes = notes.filter((n) => !drop.has(n));
  }
  return { ...snapshot, notes: unionRecent(notes, [line], 24) };
}

/** Keeps a list item on one line and unable to look like Markdown structure. */
function item(value: string): string {
  return oneLine(value, 1000).replace(/<!--/g, '<!‑‑');
}

/**
 * Renders a snapshot as Markdown, with credential shapes redacted.
 *
 * @returns the file content (LF line endings, ends with {@link SNAPSHOT_END} and a newline)
 */
export function renderSnapshot(s: SessionSnapshot): string {
  const lines: string[] = [`# Session snapshot: ${item(s.project)} (${item(s.shortId)})`, '', SNAPSHOT_MARKER, ''];
  for (const [label, key] of HEADER_KEYS) {
    const v = s[key];
    if (v === undefined || v === '') continue;
    lines.push(`**${label}:** ${oneLine(String(v), 4096).replace(/<!--/g, '<!‑‑')}`);
  }
  lines.push('', '## Goal', '', s.goal ? item(s.goal) : '_unknown_', '');
  for (const [title, key, max] of LIST_SECTIONS) {
    lines.push(`## ${title}`, '');
    const values = s[key].slice(-max);
    if (values.length === 0) lines.push('_none_');
    else for (const v of values) lines.push(`- ${item(v)}`);
    lines.push('');
  }
  lines.push('## Last state', '');
  if (s.lastState)
    for (const l of paragraph(s.lastState, SUMMARY_LIMITS.lastAssistantChars).replace(/<!--/g, '<!‑‑').split('\n')) lines.push(l ? `> ${l}` : '>');
  else lines.push('_unknown_');
  lines.push('', SNAPSHOT_END, '');
  return redact(lines.join('\n'));
}

/**
 * Reads the header values of a snapshot (only the `**Key:** value` lines before the first
 * section). Each value is taken from its own line only.
 */
export function parseSnapshotHeader(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) break;
    const m = /^\*\*([A-Za-z ]{1,20}):\*\* ([^\n]*)$/.exec(line);
    if (m && m[2]!.trim()) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/**
 * Parses a snapshot written by {@link renderSnapshot}.
 *
 * @returns the snapshot, or undefined when the text is not a complete snapshot (no marker, no
 *   end marker, or required header values missing)
 */
export function parseSnapshot(text: string): SessionSnapshot | undefined {
  if (!text.includes(SNAPSHOT_MARKER) || !text.trimEnd().endsWith(SNAPSHOT_END)) return undefined;
  const h = parseSnapshotHeader(text);
  if (!h.Worktree || !h.Session || !h['Short Id'] || !h['Last Updated']) return undefined;
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const m = /^## (.+)$/.exec(line);
    if (m) {
      current = [];
      sections.set(m[1]!.trim(), current);
    } else if (line === SNAPSHOT_END) current = undefined;
    else if (current) current.push(line);
  }
  const list = (title: string) => (sections.get(title) ?? []).filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
  const goalLines = (sections.get('Goal') ?? []).filter((l) => l.trim() && l !== '_unknown_');
  const last = (sections.get('Last state') ?? []).filter((l) => l.startsWith('>')).map((l) => l.replace(/^> ?/, ''));
  const harness: Harness = h.Harness === 'codex' ? 'codex' : 'claude-code';
  return {
    project: h.Project ?? '',
    worktree: h.Worktree,
    repo: h.Repo,
    ...(h['Repo Id'] ? { repoId: h['Repo Id'] } : {}),
    branch: h.Branch,
    sessionId: h.Session,
    shortId: h['Short Id'],
    harness,
    transcript: h.Transcript,
    startedAt: h.Started,
    updatedAt: h['Last Updated'],
    lastEvent: h['Last Event'] ?? 'unknown',
    updates: Number.parseInt(h.Updates ?? '1', 10) || 1,
    goal: goalLines.length ? goalLines.join(' ') : undefined,
    requests: list('Requests'),
    notes: list('Decisions and notes'),
    files: list('Files touched'),
    commands: list('Commands'),
    openItems: list('Open items'),
    problems: list('Recent problems'),
    lastState: last.length ? last.join('\n').trim() || undefined : undefined,
    readNote: h.Read,
  };
}
