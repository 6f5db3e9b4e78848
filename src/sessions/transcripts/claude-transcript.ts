/**
 * Reads Claude Code transcript records (`~/.claude/projects/<cwd>/<sessionId>.jsonl`, one JSON
 * record per line) into a {@link TranscriptSummary}. Tolerant by design: records of unknown
 * types, records without `message`, typo'd keys and non-object lines are counted and skipped.
 *
 * Record shapes handled (see ../shared/fixtures/transcripts/SOURCES.md): `user` / `assistant`
 * with `message.content` as a string or an array of `text` / `tool_use` / `tool_result`
 * blocks; `isSidechain` subagent lines (1.x inline layout); `isMeta` expanded slash commands;
 * `system` `compact_boundary` markers and the `isCompactSummary` user line after them;
 * `summary` title records. One API response may span several lines sharing `message.id`.
 * {@link claudeEvents} is the one reading of a record's content, for the summary here and for
 * the proposal extractor (sessions/proposals).
 */
import {
  bounded,
  emptySummary,
  noteAssistant,
  noteCompaction,
  notePrompt,
  noteTime,
  noteToolError,
  textOf,
  type TranscriptSummary,
} from './transcript-summary.js';
import { oneLine } from './text.js';
import { at, isInjectedText, isObject, noteWork, str, todoItems, type TranscriptEvent } from './transcript-events.js';

/** Tools whose `file_path` (or `notebook_path`) input is a file the session changed. */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

/** Tool results the person refused (a refused tool call is no failure of the command). */
const REFUSED = /^The user doesn't want to proceed with this tool use|^\[Request interrupted by user|^User rejected|^The user rejected/;

/** A slash command line (`<command-name>/x</command-name><command-args>y</command-args>`) as `/x y`. */
function slashCommand(text: string): string | undefined {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (!name) return undefined;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  const slash = name.startsWith('/') ? name : `/${name}`;
  return args ? `${slash} ${args}` : slash;
}

/**
 * The events of one Claude Code record, appended to `out`. A sidechain (subagent) record gives
 * only its tool calls and their results (the person did not speak in it): pass `sidechain` for
 * the records of a `subagents/agent-*.jsonl` file. Expanded slash commands (`isMeta`) and
 * transcript-only lines give no text; the summary after a compaction is a `compaction` event.
 * `failuresOnly`: results only for failed tool calls (the snapshot summary: the output of every
 * file read is most of a transcript's bytes).
 */
export function claudeEvents(
  rec: Record<string, unknown>,
  line: number,
  out: TranscriptEvent[],
  options: { sidechain?: boolean; failuresOnly?: boolean } = {},
): void {
  const sidechain = options.sidechain === true || rec.isSidechain === true;
  const where = at(line, rec);
  if (!sidechain) {
    const sessionId = str(rec.sessionId);
    const cwd = str(rec.cwd);
    const branch = str(rec.gitBranch);
    if (sessionId || cwd || branch)
      out.push({ type: 'meta', ...(sessionId ? { sessionId } : {}), ...(cwd ? { cwd } : {}), ...(branch ? { branch } : {}), ...where });
  }
  const msg = rec.message;
  if (!isObject(msg)) return;
  const content = msg.content;
  if (rec.type === 'user') {
    let withResults = false;
    if (Array.isArray(content)) {
      for (const block of content) {
        if (!isObject(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
        withResults = true;
        const failed = block.is_error === true;
        if (!failed && options.failuresOnly) continue;
        const output = bounded(textOf(block.content) || (failed && typeof rec.toolUseResult === 'string' ? rec.toolUseResult : ''), 256 * 1024);
        const refused = failed && REFUSED.test(output.trimStart());
        out.push({ type: 'result', id: block.tool_use_id, ok: !failed, output, ...(refused ? { refused } : {}), ...where });
      }
    }
    if (sidechain || rec.isMeta === true) return;
    const text = bounded(textOf(content));
    if (!text.trim()) return;
    if (rec.isCompactSummary === true) {
      out.push({ type: 'compaction', text: `Compaction summary: ${text}`, ...where });
      return;
    }
    if (rec.isVisibleInTranscriptOnly === true) return;
    const slash = withResults ? undefined : slashCommand(text);
    if (slash) out.push({ type: 'user', text: slash, slash: true, ...where });
    else if (!isInjectedText(text) && !text.includes('<command-message>')) out.push({ type: 'user', text, ...(withResults ? { withResults } : {}), ...where });
    return;
  }
  if (rec.type !== 'assistant' || !Array.isArray(content)) return;
  const messageId = str(msg.id);
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() && !sidechain)
      out.push({ type: 'assistant', text: bounded(block.text), ...(messageId ? { messageId } : {}), ...where });
    if (block.type !== 'tool_use' || typeof block.name !== 'string' || typeof block.id !== 'string') continue;
    out.push({ type: 'tool', id: block.id, name: bounded(block.name, 200), ...where });
    const input = isObject(block.input) ? block.input : {};
    if (block.name === 'Bash' && typeof input.command === 'string')
      out.push({ type: 'command', id: block.id, command: bounded(input.command, 8192), ...where });
    else if (EDIT_TOOLS.has(block.name)) {
      const file = str(input.file_path) ?? str(input.notebook_path);
      if (file) out.push({ type: 'edit', id: block.id, files: [bounded(file, 1024)], ...where });
    } else if (block.name === 'TodoWrite' && !sidechain && Array.isArray(input.todos)) {
      out.push({ type: 'todos', items: todoItems(input.todos, 'content'), ...where });
    }
  }
}

