/**
 * Hook events per harness: the names `vault hook <event>` accepts, what each does, how long it
 * may take, and the installed timeout (always longer than the internal deadline, so the harness
 * never kills a hook that is still inside its budget).
 *
 * Claude Code events (settings.json `hooks`): SessionStart, Stop, PreCompact, SessionEnd,
 * UserPromptSubmit (prompt recall). Codex events (`hooks.json`): SessionStart, Stop
 * (turn-scoped), PreCompact, UserPromptSubmit; Codex has no SessionEnd, so its Stop keeps the
 * snapshot current after every turn. Gemini CLI events (settings.json `hooks`): SessionStart and
 * BeforeAgent (its prompt-submit event); its transcript is a JSON file we do not read, so no
 * snapshot events are installed for it (geminicli.com/docs/hooks/reference). Cursor events
 * (`.cursor/hooks.json`, camelCase names): only sessionStart, whose `additional_context` output
 * is added to the conversation's initial context; its beforeSubmitPrompt can only let a prompt
 * through or block it (`continue`, `user_message`), so prompt recall cannot reach the model there,
 * and its transcript format is not documented, so no snapshot events either
 * (cursor.com/docs/agent/hooks).
 */
import { canonicalHarness } from '../document/harness-names.js';
import { HARNESSES as HARNESS_NAMES, type Harness } from './transcripts/transcript-summary.js';

/**
 * Harnesses with hooks: those whose transcripts we read, Gemini CLI (session start and prompt
 * recall only) and Cursor (session start only).
 */
export type HookHarness = Harness | 'gemini-cli' | 'cursor';

export const HOOK_HARNESSES: readonly HookHarness[] = [...HARNESS_NAMES, 'gemini-cli', 'cursor'];

/** True when snapshots can be written for this harness (we read its transcripts). */
export function readsTranscripts(harness: HookHarness): harness is Harness {
  return (HARNESS_NAMES as readonly string[]).includes(harness);
}

/** Our event names. */
export type HookEvent = 'session-start' | 'stop' | 'session-end' | 'pre-compact' | 'user-prompt-submit';

export const HOOK_EVENTS: readonly HookEvent[] = ['session-start', 'stop', 'session-end', 'pre-compact', 'user-prompt-submit'];

/** The harness's own event name for each of ours. */
export const HARNESS_EVENT_NAMES: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  stop: 'Stop',
  'session-end': 'SessionEnd',
  'pre-compact': 'PreCompact',
  'user-prompt-submit': 'UserPromptSubmit',
};

/** Cursor's names for our events (camelCase; prompt submission is beforeSubmitPrompt). */
const CURSOR_EVENT_NAMES: Record<HookEvent, string> = {
  'session-start': 'sessionStart',
  stop: 'stop',
  'session-end': 'sessionEnd',
  'pre-compact': 'preCompact',
  'user-prompt-submit': 'beforeSubmitPrompt',
};

/** The event name a harness uses for one of ours (Gemini CLI calls prompt submission BeforeAgent; Cursor writes camelCase). */
export function harnessEventName(harness: HookHarness, event: HookEvent): string {
  if (harness === 'cursor') return CURSOR_EVENT_NAMES[event];
  return harness === 'gemini-cli' && event === 'user-prompt-submit' ? 'BeforeAgent' : HARNESS_EVENT_NAMES[event];
}

/** Every event name of every harness (for settings files: their entries must be lists). */
export const ALL_HARNESS_EVENT_NAMES: readonly string[] = [...Object.values(HARNESS_EVENT_NAMES), 'BeforeAgent', ...Object.values(CURSOR_EVENT_NAMES)];

/** Events installed per harness. */
export const EVENTS_BY_HARNESS: Record<HookHarness, readonly HookEvent[]> = {
  'claude-code': ['session-start', 'stop', 'pre-compact', 'session-end', 'user-prompt-submit'],
  codex: ['session-start', 'stop', 'pre-compact', 'user-prompt-submit'],
  'gemini-cli': ['session-start', 'user-prompt-submit'],
  cursor: ['session-start'],
};

/** Internal deadline of a hook run, ms (stdin read included). */
export const DEADLINE_MS: Record<HookEvent, number> = {
  'session-start': 3000,
  stop: 8000,
  'session-end': 8000,
  'pre-compact': 8000,
  'user-prompt-submit': 2000,
};

/** How long stdin may take to deliver the payload, ms. */
export const STDIN_WAIT_MS: Record<HookEvent, number> = {
  'session-start': 2000,
  stop: 3000,
  'session-end': 3000,
  'pre-compact': 3000,
  'user-prompt-submit': 1000,
};

/** Timeout written into the harness configuration, seconds (> the internal deadline). */
export const INSTALLED_TIMEOUT_S: Record<HookEvent, number> = {
  'session-start': 10,
  stop: 30,
  'session-end': 30,
  'pre-compact': 30,
  'user-prompt-submit': 5,
};

/**
 * Maps an event name as typed or as a harness names it (`session-start`, `SessionStart`,
 * `session_start`, `sessionstart`) to ours.
 *
 * @returns the event, or undefined for events we do not handle (e.g. SubagentStop, PostCompact)
 */
export function normalizeEvent(name: string): HookEvent | undefined {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[-_:\s]/g, '');
  switch (key) {
    case 'sessionstart':
      return 'session-start';
    case 'stop':
      return 'stop';
    case 'sessionend':
      return 'session-end';
    case 'precompact':
      return 'pre-compact';
    case 'userpromptsubmit':
    case 'beforeagent':
    case 'beforesubmitprompt':
      return 'user-prompt-submit';
    default:
      return undefined;
  }
}

/** Maps `--harness` values (a harness or an alias of it, document/harness-names.ts) to a harness with hooks. */
export function normalizeHarness(name: string | undefined): HookHarness | undefined {
  if (name === undefined) return 'claude-code';
  const key = canonicalHarness(name);
  return (HOOK_HARNESSES as readonly string[]).includes(key) ? (key as HookHarness) : undefined;
}
