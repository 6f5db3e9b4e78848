/**
 * What a session snapshot needs from a transcript, accumulated record by record in bounded
 * memory (a transcript can be hundreds of MB; the summary stays a few KB).
 */
import { clipRaw, oneLine, paragraph, redact, stripControls } from './text.js';

/** Which agent wrote a transcript. */
export type Harness = 'claude-code' | 'codex';

/** Harnesses this product reads transcripts of. */
export const HARNESSES: readonly Harness[] = ['claude-code', 'codex'];

/** Bounds of a summary (characters are UTF-16 units). */
export const SUMMARY_LIMITS = {
  prompts: 12,
  promptChars: 300,
  goalChars: 500,
  files: 60,
  commands: 30,
  commandChars: 200,
  toolErrors: 6,
  toolErrorChars: 240,
  compactions: 12,
  compactionChars: 800,
  openItems: 20,
  openItemChars: 200,
  lastAssistantChars: 1500,
} as const;

/** The facts extracted from one transcript. Every string is already cleaned and capped. */
export interface TranscriptSummary {
  harness: Harness;
  /** session id from the records (Claude `sessionId`, Codex `session_meta.id`) */
  sessionId: string | undefined;
  /** working directory recorded in the transcript */
  cwd: string | undefined;
  gitBranch: string | undefined;
  /** ISO timestamps of the first and last timestamped records */
  startedAt: string | undefined;
  endedAt: string | undefined;
  /** title record (Claude 1.x `summary`), if any */
  title: string | undefined;
  /** first real user prompt */
  goal: string | undefined;
  /** most recent user prompts, oldest first */
  prompts: string[];
  /** files edited or written, in order of last touch, most recent last */
  files: string[];
  /** shell commands run, most recent last, de-duplicated */
  commands: string[];
  /** recent failed tool calls: `<tool>: <first line of the error>` */
  toolErrors: string[];
  /** compaction markers and summaries */
  compactions: string[];
  /** latest todo list / plan items that are not completed; undefined when no list was seen */
  openItems: string[] | undefined;
  /** the last assistant text of the main conversation */
  lastAssistant: string | undefined;
  /** counters for diagnostics */
  records: number;
  invalidLines: number;
  unknownRecords: number;
  /** bytes of the transcript that were not read (head/tail windows or deadline) */
  skippedBytes: number;
  /** true when the read stopped early (deadline) */
  truncated: boolean;
}

/** An empty summary for `harness`. */
export function emptySummary(harness: Harness): TranscriptSummary {
  return {
    harness,
    sessionId: undefined,
    cwd: undefined,
    gitBranch: undefined,
    startedAt: undefined,
    endedAt: undefined,
    title: undefined,
    goal: undefined,
    prompts: [],
    files: [],
    commands: [],
    toolErrors: [],
    compactions: [],
    openItems: undefined,
    lastAssistant: undefined,
    records: 0,
    invalidLines: 0,
    unknownRecords: 0,
    skippedBytes: 0,
    truncated: false,
  };
}

/** Appends `value` to a most-recent-last list of unique values, keeping at most `max`. */
export function pushRecent(list: string[], value: string, max: number): void {
  if (!value) return;
  const at = list.indexOf(value);
  if (at !== -1) list.splice(at, 1);
  list.push(value);
  if (list.length > max) list.splice(0, list.length - max);
}

/** Records a timestamp (ISO string) as start (first seen) and end (latest seen). */
export function noteTime(s: TranscriptSummary, ts: unknown): void {
  if (typeof ts !== 'string' || ts.length > 40 || Number.isNaN(Date.parse(ts))) return;
  if (!s.startedAt || ts < s.startedAt) s.startedAt = ts;
  if (!s.endedAt || ts > s.endedAt) s.endedAt = ts;
}

