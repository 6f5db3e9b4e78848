/**
 * Transcript records → the few events the extractor reasons about: what the person said, what
 * the agent said, a shell command and its result, a file edit and its result, a todo list or
 * plan, the end of a Codex turn. Claude Code records and Codex rollout records (the
 * `{timestamp, type, payload}` envelope and the legacy bare items) are both read; anything
 * else is skipped. Every string taken from a record is bounded before any regex sees it.
 */
import type { Harness } from '../transcripts/transcript-summary.js';
import { bounded, textOf } from '../transcripts/transcript-summary.js';
import { codexExit, shellEditedFiles } from './commands.js';

/** Where an event sits in the transcript. */
export interface At {
  line: number;
  uuid?: string;
  timestamp?: string;
}

/** One thing that happened in the session, in transcript order. */
export type TranscriptEvent =
  | ({ type: 'meta'; sessionId?: string; cwd?: string } & At)
  | ({ type: 'user'; text: string } & At)
  | ({ type: 'assistant'; text: string } & At)
  | ({ type: 'command'; id: string; command: string } & At)
  | ({ type: 'edit'; id: string; files: string[] } & At)
  /**
   * A tool call's result. `ok` is undefined when the output does not say (a Codex process still
   * running: `running` holds its exec session id). `says` is what the text of an output without an
   * exit code suggests (`Success. Updated the following files`), for patch results.
   */
  | ({ type: 'result'; id: string; ok: boolean | undefined; output: string; refused?: boolean; running?: string; says?: boolean } & At)
  /** Codex `write_stdin` to a running exec session: its output may carry that process's exit code. */
  | ({ type: 'stdin'; id: string; session: string } & At)
  | ({ type: 'todos'; items: Array<{ text: string; status: string }> } & At)
  | ({ type: 'turn-end' } & At);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Claude Code tools whose input names a file they change. */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
/** Codex function names of shell commands. */
const CODEX_SHELLS = new Set(['shell', 'container.exec', 'shell_command', 'exec_command', 'local_shell']);

/** Text the harness puts in the person's turn that the person did not type. */
function isInjected(text: string): boolean {
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

const REFUSED = /^The user doesn't want to proceed with this tool use|^\[Request interrupted by user|^User rejected|^The user rejected/;

function at(line: number, rec: Record<string, unknown>): At {
  const a: At = { line };
  const uuid = str(rec.uuid);
  if (uuid && uuid.length <= 128) a.uuid = uuid;
  const ts = str(rec.timestamp);
  if (ts && ts.length <= 40) a.timestamp = ts;
  return a;
}

/** Events of one Claude Code record. Sidechain (subagent) records are skipped: the person did not speak in them. */
export function claudeEvents(rec: Record<string, unknown>, line: number, out: TranscriptEvent[]): void {
  if (rec.isSidechain === true) return;
  const where = at(line, rec);
  const sessionId = str(rec.sessionId);
  const cwd = str(rec.cwd);
  if (sessionId || cwd) out.push({ type: 'meta', ...(sessionId ? { sessionId } : {}), ...(cwd ? { cwd } : {}), ...where });
  const msg = rec.message;
  if (!isObject(msg)) return;
  const content = msg.content;
  if (rec.type === 'user') {
    if (rec.isMeta === true || rec.isCompactSummary === true || rec.isVisibleInTranscriptOnly === true) return;
    if (Array.isArray(content)) {
      const texts: string[] = [];
      for (const block of content) {
        if (typeof block === 'string') texts.push(block);
        else if (isObject(block) && block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        else if (isObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
          const output = bounded(textOf(block.content), 256 * 1024);
          const refused = block.is_error === true && REFUSED.test(output.trimStart());
          out.push({ type: 'result', id: block.tool_use_id, ok: block.is_error !== true, output, ...(refused ? { refused } : {}), ...where });
        }
      }
      const text = texts.join('\n');
      if (text.trim() && !isInjected(text)) out.push({ type: 'user', text: bounded(text, 64 * 1024), ...where });
    } else if (typeof content === 'string' && content.trim() && !isInjected(content)) {
      out.push({ type: 'user', text: bounded(content, 64 * 1024), ...where });
    }
    return;
  }
  if (rec.type !== 'assistant' || !Array.isArray(content)) return;
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim())
      out.push({ type: 'assistant', text: bounded(block.text, 64 * 1024), ...where });
    if (block.type !== 'tool_use' || typeof block.name !== 'string' || typeof block.id !== 'string') continue;
    const input = isObject(block.input) ? block.input : {};
    if (block.name === 'Bash' && typeof input.command === 'string')
      out.push({ type: 'command', id: block.id, command: bounded(input.command, 8192), ...where });
    else if (EDIT_TOOLS.has(block.name)) {
      const file = str(input.file_path) ?? str(input.notebook_path);
      if (file) out.push({ type: 'edit', id: block.id, files: [bounded(file, 1024)], ...where });
    } else if (block.name === 'TodoWrite' && Array.isArray(input.todos)) {
      const items = input.todos
        .filter(isObject)
        .slice(0, 100)
        .map((t) => ({ text: bounded(str(t.content) ?? '', 1000), status: str(t.status) ?? 'pending' }))
        .filter((t) => t.text.trim());
      out.push({ type: 'todos', items, ...where });
    }
  }
}

