/**
 * The events of a transcript record: what the person said, what the agent said, a tool call
 * (a shell command, a file edit, a todo list or plan) and its result, the end of a Codex turn, a
 * compaction. Each harness's reader turns its records into these events in one place
 * (`claudeEvents` in claude-transcript.ts, `codexEvents` in codex-transcript.ts); the snapshot
 * summary and the proposal extractor (sessions/proposals) both consume them. Every string taken
 * from a record is bounded before any regex sees it.
 */
import { bounded, type Harness, noteCommand, noteFile, noteOpenItems, type TranscriptSummary } from './transcript-summary.js';

/** Where an event sits in the transcript. */
export interface At {
  line: number;
  uuid?: string;
  timestamp?: string;
}

/** One thing that happened in the session, in transcript order. */
export type TranscriptEvent =
  | ({ type: 'meta'; sessionId?: string; cwd?: string; branch?: string } & At)
  /**
   * What the person typed. `slash`: a slash command, as `/name args`. `withResults`: the text
   * sat beside tool results in one record (not a prompt of its own). `item`: a Codex response
   * item, which repeats the `user_message` event of newer rollouts.
   */
  | ({ type: 'user'; text: string; slash?: boolean; withResults?: boolean; item?: boolean } & At)
  /** What the agent said; `messageId` joins the lines one Claude Code API response spans. */
  | ({ type: 'assistant'; text: string; messageId?: string } & At)
  /** Any tool call, by name (for naming a failed call). */
  | ({ type: 'tool'; id: string; name: string } & At)
  | ({ type: 'command'; id: string; command: string } & At)
  /** A file edit; `command` when it came as a shell command (a Codex apply_patch heredoc). */
  | ({ type: 'edit'; id: string; files: string[]; command?: string } & At)
  /**
   * A tool call's result. `ok` is undefined when the output does not say (a Codex process still
   * running: `running` holds its exec session id); `exit` is the exit code when the output gives
   * one. `says` is what the text of an output without an exit code suggests (`Success. Updated
   * the following files`), for patch results.
   */
  | ({ type: 'result'; id: string; ok: boolean | undefined; output: string; exit?: number; refused?: boolean; running?: string; says?: boolean } & At)
  /** Codex `write_stdin` to a running exec session: its output may carry that process's exit code. */
  | ({ type: 'stdin'; id: string; session: string } & At)
  | ({ type: 'todos'; items: Array<{ text: string; status: string }> } & At)
  | ({ type: 'turn-end' } & At)
  /** The context was compacted: the summary the harness wrote (`Compaction summary: …`) or a note. */
  | ({ type: 'compaction'; text: string } & At);

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Where a record sits: its line, and its uuid and timestamp when short enough to be real. */
export function at(line: number, rec: Record<string, unknown>): At {
  const a: At = { line };
  const uuid = str(rec.uuid);
  if (uuid && uuid.length <= 128) a.uuid = uuid;
  const ts = str(rec.timestamp);
  if (ts && ts.length <= 40) a.timestamp = ts;
  return a;
}

/** Text a harness puts in the person's turn that the person did not type (Claude Code and Codex wrappers). */
export function isInjectedText(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<local-command-stdout>') ||
    t.startsWith('<local-command-stderr>') ||
    t.startsWith('Caveat: The messages below were generated') ||
    t.startsWith('[Request interrupted by user') ||
    t.startsWith('<system-reminder>') ||
    t.startsWith('<bash-stdout>') ||
    t.startsWith('<bash-stderr>') ||
    t.startsWith('<bash-input>') ||
    t.startsWith('<command-message>') ||
    t.startsWith('<command-name>') ||
    t.startsWith('<user-prompt-submit-hook>') ||
    t.startsWith('This session is being continued from a previous conversation') ||
    t.startsWith('<environment_context>') ||
    t.startsWith('<user_instructions>') ||
    t.startsWith('<INSTRUCTIONS>') ||
    t.startsWith('# AGENTS.md instructions') ||
    t.startsWith('<user_shell_command>') ||
    t.startsWith('<turn_aborted>')
  );
}

