/**
 * Reads Codex CLI rollout records (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`)
 * into a {@link TranscriptSummary}.
 *
 * Envelope: `{timestamp, type, payload}` with types `session_meta`, `turn_context`,
 * `response_item` (message, reasoning, function_call, function_call_output, custom_tool_call,
 * local_shell_call, ...), `event_msg` (user_message, agent_message, token_count, ...) and
 * `compacted`. The legacy layout (a first `{id, timestamp}` line, then bare items without the
 * envelope) is read too. Unknown types are counted and skipped. File edits arrive as
 * `apply_patch` (a custom tool call, or a heredoc inside a shell call). {@link codexEvents} is
 * the one reading of a record's content, for the summary here and for the proposal extractor
 * (sessions/proposals).
 */
import type { TranscriptRecordReader } from './claude-transcript.js';
import { oneLine } from './text.js';
import {
  at,
  codexExit,
  commandText,
  isInjectedText,
  isObject,
  noteWork,
  parseJsonObject,
  patchFiles,
  str,
  todoItems,
  type At,
  type TranscriptEvent,
} from './transcript-events.js';
import { bounded, emptySummary, noteAssistant, noteCompaction, notePrompt, noteTime, noteToolError, textOf } from './transcript-summary.js';

/** Codex function names of shell commands. */
const CODEX_SHELLS = new Set(['shell', 'container.exec', 'shell_command', 'exec_command', 'local_shell']);

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return textOf(output, ['output_text', 'input_text', 'text']);
  if (isObject(output) && typeof output.content === 'string') return output.content;
  return '';
}

/** An exit code other than 0, in the JSON or the text form of a Codex tool output (a quick look before any parse). */
const FAILED_EXIT = /"exit_code":\s*-?[1-9]|^Process exited with code -?[1-9]|^Exit code: -?[1-9]/m;

/** Events of one Codex response item (enveloped or legacy bare). */
function codexItem(p: Record<string, unknown>, where: At, out: TranscriptEvent[], failuresOnly: boolean): void {
  switch (p.type) {
    case 'message': {
      const text = bounded(textOf(p.content, ['input_text', 'output_text', 'text']));
      if (!text.trim() || isInjectedText(text)) return;
      if (p.role === 'user') out.push({ type: 'user', text, item: true, ...where });
      else if (p.role === 'assistant') out.push({ type: 'assistant', text, ...where });
      return;
    }
    case 'function_call':
    case 'local_shell_call': {
      const name = str(p.name) ?? (p.type === 'local_shell_call' ? 'local_shell' : 'tool');
      const id = str(p.call_id) ?? str(p.id);
      if (!id) return;
      out.push({ type: 'tool', id, name: bounded(name, 200), ...where });
      const args = p.type === 'local_shell_call' ? (isObject(p.action) ? p.action : {}) : (parseJsonObject(p.arguments, 1024 * 1024) ?? {});
      if (CODEX_SHELLS.has(name)) {
        const cmd = commandText(args.cmd ?? args.command);
        if (!cmd) return;
        const command = bounded(cmd, 8192);
        if (/^\s*apply_patch\b/.test(cmd) || cmd.includes('*** Begin Patch')) out.push({ type: 'edit', id, files: patchFiles(cmd), command, ...where });
        else out.push({ type: 'command', id, command, ...where });
      } else if (name === 'apply_patch') {
        out.push({ type: 'edit', id, files: patchFiles(str(args.input) ?? str(p.arguments) ?? ''), ...where });
      } else if (name === 'write_stdin') {
        const session = args.session_id;
        if (typeof session === 'number' || typeof session === 'string') out.push({ type: 'stdin', id, session: String(session).slice(0, 64), ...where });
      } else if (name === 'update_plan' && Array.isArray(args.plan)) {
        out.push({ type: 'todos', items: todoItems(args.plan, 'step'), ...where });
      }
      return;
    }
    case 'custom_tool_call': {
      const id = str(p.call_id);
      if (!id) return;
      out.push({ type: 'tool', id, name: bounded(str(p.name) ?? 'tool', 200), ...where });
      if (p.name === 'apply_patch' && typeof p.input === 'string') out.push({ type: 'edit', id, files: patchFiles(p.input), ...where });
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const id = str(p.call_id);
      if (!id) return;
      if (failuresOnly && (p.type === 'custom_tool_call_output' || typeof p.output !== 'string' || !FAILED_EXIT.test(p.output.slice(0, 64 * 1024)))) return;
      const raw = bounded(outputText(p.output), 256 * 1024);
      const { exit, running, text } = codexExit(raw);
      const says = /^\s*(?:Success|Done)\b/.test(text)
        ? true
        : /\b(?:error|failed|invalid|verification failed)\b/i.test(text.slice(0, 400))
          ? false
          : undefined;
      out.push({
        type: 'result',
        id,
        ok: exit === undefined ? undefined : exit === 0,
        output: text,
        ...(exit === undefined ? {} : { exit }),
        ...(running ? { running } : {}),
        ...(says === undefined ? {} : { says }),
        ...where,
      });
      return;
    }
    default:
      return;
  }
}

