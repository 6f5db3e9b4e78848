/**
 * Hook settings and kill switches from the environment. Names and value grammar follow the
 * ECC session hooks (reference §8) so existing setups keep working:
 *
 * | variable | effect |
 * |---|---|
 * | ECC_HOOKS_ENABLED=0/false/off/no/disabled/none | every hook does nothing |
 * | ECC_DISABLED_HOOKS=a,b | named hooks do nothing (our event names, the harness's — SessionStart, Stop, SessionEnd, PreCompact, UserPromptSubmit, BeforeAgent — or ECC ids, any case) |
 * | ECC_HOOK_DEBUG=1/true/on/yes | log info lines too (the hook log in the sessions folder) |
 * | ECC_SESSION_START_CONTEXT=0/false/off/none/disabled | session-start injects nothing |
 * | ECC_SESSION_START_MAX_CHARS=N | injected characters (default 8000; 0 = none; invalid = 8000) |
 * | ECC_SESSION_RETENTION_DAYS=N | prune snapshots older than N days (default 30; 0/off/never/... = keep) |
 * | ECC_SESSION_START_MAX_AGE_DAYS=N | ignore snapshots older than N days for injection (default 7) |
 * | ECC_SESSION_START_MEMORIES=off | no memory digest at session start |
 * | ECC_SESSION_START_MEMORY_CHARS=N | characters of the memory digest, inside the total (default 3000; 0 = titles only, as before the digest) |
 * | ECC_PROMPT_RECALL=off | the user-prompt-submit hook injects nothing |
 * | ECC_SESSIONS_DIR=PATH | the sessions folder (default ~/.ecc/sessions) |
 * | ECC_TRANSCRIPT_MAX_BYTES=N | transcript bytes read per hook (default 64 MiB; head + tail beyond) |
 * | ECC_REVIEW_NOTICE=0/false/off/… | the Stop hook never tells the person about new proposed memories |
 */
import { normalizeEvent, type HookEvent } from '../sessions/hook-events.js';

const OFF = new Set(['0', 'false', 'off', 'no', 'disabled', 'none', 'never']);

const ON = new Set(['1', 'true', 'on', 'yes', 'enabled']);

/** True when a switch variable holds an "off" word. */
export function isOff(value: string | undefined): boolean {
  return value !== undefined && OFF.has(value.trim().toLowerCase());
}

/** True when a switch variable holds an "on" word (1, true, on, yes, enabled; any case). */
export function isOn(value: string | undefined): boolean {
  return value !== undefined && ON.has(value.trim().toLowerCase());
}

/** The ECC reference's hook ids for our events (so ECC_DISABLED_HOOKS lists keep working). */
const ECC_IDS: Record<HookEvent, string[]> = {
  'session-start': ['session:start'],
  stop: ['stop:session-end'],
  'session-end': ['session:end:marker', 'session:end'],
  'pre-compact': ['pre:compact'],
  'user-prompt-submit': ['prompt:recall'],
};

/** Why a hook is switched off, or undefined when it runs. */
export function disabledBy(env: Readonly<Record<string, string | undefined>>, event: HookEvent): string | undefined {
  if (isOff(env.ECC_HOOKS_ENABLED)) return 'ECC_HOOKS_ENABLED';
  if (event === 'user-prompt-submit' && isOff(env.ECC_PROMPT_RECALL)) return 'ECC_PROMPT_RECALL';
  const list = (env.ECC_DISABLED_HOOKS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  // `session-start`, `SessionStart`, `session_start` all name the same event
  const plain = (name: string) => name.replace(/[-_ ]/g, '');
  if (list.some((x) => plain(x) === plain(event) || normalizeEvent(x) === event) || ECC_IDS[event].some((id) => list.includes(id))) return 'ECC_DISABLED_HOOKS';
  return undefined;
}

function nonNegativeInt(value: string | undefined, fallback: number): number {
  if (value === undefined || !/^\s*\d{1,9}\s*$/.test(value)) return fallback;
  return Number.parseInt(value, 10);
}

/** Settings of one hook run. */
export interface HookSettings {
  inject: boolean;
  maxChars: number;
  /** undefined = pruning off */
  retentionDays: number | undefined;
  maxAgeDays: number;
  listMemories: boolean;
  /** characters of the memory digest (within maxChars) */
  memoryChars: number;
  transcriptMaxBytes: number | undefined;
}

/** Reads the settings from the environment (invalid values fall back to the defaults). */
export function readHookSettings(env: Readonly<Record<string, string | undefined>>): HookSettings {
  const retention = env.ECC_SESSION_RETENTION_DAYS;
  let retentionDays: number | undefined = 30;
  if (isOff(retention)) retentionDays = undefined;
  else retentionDays = nonNegativeInt(retention, 30) || 30;
  const maxBytes = nonNegativeInt(env.ECC_TRANSCRIPT_MAX_BYTES, 0);
  return {
    inject: !isOff(env.ECC_SESSION_START_CONTEXT),
    maxChars: nonNegativeInt(env.ECC_SESSION_START_MAX_CHARS, 8000),
    retentionDays,
    maxAgeDays: nonNegativeInt(env.ECC_SESSION_START_MAX_AGE_DAYS, 7) || 7,
    listMemories: !isOff(env.ECC_SESSION_START_MEMORIES),
    memoryChars: nonNegativeInt(env.ECC_SESSION_START_MEMORY_CHARS, 3000),
    transcriptMaxBytes: maxBytes > 0 ? maxBytes : undefined,
  };
}
