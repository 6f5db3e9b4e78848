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
 */
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
  type TranscriptSummary,
} from './transcript-summary.js';
import { oneLine } from './text.js';

/** Tools whose `file_path` (or `notebook_path`) input is a file the session changed. */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
/** Tools whose `command` input is a shell command. */
const SHELL_TOOLS = new Set(['Bash', 'BashOutput']);

/** Text that Claude Code puts in user lines but that the person did not type. */
function isSyntheticUserText(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<local-command-stdout>') ||
    t.startsWith('<local-command-stderr>') ||
    t.startsWith('Caveat: The messages below were generated') ||
    t.startsWith('[Request interrupted by user') ||
    t.startsWith('<system-reminder>') ||
    t.startsWith('<bash-stdout>') ||
    t.startsWith('<bash-stderr>')
  );
}

/** A slash command line (`<command-name>/x</command-name><command-args>y</command-args>`) as `/x y`. */
function slashCommand(text: string): string | undefined {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (!name) return undefined;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  const slash = name.startsWith('/') ? name : `/${name}`;
  return args ? `${slash} ${args}` : slash;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
 * Creates a reader for Claude Code records.
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
  const addPrompt = (rec: Record<string, unknown>, text: string) => {
    prompts.push({ uuid: typeof rec.uuid === 'string' ? rec.uuid : undefined, text });
    if (prompts.length > 200) prompts.splice(1, 1); // keep the first (the goal) and the recent ones
  };

  const onUser = (rec: Record<string, unknown>, sidechain: boolean) => {
    const msg = rec.message;
    if (!isObject(msg)) return;
    const content = msg.content;
    if (Array.isArray(content)) {
      for (const block of content) {
        if (!isObject(block) || block.type !== 'tool_result') continue;
        if (block.is_error === true) {
          const tool = typeof block.tool_use_id === 'string' ? (toolNames.get(block.tool_use_id) ?? 'tool') : 'tool';
          noteToolError(s, tool, bounded(textOf(block.content) || (typeof rec.toolUseResult === 'string' ? rec.toolUseResult : 'error')));
        }
      }
    }
    if (sidechain || rec.isMeta === true) return;
    const text = bounded(textOf(content));
    if (!text.trim()) return;
    if (rec.isCompactSummary === true) {
      noteCompaction(s, `Compaction summary: ${text}`);
      return;
    }
    if (Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'tool_result')) return;
    const slash = slashCommand(text);
    if (slash) {
      addPrompt(rec, slash);
      return;
    }
    if (text.includes('<command-message>') || isSyntheticUserText(text)) return;
    addPrompt(rec, bounded(text, 4000));
  };

  const onAssistant = (rec: Record<string, unknown>, sidechain: boolean) => {
    const msg = rec.message;
    if (!isObject(msg) || !Array.isArray(msg.content)) return;
    const texts: string[] = [];
    for (const block of msg.content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      if (block.type !== 'tool_use' || typeof block.name !== 'string') continue;
      if (typeof block.id === 'string') toolNames.set(block.id, block.name);
      const input = isObject(block.input) ? block.input : {};
      if (EDIT_TOOLS.has(block.name)) noteFile(s, input.file_path ?? input.notebook_path);
      else if (SHELL_TOOLS.has(block.name)) noteCommand(s, input.command);
      else if (block.name === 'TodoWrite' && !sidechain && Array.isArray(input.todos)) {
        noteOpenItems(
          s,
          input.todos.filter(isObject).map((t) => ({ text: t.content, status: t.status })),
        );
      }
    }
    if (sidechain || texts.length === 0) return;
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    const text = bounded(texts.join('\n'));
    // One API response may be split over several lines that share message.id.
    lastAssistantText = id !== undefined && id === lastAssistantId ? `${lastAssistantText}\n${text}` : text;
    lastAssistantId = id;
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
        if (s.sessionId === undefined && typeof record.sessionId === 'string') s.sessionId = oneLine(record.sessionId, 200);
        if (s.cwd === undefined && typeof record.cwd === 'string') s.cwd = oneLine(record.cwd, 4096);
        if (typeof record.gitBranch === 'string' && record.gitBranch) s.gitBranch = oneLine(record.gitBranch, 200);
        noteTime(s, record.timestamp);
        if (typeof record.uuid === 'string' && parents.size < 500_000) {
          const parent =
            typeof record.parentUuid === 'string' ? record.parentUuid : typeof record.logicalParentUuid === 'string' ? record.logicalParentUuid : undefined;
          if (parent) parents.set(record.uuid, parent);
          if (record.type === 'user' || record.type === 'assistant') lastUuid = record.uuid;
        }
      }
      switch (record.type) {
        case 'user':
          onUser(record, sidechain);
          break;
        case 'assistant':
          onAssistant(record, sidechain);
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