/** The response item types Codex writes that carry nothing to read (anything else unknown is counted). */
const QUIET_ITEMS = new Set(['reasoning', 'ghost_snapshot', 'custom_tool_call_output', 'web_search_call']);
const READ_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'local_shell_call', 'custom_tool_call']);

/**
 * The events of one Codex record (the `{timestamp, type, payload}` envelope, or a legacy bare
 * item), appended to `out`. The first `{id, timestamp}` line of a legacy rollout (`line` 1 or 2)
 * names the session. `failuresOnly`: results only for tool calls that exited non-zero (the
 * snapshot summary).
 */
export function codexEvents(rec: Record<string, unknown>, line: number, out: TranscriptEvent[], options: { failuresOnly?: boolean } = {}): void {
  const failuresOnly = options.failuresOnly === true;
  const where = at(line, rec);
  const payload = isObject(rec.payload) ? rec.payload : undefined;
  switch (rec.type) {
    case 'session_meta':
      if (payload) {
        const sessionId = str(payload.id);
        const cwd = str(payload.cwd);
        const git = isObject(payload.git) ? payload.git : {};
        const branch = str(git.branch);
        out.push({ type: 'meta', ...(sessionId ? { sessionId } : {}), ...(cwd ? { cwd } : {}), ...(branch ? { branch } : {}), ...where });
      }
      return;
    case 'turn_context':
      if (payload && typeof payload.cwd === 'string') out.push({ type: 'meta', cwd: payload.cwd, ...where });
      return;
    case 'event_msg': {
      if (!payload) return;
      const message = str(payload.message);
      if (payload.type === 'user_message' && message?.trim() && !isInjectedText(message)) out.push({ type: 'user', text: bounded(message), ...where });
      else if (payload.type === 'agent_message' && message?.trim()) out.push({ type: 'assistant', text: bounded(message), ...where });
      else if (payload.type === 'task_complete' || payload.type === 'turn_aborted') out.push({ type: 'turn-end', ...where });
      return;
    }
    case 'response_item':
      if (payload) codexItem(payload, where, out, failuresOnly);
      return;
    case 'compacted': {
      const msg = payload && typeof payload.message === 'string' ? payload.message : '';
      out.push({ type: 'compaction', text: msg ? `Compaction summary: ${bounded(msg)}` : 'Context compacted', ...where });
      return;
    }
    case undefined:
      // Legacy rollout: a first {id, timestamp} line, then bare items.
      if (typeof rec.id === 'string' && line <= 2 && rec.role === undefined) out.push({ type: 'meta', sessionId: rec.id, ...where });
      return;
    case 'message':
    case 'function_call':
    case 'function_call_output':
    case 'custom_tool_call':
    case 'custom_tool_call_output':
    case 'local_shell_call':
      codexItem(rec, where, out, failuresOnly);
      return;
    default:
      return;
  }
}

/** True when the summary counts a record as unknown (a record type, or response item type, Codex does not write). */
function unknownRecord(rec: Record<string, unknown>, line: number): boolean {
  const item = (t: unknown) => typeof t === 'string' && (READ_ITEMS.has(t) || QUIET_ITEMS.has(t));
  switch (rec.type) {
    case 'session_meta':
    case 'turn_context':
    case 'event_msg':
    case 'compacted':
      return false;
    case 'response_item':
      return isObject(rec.payload) && !item(rec.payload.type);
    case undefined:
      return !(line === 1 && typeof rec.id === 'string');
    default:
      return !item(rec.type) || rec.type === 'custom_tool_call_output' || rec.type === 'ghost_snapshot' || rec.type === 'web_search_call';
  }
}