function parseArgs(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text.length > 1024 * 1024) return isObject(text) ? text : {};
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

/** A Codex command argument (argv or string) as the script a person reads. */
function script(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) return undefined;
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && (argv[1] === '-lc' || argv[1] === '-c')) return argv[2];
  return argv.join(' ');
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return textOf(output, ['output_text', 'input_text', 'text']);
  if (isObject(output) && typeof output.content === 'string') return output.content;
  return '';
}

/** Events of one Codex response item (enveloped or legacy bare). */
function codexItem(p: Record<string, unknown>, where: At, out: TranscriptEvent[]): void {
  switch (p.type) {
    case 'message': {
      const text = bounded(textOf(p.content, ['input_text', 'output_text', 'text']), 64 * 1024);
      if (!text.trim() || isInjected(text)) return;
      if (p.role === 'user') out.push({ type: 'user', text, ...where });
      else if (p.role === 'assistant') out.push({ type: 'assistant', text, ...where });
      return;
    }
    case 'function_call':
    case 'local_shell_call': {
      const name = str(p.name) ?? (p.type === 'local_shell_call' ? 'local_shell' : 'tool');
      const id = str(p.call_id) ?? str(p.id);
      if (!id) return;
      const args = p.type === 'local_shell_call' ? (isObject(p.action) ? p.action : {}) : parseArgs(p.arguments);
      if (CODEX_SHELLS.has(name)) {
        const cmd = script(args.cmd ?? args.command);
        if (!cmd) return;
        const files = shellEditedFiles(cmd);
        if (/^\s*apply_patch\b/.test(cmd) || cmd.includes('*** Begin Patch')) out.push({ type: 'edit', id, files, ...where });
        else out.push({ type: 'command', id, command: bounded(cmd, 8192), ...where });
      } else if (name === 'apply_patch') {
        out.push({ type: 'edit', id, files: shellEditedFiles(str(args.input) ?? str(p.arguments) ?? ''), ...where });
      } else if (name === 'write_stdin') {
        const session = args.session_id;
        if (typeof session === 'number' || typeof session === 'string') out.push({ type: 'stdin', id, session: String(session).slice(0, 64), ...where });
      } else if (name === 'update_plan' && Array.isArray(args.plan)) {
        const items = args.plan
          .filter(isObject)
          .slice(0, 100)
          .map((it) => ({ text: bounded(str(it.step) ?? '', 1000), status: str(it.status) ?? 'pending' }))
          .filter((t) => t.text.trim());
        out.push({ type: 'todos', items, ...where });
      }
      return;
    }
    case 'custom_tool_call': {
      const id = str(p.call_id);
      if (id && p.name === 'apply_patch' && typeof p.input === 'string') out.push({ type: 'edit', id, files: shellEditedFiles(p.input), ...where });
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const id = str(p.call_id);
      if (!id) return;
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

/** Events of one Codex record (enveloped, or a legacy bare item). */
export function codexEvents(rec: Record<string, unknown>, line: number, out: TranscriptEvent[]): void {
  const where = at(line, rec);
  const payload = isObject(rec.payload) ? rec.payload : undefined;
  switch (rec.type) {
    case 'session_meta':
      if (payload) {
        const sessionId = str(payload.id);
        const cwd = str(payload.cwd);
        out.push({ type: 'meta', ...(sessionId ? { sessionId } : {}), ...(cwd ? { cwd } : {}), ...where });
      }
      return;
    case 'turn_context':
      if (payload && typeof payload.cwd === 'string') out.push({ type: 'meta', cwd: payload.cwd, ...where });
      return;
    case 'event_msg': {
      if (!payload) return;
      const message = str(payload.message);
      if (payload.type === 'user_message' && message?.trim() && !isInjected(message)) out.push({ type: 'user', text: bounded(message, 64 * 1024), ...where });
      else if (payload.type === 'agent_message' && message?.trim()) out.push({ type: 'assistant', text: bounded(message, 64 * 1024), ...where });
      else if (payload.type === 'task_complete' || payload.type === 'turn_aborted') out.push({ type: 'turn-end', ...where });
      return;
    }
    case 'response_item':
      if (payload) codexItem(payload, where, out);
      return;
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
      codexItem(rec, where, out);
      return;
    default:
      return;
  }
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
