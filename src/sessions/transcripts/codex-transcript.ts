/**
 * Reads Codex CLI rollout records (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`)
 * into a {@link TranscriptSummary}.
 *
 * Envelope: `{timestamp, type, payload}` with types `session_meta`, `turn_context`,
 * `response_item` (message, reasoning, function_call, function_call_output, custom_tool_call,
 * local_shell_call, ...), `event_msg` (user_message, agent_message, token_count, ...) and
 * `compacted`. The legacy layout (a first `{id, timestamp}` line, then bare items without the
 * envelope) is read too. Unknown types are counted and skipped. File edits arrive as
 * `apply_patch` (a custom tool call, or a heredoc inside a shell call).
 */
import type { TranscriptRecordReader } from './claude-transcript.js';
import {
  bounded,
  emptySummary,
  noteAssistant,
  noteCommand,
  noteCompaction,
  noteFile,
  noteOpenItems,
  notePrompt,
  noteTime,
  noteToolError,
  textOf,
} from './transcript-summary.js';
import { oneLine } from './text.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** User-role text Codex injects itself (environment, AGENTS.md, instructions). */
function isInjectedUserText(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<environment_context>') ||
    t.startsWith('<user_instructions>') ||
    t.startsWith('<INSTRUCTIONS>') ||
    t.startsWith('# AGENTS.md instructions') ||
    t.startsWith('<user_shell_command>') ||
    t.startsWith('<turn_aborted>')
  );
}

const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Files named by an apply_patch text. */
function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of bounded(patch, 1024 * 1024).matchAll(PATCH_FILE)) {
    const f = (m[1] ?? m[2] ?? '').trim();
    if (f) out.push(f);
  }
  return out;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text.length > 4 * 1024 * 1024) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A shell command argument vector as the script a person would read. */
function commandText(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) return undefined;
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && (argv[1] === '-lc' || argv[1] === '-c')) return argv[2];
  return argv.join(' ');
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

/** Creates a reader for Codex rollout records. */
export function createCodexReader(): TranscriptRecordReader {
  const s = emptySummary('codex');
  const callNames = new Map<string, string>();
  const itemPrompts: string[] = [];
  let sawEventPrompt = false;
  let sawSessionMeta = false;

  const onCommand = (script: string | undefined) => {
    if (!script) return;
    noteCommand(s, script);
    if (script.includes('*** Begin Patch')) for (const f of patchFiles(script)) noteFile(s, f);
  };

  const onResponseItem = (p: Record<string, unknown>) => {
    switch (p.type) {
      case 'message': {
        if (p.role === 'user') {
          const text = bounded(textOf(p.content, ['input_text', 'text']));
          if (text.trim() && !isInjectedUserText(text)) {
            itemPrompts.push(bounded(text, 2000));
            if (itemPrompts.length > 40) itemPrompts.splice(1, 1); // keep the first (goal) and the recent ones
          }
        } else if (p.role === 'assistant') {
          const text = textOf(p.content, ['output_text', 'text']);
          if (text.trim()) noteAssistant(s, bounded(text));
        }
        return;
      }
      case 'function_call': {
        const name = typeof p.name === 'string' ? p.name : 'tool';
        const args = parseJson(p.arguments);
        const a = isObject(args) ? args : {};
        if (typeof p.call_id === 'string') callNames.set(p.call_id, name);
        if (name === 'shell' || name === 'container.exec' || name === 'shell_command') onCommand(commandText(a.command));
        else if (name === 'exec_command') onCommand(commandText(a.cmd ?? a.command));
        else if (name === 'apply_patch') for (const f of patchFiles(typeof a.input === 'string' ? a.input : String(p.arguments ?? ''))) noteFile(s, f);
        else if (name === 'update_plan' && Array.isArray(a.plan)) {
          noteOpenItems(
            s,
            a.plan.filter(isObject).map((it) => ({ text: it.step, status: it.status })),
          );
        }
        return;
      }
      case 'local_shell_call': {
        const action = isObject(p.action) ? p.action : {};
        if (typeof p.call_id === 'string') callNames.set(p.call_id, 'shell');
        onCommand(commandText(action.command));
        return;
      }
      case 'custom_tool_call': {
        const name = typeof p.name === 'string' ? p.name : 'tool';
        if (typeof p.call_id === 'string') callNames.set(p.call_id, name);
        if (name === 'apply_patch' && typeof p.input === 'string') for (const f of patchFiles(p.input)) noteFile(s, f);
        return;
      }
      case 'function_call_output': {
        // Outputs can be large; only a failed command (non-zero exit code) is worth parsing.
        if (typeof p.output !== 'string' || !/"exit_code":\s*-?[1-9]/.test(p.output)) return;
        const out = parseJson(p.output);
        if (!isObject(out) || !isObject(out.metadata)) return;
        const code = out.metadata.exit_code;
        if (typeof code === 'number' && code !== 0) {
          const tool = typeof p.call_id === 'string' ? (callNames.get(p.call_id) ?? 'tool') : 'tool';
          const text = typeof out.output === 'string' && out.output.trim() ? out.output : `exit code ${code}`;
          noteToolError(s, `${tool} (exit ${code})`, bounded(text, 4096));
        }
        return;
      }
      case 'reasoning':
      case 'ghost_snapshot':
      case 'custom_tool_call_output':
      case 'web_search_call':
        return;
      default:
        s.unknownRecords++;
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
      const payload = isObject(record.payload) ? record.payload : undefined;
      switch (record.type) {
        case 'session_meta': {
          if (!payload) return;
          if (!sawSessionMeta) {
            sawSessionMeta = true;
            if (typeof payload.id === 'string') s.sessionId = oneLine(payload.id, 200);
            if (typeof payload.cwd === 'string') s.cwd = oneLine(payload.cwd, 4096);
            noteTime(s, payload.timestamp);
          }
          const git = isObject(payload.git) ? payload.git : {};
          if (typeof git.branch === 'string' && git.branch) s.gitBranch = oneLine(git.branch, 200);
          return;
        }
        case 'turn_context':
          if (payload && typeof payload.cwd === 'string' && !s.cwd) s.cwd = oneLine(payload.cwd, 4096);
          return;
        case 'event_msg':
          if (!payload) return;
          if (payload.type === 'user_message' && typeof payload.message === 'string') {
            const text = bounded(payload.message);
            if (text.trim() && !isInjectedUserText(text)) {
              sawEventPrompt = true;
              notePrompt(s, text);
            }
          } else if (payload.type === 'agent_message' && typeof payload.message === 'string' && payload.message.trim()) {
            noteAssistant(s, bounded(payload.message));
          }
          return;
        case 'response_item':
          if (payload) onResponseItem(payload);
          return;
        case 'compacted': {
          const msg = payload && typeof payload.message === 'string' ? payload.message : '';
          noteCompaction(s, msg ? `Compaction summary: ${bounded(msg)}` : 'Context compacted');
          return;
        }
        case undefined:
          // Legacy rollout: a first {id, timestamp} line, then bare items.
          if (s.records === 1 && typeof record.id === 'string') {
            s.sessionId = oneLine(record.id, 200);
            return;
          }
          s.unknownRecords++;
          return;
        case 'message':
        case 'function_call':
        case 'function_call_output':
        case 'local_shell_call':
        case 'custom_tool_call':
        case 'reasoning':
          onResponseItem(record);
          return;
        default:
          s.unknownRecords++;
      }
    },
    finish() {
      // Older rollouts have no event_msg user_message: fall back to the user message items.
      if (!sawEventPrompt) for (const p of itemPrompts) notePrompt(s, p);
      return s;
    },
  };
}