/** Records a user prompt (and the goal, when it is the first). */
export function notePrompt(s: TranscriptSummary, text: string): void {
  const line = oneLine(text, SUMMARY_LIMITS.promptChars);
  if (!line) return;
  if (!s.goal) s.goal = oneLine(text, SUMMARY_LIMITS.goalChars);
  if (s.prompts[s.prompts.length - 1] === line) return;
  s.prompts.push(line);
  if (s.prompts.length > SUMMARY_LIMITS.prompts) s.prompts.shift();
}

/** Records an edited file path. */
export function noteFile(s: TranscriptSummary, path: unknown): void {
  if (typeof path !== 'string') return;
  const p = oneLine(path, 300);
  if (p) pushRecent(s.files, p, SUMMARY_LIMITS.files);
}

/** Records a shell command. */
export function noteCommand(s: TranscriptSummary, command: unknown): void {
  if (typeof command !== 'string') return;
  const c = oneLine(command, SUMMARY_LIMITS.commandChars);
  if (c) pushRecent(s.commands, c, SUMMARY_LIMITS.commands);
}

/**
 * Records a failed tool call: its first line that says something (a bare `Exit code N` line
 * does not), and while that line is only a heading ending in `:` ("…the following issue:"),
 * the next one too (up to three, joined by ` | `); capped at
 * {@link SUMMARY_LIMITS}.toolErrorChars characters.
 */
export function noteToolError(s: TranscriptSummary, tool: string, message: string): void {
  // Redact the whole message before cutting it: a key block spans lines.
  const whole = redact(stripControls(message)).replace(/<\/?tool_use_error>/g, '');
  const lines = whole
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^exit code:? -?\d+$/i.test(l));
  let n = Math.min(1, lines.length);
  while (n < Math.min(3, lines.length) && lines[n - 1]!.endsWith(':')) n++;
  const line = oneLine(`${tool}: ${n ? lines.slice(0, n).join(' | ') : whole}`, SUMMARY_LIMITS.toolErrorChars);
  s.toolErrors.push(line);
  if (s.toolErrors.length > SUMMARY_LIMITS.toolErrors) s.toolErrors.shift();
}

/** Records a compaction marker or summary. */
export function noteCompaction(s: TranscriptSummary, text: string): void {
  const line = oneLine(text, SUMMARY_LIMITS.compactionChars);
  if (!line) return;
  s.compactions.push(line);
  if (s.compactions.length > SUMMARY_LIMITS.compactions) s.compactions.shift();
}

/** Replaces the open items with the not-completed entries of the latest todo list or plan. */
export function noteOpenItems(s: TranscriptSummary, items: Array<{ text: unknown; status: unknown }>): void {
  const open: string[] = [];
  for (const it of items) {
    if (typeof it.text !== 'string') continue;
    const status = typeof it.status === 'string' ? it.status : 'pending';
    if (status === 'completed' || status === 'done' || status === 'cancelled') continue;
    const line = oneLine(`[${status}] ${it.text}`, SUMMARY_LIMITS.openItemChars);
    if (line && open.length < SUMMARY_LIMITS.openItems) open.push(line);
  }
  s.openItems = open;
}

/** Records the last assistant text. */
export function noteAssistant(s: TranscriptSummary, text: string): void {
  const p = paragraph(text, SUMMARY_LIMITS.lastAssistantChars);
  if (p) s.lastAssistant = p;
}

/** Joins the `text` parts of a content value (string, or array of blocks / strings). */
export function textOf(content: unknown, types: readonly string[] = ['text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (block && typeof block === 'object') {
      const b = block as Record<string, unknown>;
      if (typeof b.type === 'string' && types.includes(b.type) && typeof b.text === 'string') parts.push(b.text);
    }
  }
  return parts.join('\n');
}

/**
 * Caps a string coming from a record before any heavier processing (protects regexes), dropping
 * the word the cut falls in so no tail of a cut secret survives (see {@link clipRaw}). Every
 * later cap keeps far less than `max`, and redaction runs before it.
 */
export function bounded(text: string, max = 64 * 1024): string {
  return clipRaw(text, max);
}