/** Payload types recognised in the first bytes of a line (the envelope comes first). */
const SKIPPABLE = /"type":\s*"(token_count|agent_reasoning|reasoning|function_call_output)"/;
const EXIT_CODE = Buffer.from('exit_code\\":');

/** True when an (escaped, nested) `"exit_code":N` with N ≠ 0 appears in the line. */
function hasFailedExitCode(line: Buffer, start: number, end: number): boolean {
  for (let at = line.indexOf(EXIT_CODE, start); at !== -1 && at < end; at = line.indexOf(EXIT_CODE, at + 1)) {
    let i = at + EXIT_CODE.length;
    while (i < end && line[i] === 32) i++;
    const c = line[i];
    if (c === 45 || (c !== undefined && c >= 49 && c <= 57)) return true; // '-' or 1-9
  }
  return false;
}

/** Creates a reader for Codex rollout records: the events of each record ({@link codexEvents}) make the summary. */
export function createCodexReader(): TranscriptRecordReader {
  const s = emptySummary('codex');
  const callNames = new Map<string, string>();
  const itemPrompts: string[] = [];
  let sawEventPrompt = false;
  let sawSessionMeta = false;
  const events: TranscriptEvent[] = [];

  const fold = (record: Record<string, unknown>) => {
    for (const ev of events) {
      if (noteWork(s, ev)) continue;
      switch (ev.type) {
        case 'meta':
          if (record.type === 'session_meta') {
            if (!sawSessionMeta) {
              sawSessionMeta = true;
              if (ev.sessionId) s.sessionId = oneLine(ev.sessionId, 200);
              if (ev.cwd) s.cwd = oneLine(ev.cwd, 4096);
              noteTime(s, isObject(record.payload) ? record.payload.timestamp : undefined);
            }
            if (ev.branch) s.gitBranch = oneLine(ev.branch, 200);
          } else if (record.type === 'turn_context') {
            if (ev.cwd && !s.cwd) s.cwd = oneLine(ev.cwd, 4096);
          } else if (ev.sessionId && s.records === 1) s.sessionId = oneLine(ev.sessionId, 200);
          break;
        case 'user':
          if (ev.item) {
            itemPrompts.push(bounded(ev.text, 2000));
            if (itemPrompts.length > 40) itemPrompts.splice(1, 1); // keep the first (goal) and the recent ones
          } else {
            sawEventPrompt = true;
            notePrompt(s, ev.text);
          }
          break;
        case 'assistant':
          noteAssistant(s, ev.text);
          break;
        case 'tool':
          callNames.set(ev.id, ev.name === 'local_shell' ? 'shell' : ev.name);
          break;
        case 'result':
          if (ev.exit !== undefined && ev.exit !== 0) {
            const tool = callNames.get(ev.id) ?? 'tool';
            noteToolError(s, `${tool} (exit ${ev.exit})`, bounded(ev.output.trim() ? ev.output : `exit code ${ev.exit}`, 4096));
          }
          break;
        case 'compaction':
          noteCompaction(s, ev.text);
          break;
        default:
          break;
      }
    }
  };

  return {
    skipRaw(line: Buffer, start: number, end: number): boolean {
      // Token counts, reasoning and successful command outputs are most of a rollout's bytes and
      // carry nothing for the snapshot: recognise them from the envelope without JSON.parse.
      const head = line.toString('latin1', start, Math.min(end, start + 200));
      const kind = SKIPPABLE.exec(head)?.[1];
      const skip = kind !== undefined && (kind !== 'function_call_output' || !hasFailedExitCode(line, start, end));
      if (!skip) return false;
      s.records++;
      const ts = /"timestamp":\s*"([^"]{10,40})"/.exec(head);
      if (ts) noteTime(s, ts[1]);
      return true;
    },
    onRecord(record: unknown) {
      s.records++;
      if (!isObject(record)) {
        s.unknownRecords++;
        return;
      }
      noteTime(s, record.timestamp);
      if (unknownRecord(record, s.records)) s.unknownRecords++;
      events.length = 0;
      codexEvents(record, s.records, events, { failuresOnly: true });
      fold(record);
    },
    finish() {
      // Older rollouts have no event_msg user_message: fall back to the user message items.
      if (!sawEventPrompt) for (const p of itemPrompts) notePrompt(s, p);
      return s;
    },
  };
}