const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Files named by an apply_patch text (`*** Update File: …`, `*** Move to: …`). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of bounded(patch, 1024 * 1024).matchAll(PATCH_FILE)) {
    const f = (m[1] ?? m[2] ?? '').trim();
    if (f) out.push(f);
  }
  return out.slice(0, 20);
}

/**
 * The items of a todo list or plan (Claude Code TodoWrite `todos`, Codex update_plan `plan`):
 * at most 100, each text (from `textKey`) bounded to 1,000 characters, status `pending` when
 * missing; items without text are dropped.
 */
export function todoItems(list: unknown[], textKey: string): Array<{ text: string; status: string }> {
  return list
    .filter(isObject)
    .slice(0, 100)
    .map((t) => ({ text: bounded(str(t[textKey]) ?? '', 1000), status: str(t.status) ?? 'pending' }))
    .filter((t) => t.text.trim());
}

/** A JSON object from a string of at most `max` characters, or undefined. */
export function parseJsonObject(text: unknown, max = 4 * 1024 * 1024): Record<string, unknown> | undefined {
  if (typeof text !== 'string' || text.length > max) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A shell command argument (argv or string) as the script a person reads: `bash -lc "x"` is `x`. */
export function commandText(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) return undefined;
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && (argv[1] === '-lc' || argv[1] === '-c')) return argv[2];
  return argv.join(' ');
}

/**
 * The exit code and text of a Codex tool output: the JSON `{output, metadata: {exit_code}}` of
 * older rollouts, or the `Process exited with code N` / `Exit code: N` header then `Output:` of
 * newer ones; `running` when the process still runs (its exec session id).
 */
export function codexExit(output: string): { exit: number | undefined; running?: string; text: string } {
  const t = output.trimStart();
  if (t.startsWith('{') && t.length <= 4 * 1024 * 1024) {
    const o = parseJsonObject(t);
    if (o) {
      const meta = isObject(o.metadata) ? o.metadata : undefined;
      const code = meta?.exit_code;
      const text = typeof o.output === 'string' ? o.output : '';
      if (typeof code === 'number') return { exit: code, text };
      if (text) return { exit: undefined, text };
    }
  }
  const head = output.slice(0, 400);
  const exited = /^Process exited with code (-?\d+)$/m.exec(head) ?? /^Exit code: (-?\d+)$/m.exec(head);
  const body = /^Output:\n/m.exec(output);
  const text = body ? output.slice(body.index + body[0].length) : output;
  if (exited) return { exit: Number(exited[1]), text };
  const running = /^Process running with session ID (\d+)$/m.exec(head);
  if (running) return { exit: undefined, running: running[1], text };
  return { exit: undefined, text };
}

/** Which harness wrote a record, from its shape; undefined when the record does not tell. */
export function detectHarness(rec: Record<string, unknown>): Harness | undefined {
  if (typeof rec.sessionId === 'string' || ((rec.type === 'user' || rec.type === 'assistant') && isObject(rec.message))) return 'claude-code';
  if (isObject(rec.payload) && typeof rec.type === 'string') return 'codex';
  if (rec.type === undefined && typeof rec.id === 'string' && typeof rec.timestamp === 'string') return 'codex';
  if (rec.type === 'message' && typeof rec.role === 'string' && Array.isArray(rec.content)) return 'codex';
  if (rec.type === 'function_call' || rec.type === 'function_call_output') return 'codex';
  return undefined;
}

/**
 * Notes the work an event records in a summary: a command, the files of an edit (and the command
 * it came as), a todo list. Both harnesses' summary readers fold these the same way.
 *
 * @returns false for the other events (left to the reader)
 */
export function noteWork(s: TranscriptSummary, ev: TranscriptEvent): boolean {
  if (ev.type === 'command') noteCommand(s, ev.command);
  else if (ev.type === 'edit') {
    if (ev.command !== undefined) noteCommand(s, ev.command);
    for (const f of ev.files) noteFile(s, f);
  } else if (ev.type === 'todos') noteOpenItems(s, ev.items);
  else return false;
  return true;
}