/** A stateful reader: feed records in file order, then take the summary. */
export interface TranscriptRecordReader {
  onRecord(record: unknown): void;
  /**
   * Optional fast path: looks at the raw bytes of a line before it is parsed and returns true
   * when the record is known to carry nothing the summary needs (the reader accounts for it).
   */
  skipRaw?(line: Buffer, start: number, end: number): boolean;
  finish(): TranscriptSummary;
}

/**
 * Creates a reader for Claude Code records: the events of each record ({@link claudeEvents}) and
 * the record's own envelope (timestamp, uuid and parent for rewinds, compaction boundaries, the
 * title record) make the summary.
 *
 * @param options `sidechainOnly`: the records come from a subagent file
 *   (`<session>/subagents/agent-*.jsonl`): only files, commands and errors are taken from them
 */
export function createClaudeReader(options: { sidechainOnly?: boolean } = {}): TranscriptRecordReader {
  const s = emptySummary('claude-code');
  const toolNames = new Map<string, string>();
  let lastAssistantId: string | undefined;
  let lastAssistantText = '';
  // The file is a DAG: a rewind starts a new branch from an earlier message. Prompts are kept
  // with their uuid and, at the end, only those on the branch that leads to the last message stay.
  const parents = new Map<string, string>();
  const prompts: Array<{ uuid: string | undefined; text: string }> = [];
  let lastUuid: string | undefined;
  const events: TranscriptEvent[] = [];

  const fold = (sidechain: boolean) => {
    const texts: string[] = [];
    let messageId: string | undefined;
    for (const ev of events) {
      if (noteWork(s, ev)) continue;
      switch (ev.type) {
        case 'meta':
          if (s.sessionId === undefined && ev.sessionId) s.sessionId = oneLine(ev.sessionId, 200);
          if (s.cwd === undefined && ev.cwd) s.cwd = oneLine(ev.cwd, 4096);
          if (ev.branch) s.gitBranch = oneLine(ev.branch, 200);
          break;
        case 'tool':
          toolNames.set(ev.id, ev.name);
          break;
        case 'result':
          if (ev.ok === false) noteToolError(s, toolNames.get(ev.id) ?? 'tool', bounded(ev.output || 'error'));
          break;
        case 'compaction':
          noteCompaction(s, ev.text);
          break;
        case 'user':
          if (ev.withResults) break;
          prompts.push({ uuid: ev.uuid, text: ev.slash ? ev.text : bounded(ev.text, 4000) });
          if (prompts.length > 200) prompts.splice(1, 1); // keep the first (the goal) and the recent ones
          break;
        case 'assistant':
          texts.push(ev.text);
          messageId = ev.messageId;
          break;
        default:
          break;
      }
    }
    if (sidechain || texts.length === 0) return;
    const text = bounded(texts.join('\n'));
    // One API response may be split over several lines that share message.id.
    lastAssistantText = messageId !== undefined && messageId === lastAssistantId ? `${lastAssistantText}\n${text}` : text;
    lastAssistantId = messageId;
  };

  return {
    onRecord(record: unknown) {
      s.records++;
      if (!isObject(record)) {
        s.unknownRecords++;
        return;
      }
      const sidechain = options.sidechainOnly === true || record.isSidechain === true;
      if (!sidechain) {
        noteTime(s, record.timestamp);
        if (typeof record.uuid === 'string' && parents.size < 500_000) {
          const parent =
            typeof record.parentUuid === 'string' ? record.parentUuid : typeof record.logicalParentUuid === 'string' ? record.logicalParentUuid : undefined;
          if (parent) parents.set(record.uuid, parent);
          if (record.type === 'user' || record.type === 'assistant') lastUuid = record.uuid;
        }
      }
      events.length = 0;
      claudeEvents(record, s.records, events, { sidechain, failuresOnly: true });
      fold(sidechain);
      switch (record.type) {
        case 'user':
        case 'assistant':
          break;
        case 'system':
          if (record.subtype === 'compact_boundary' && !sidechain) {
            const meta = isObject(record.compactMetadata) ? record.compactMetadata : {};
            const trigger = typeof meta.trigger === 'string' ? meta.trigger : 'unknown';
            const pre = typeof meta.preTokens === 'number' ? `, ${meta.preTokens} tokens before` : '';
            const at = typeof record.timestamp === 'string' ? ` at ${record.timestamp}` : '';
            noteCompaction(s, `Context compacted (${trigger}${pre})${at}`);
          }
          break;
        case 'summary':
          if (typeof record.summary === 'string' && !sidechain) s.title = oneLine(record.summary, 200);
          break;
        default:
          s.unknownRecords++;
      }
    },
    finish() {
      if (lastAssistantText) noteAssistant(s, lastAssistantText);
      const onBranch = new Set<string>();
      for (let u = lastUuid; u !== undefined && !onBranch.has(u) && onBranch.size < 1_000_000; u = parents.get(u)) onBranch.add(u);
      // Keep the first prompt (the goal) and the prompts on the active branch. Files without
      // parent links (every line a root) have no branches: all prompts stay.
      const keep = onBranch.size > 1 ? prompts.filter((p, i) => i === 0 || p.uuid === undefined || onBranch.has(p.uuid)) : prompts;
      for (const p of keep) notePrompt(s, p.text);
      return s;
    },
  };
}
