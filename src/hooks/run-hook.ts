/**
 * One hook run: `vault hook <event> [--harness H]`. Reads the harness's JSON payload (capped,
 * with a deadline, never from a terminal), honours the kill switches, calls the session core,
 * and writes to stdout exactly one JSON document in the harness's shape, or nothing.
 *
 * It never fails the agent: every path returns exit code 0, nothing is ever a "block" decision,
 * problems go to the hook log. It writes only in the sessions folder (snapshots and the log),
 * never in the vault.
 */
import type { Runtime } from '../io/runtime.js';
import type { Harness } from '../sessions/transcripts/transcript-summary.js';
import {
  DEADLINE_MS,
  EVENTS_BY_HARNESS,
  harnessEventName,
  type HookHarness,
  normalizeEvent,
  normalizeHarness,
  readsTranscripts,
  STDIN_WAIT_MS,
} from '../sessions/hook-events.js';
import { appendHookLog } from './hook-log.js';
import { disabledBy, isOff, isOn, readHookSettings } from './hook-settings.js';
import { quoteInput } from '../document/echo-input.js';

/** Largest payload read from stdin (bytes); a larger one is ignored and logged. */
export const PAYLOAD_MAX_BYTES = 1024 * 1024;

/** What reading stdin gave. */
export interface PayloadRead {
  bytes: Buffer;
  /** more than the cap arrived */
  tooLarge: boolean;
  /** the deadline passed before end of input */
  timedOut: boolean;
  /** stdin is a terminal: not read at all */
  tty: boolean;
}

/** The process as a hook sees it. */
export interface HookIo {
  readPayload(maxBytes: number, waitMs: number): Promise<PayloadRead>;
  stdout(text: string): void;
  runtime: Runtime;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** SessionStart sources that inject context: a fresh start, after /clear, after a compaction (not resume). */
const INJECTING_SOURCES = ['startup', 'clear', 'compact'];

/**
 * True for a SessionStart payload whose source injects context (startup, clear, compact; not
 * resume). Cursor's sessionStart has no source: it runs when a new conversation is created
 * (cursor.com/docs/agent/hooks), so it always injects.
 */
export function isStartupPayload(p: Record<string, unknown>, harness?: HookHarness): boolean {
  if (harness === 'cursor') return true;
  if (typeof p.source === 'string') return INJECTING_SOURCES.includes(p.source);
  return typeof p.hookName === 'string' && INJECTING_SOURCES.some((s) => p.hookName === `SessionStart:${s}`);
}

/**
 * Runs one hook and writes its output.
 *
 * @param eventArg the event as given on the command line
 * @param harnessArg `--harness` (default claude-code)
 * @returns always 0
 */
export async function runHook(eventArg: string, harnessArg: string | undefined, io: HookIo): Promise<number> {
  const rt = io.runtime;
  const started = rt.now().getTime();
  const harness = normalizeHarness(harnessArg);
  const event = normalizeEvent(eventArg);
  const emptyAnswer = () => {
    // Codex's Stop / PreCompact read stdout as JSON; "{}" is a valid no-op there. Claude takes nothing.
    // Cursor reads every hook's stdout as JSON, so it gets "{}" whenever there is nothing to say.
    if ((harness === 'codex' && event !== 'session-start') || harness === 'cursor') io.stdout('{}\n');
  };
  let sessionsDir: string | undefined;
  let sessionsModule: typeof import('../sessions/snapshots/snapshot-store.js') | undefined;
  const log = (level: 'info' | 'warn' | 'error', message: string) => {
    if (!sessionsDir) return;
    if (level === 'info' && !isOn(rt.env.ECC_HOOK_DEBUG)) return;
    try {
      sessionsModule?.ensureSessionsDir(sessionsDir);
    } catch {
      return;
    }
    appendHookLog(sessionsDir, { time: rt.now().toISOString(), harness: harness ?? String(harnessArg), event: event ?? eventArg, level, message });
  };
  try {
    sessionsModule = await import('../sessions/snapshots/snapshot-store.js');
    let refused: string | undefined;
    try {
      sessionsDir = sessionsModule.resolveSessionsDir(rt);
    } catch (err) {
      refused = err instanceof Error ? err.message : String(err);
    }
    if (refused !== undefined) {
      // A refused ECC_SESSIONS_DIR: write nothing there; say why in the default folder's log, when
      // there is one (an empty or relative HOME has none: then nothing is written at all).
      try {
        sessionsDir = sessionsModule.resolveSessionsDir({ ...rt, env: { ...rt.env, ECC_SESSIONS_DIR: undefined } });
        log('warn', `ECC_SESSIONS_DIR refused, nothing recorded: ${refused}`);
      } catch {
        /* no usable default folder either */
      }
      sessionsDir = undefined;
    }
    if (!harness || !event) {
      log('warn', `ignored: unknown ${!harness ? `harness ${quoteInput(String(harnessArg), 40)}` : `event ${quoteInput(eventArg, 40)}`}`);
      if (harness === 'codex' || harness === 'cursor') io.stdout('{}\n');
      return 0;
    }
    if (!readsTranscripts(harness) && !EVENTS_BY_HARNESS[harness].includes(event)) {
      // no transcript we read (Gemini CLI, Cursor): nothing to snapshot; only the events it has
      log('warn', `ignored: ${harness} has no ${event} hook`);
      emptyAnswer();
      return 0;
    }
    const off = disabledBy(rt.env, event);
    if (off) {
      emptyAnswer();
      return 0;
    }
    if (!sessionsDir) {
      emptyAnswer();
      return 0;
    }
    const deadline = started + DEADLINE_MS[event];
    const read = await io.readPayload(PAYLOAD_MAX_BYTES, Math.min(STDIN_WAIT_MS[event], Math.max(0, deadline - rt.now().getTime())));
    let payload: Record<string, unknown> = {};
    if (read.tooLarge) {
      log('warn', `payload larger than ${PAYLOAD_MAX_BYTES} bytes ignored`);
      emptyAnswer();
      return 0;
    }
    if (read.bytes.length > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(read.bytes.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      if (!isObject(parsed)) {
        log('warn', `payload is not a JSON object (${read.bytes.length} bytes${read.timedOut ? ', stdin still open at the deadline' : ''})`);
        emptyAnswer();
        return 0;
      }
      payload = parsed;
    } else if (!read.tty) log('info', read.timedOut ? 'no payload before the stdin deadline' : 'empty payload');

    const settings = readHookSettings(rt.env);
    if (event === 'session-start') {
      if (!(await sessionStart(io, harness, payload, sessionsDir, settings, deadline, log))) emptyAnswer();
      return 0;
    }
    if (event === 'user-prompt-submit') {
      await userPromptSubmit(io, harness, payload, sessionsDir, log);
      return 0;
    }
    if (!readsTranscripts(harness)) return 0; // unreachable: the events above are all it has
    if (event === 'stop' && payload.stop_hook_active === true) {
      emptyAnswer();
      return 0;
    }
    const [{ recordSession }, memories] = await Promise.all([
      import('../sessions/record-session.js'),
      digestOn(settings) ? undefined : memoryLister(rt, payload, settings, sessionsDir, deadline),
    ]);
    const outcome = recordSession(rt, {
      harness,
      event,
      transcriptPath: payload.transcript_path,
      sessionId: payload.session_id,
      cwd: payload.cwd,
      trigger: payload.trigger,
      sessionsDir,
      deadline,
      ...(settings.transcriptMaxBytes ? { transcriptMaxBytes: settings.transcriptMaxBytes } : {}),
      ...(memories ? { memories } : {}),
      retentionDays: settings.retentionDays,
      notice: !isOff(rt.env.ECC_REVIEW_NOTICE),
    });
    if (outcome.written) {
      const s = outcome.summary;
      log(
        s?.truncated || (s?.skippedBytes ?? 0) > 0 ? 'warn' : 'info',
        `snapshot ${outcome.shortId} written${s ? ` (${s.records} records, ${s.invalidLines} invalid lines, ${s.skippedBytes} bytes skipped${s.truncated ? ', stopped at the deadline' : ''})` : ''}`,
      );
      const p = outcome.proposals;
      if (p && 'error' in p) log('warn', `proposals not updated: ${p.error}`);
      else if (p) log('info', `proposals: ${p.added} new, ${p.total} live (${p.ms} ms${p.partial ? ', rest next time' : ''})`);
    } else log('warn', `no snapshot written: ${outcome.skipped ?? 'unknown reason'}`);
    if (outcome.written && outcome.path && digestOn(settings)) await precompute(rt, harness, payload, sessionsDir, settings, outcome.path, log);
    // The review notice is for the person: a top-level systemMessage, which Claude Code and Codex
    // show the user and do not give the model.
    if (outcome.notice) io.stdout(`${JSON.stringify({ systemMessage: outcome.notice })}\n`);
    else emptyAnswer();
    return 0;
  } catch (err) {
    log('error', `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`);
    emptyAnswer();
    return 0;
  }
}

async function sessionStart(
  io: HookIo,
  harness: HookHarness,
  payload: Record<string, unknown>,
  sessionsDir: string,
  settings: ReturnType<typeof readHookSettings>,
  deadline: number,
  log: (level: 'info' | 'warn' | 'error', message: string) => void,
): Promise<boolean> {
  const rt = io.runtime;
  const startup = isStartupPayload(payload, harness);
  const inject = settings.inject && settings.maxChars > 0 && startup;
  const withDigest = inject && digestOn(settings);
  const [{ prepareSessionStart }, memories] = await Promise.all([
    import('../sessions/start/session-start.js'),
    inject && !withDigest ? memoryLister(rt, payload, settings, sessionsDir, deadline) : undefined,
  ]);
  const cwd = payloadCwd(payload, rt);
  const outcome = prepareSessionStart(rt, {
    cwd,
    sessionsDir,
    inject,
    maxChars: settings.maxChars,
    maxAgeDays: settings.maxAgeDays,
    retentionDays: settings.retentionDays,
    memories,
  });
  if (outcome.pruned) log('info', `pruned ${outcome.pruned} snapshots older than ${settings.retentionDays} days`);
  let context = outcome.context;
  let digestNote = '';
  if (withDigest && outcome.worktree) {
    try {
      const [{ startDigest }, { buildInjectionText }, { resolveRoots }] = await Promise.all([
        import('../sessions/start/start-digest.js'),
        import('../sessions/start/injection-text.js'),
        import('../store/roots.js'),
      ]);
      const roots = resolveRoots({ ...rt, cwd: outcome.worktree.key.worktree });
      const { digest, source, fresh } = await startDigest(
        {
          sessionsDir,
          roots,
          harness,
          key: outcome.worktree.key,
          branch: outcome.worktree.branch,
          snapshot: outcome.snapshot,
          budget: Math.min(settings.memoryChars, settings.maxChars),
          who: rt,
        },
        rt,
      );
      if (digest.text) {
        context = buildInjectionText(outcome.snapshot, [], settings.maxChars, digest.text);
        if (context.includes(digest.text)) {
          digestNote = `, digest of ${digest.ids.length} memories${source === 'record' ? ' (digest record)' : source === 'record+new' ? ` (digest record, ${fresh} saved since on top, not searched)` : ''}`;
          if (typeof payload.session_id === 'string' && payload.session_id.trim()) {
            const { addInjected } = await import('../sessions/recall-record.js');
            addInjected(sessionsDir, payload.session_id, digest.ids, rt);
          }
        }
      }
    } catch (err) {
      log('warn', `no memory digest: ${(err as Error)?.message ?? String(err)}`); // a broken vault never breaks session start
    }
  }
  if (!context) return false;
  log(
    'info',
    `injected ${context.length} characters${outcome.snapshotPath ? ' from a snapshot' : ''}, ${outcome.memoryCount} memory titles${digestNote}${fromRecordNote(outcome.fromRecord)}`,
  );
  io.stdout(`${JSON.stringify(contextAnswer(harness, 'session-start', context))}\n`);
  return true;
}

/**
 * The answer that adds `text` to the model's context, in the harness's shape: Claude Code, Codex
 * and Gemini CLI take `hookSpecificOutput.additionalContext` with the event's name; Cursor's
 * sessionStart takes a top-level `additional_context` (cursor.com/docs/agent/hooks).
 */
function contextAnswer(harness: HookHarness, event: 'session-start' | 'user-prompt-submit', text: string): Record<string, unknown> {
  if (harness === 'cursor') return { additional_context: text };
  return { hookSpecificOutput: { hookEventName: harnessEventName(harness, event), additionalContext: text } };
}

/**
 * The folder the session works in: the payload's `cwd` (Claude Code, Codex, Gemini CLI), else
 * the first of Cursor's `workspace_roots`, else the process's working folder (Cursor runs project
 * hooks from the project root). Only an absolute path without NUL, up to 4096 characters, counts.
 */
function payloadCwd(payload: Record<string, unknown>, rt: Runtime): string {
  const usable = (v: unknown): v is string => typeof v === 'string' && v.startsWith('/') && v.length <= 4096 && !v.includes('\u0000');
  if (usable(payload.cwd)) return payload.cwd;
  const roots = payload.workspace_roots;
  if (Array.isArray(roots) && usable(roots[0])) return roots[0];
  return rt.cwd;
}

/** True when session start shows the memory digest (ECC_SESSION_START_MEMORIES, ECC_SESSION_START_MEMORY_CHARS). */
function digestOn(settings: ReturnType<typeof readHookSettings>): boolean {
  return settings.inject && settings.listMemories && settings.memoryChars > 0 && settings.maxChars > 0;
}

/** After a snapshot was written: the digest for the next session start, with git's changed paths (start-digest.ts). */
async function precompute(
  rt: Runtime,
  harness: Harness,
  payload: Record<string, unknown>,
  sessionsDir: string,
  settings: ReturnType<typeof readHookSettings>,
  snapshotPath: string,
  log: (level: 'info' | 'warn' | 'error', message: string) => void,
): Promise<void> {
  const [{ precomputeDigest }, { loadSnapshot }, { identifyWorktree }, { resolveRoots }, { runGit }] = await Promise.all([
    import('../sessions/start/start-digest.js'),
    import('../sessions/snapshots/snapshot-store.js'),
    import('../sessions/snapshots/worktree-identity.js'),
    import('../store/roots.js'),
    import('../io/git.js'),
  ]);
  const snapshot = loadSnapshot(snapshotPath);
  if (!snapshot) return;
  const where = identifyWorktree(snapshot.worktree);
  const roots = resolveRoots({ ...rt, cwd: where.worktree });
  const digest = await precomputeDigest(
    rt,
    {
      sessionsDir,
      roots,
      harness,
      key: { worktree: where.worktree, repo: where.repo, repoId: where.repoId },
      branch: where.branch,
      snapshot,
      budget: Math.min(settings.memoryChars, settings.maxChars),
      who: rt,
    },
    runGit,
    where.worktree,
  );
  log('info', digest ? `digest of ${digest.ids.length} memories stored for the next session start` : 'no digest stored');
  void payload;
}

/**
 * `user-prompt-submit`: the memories relevant to the prompt (prompt-recall.ts), as the harness's
 * additionalContext, or nothing.
 */
async function userPromptSubmit(
  io: HookIo,
  harness: HookHarness,
  payload: Record<string, unknown>,
  sessionsDir: string,
  log: (level: 'info' | 'warn' | 'error', message: string) => void,
): Promise<void> {
  const rt = io.runtime;
  const [{ promptRecall }, { resolveRoots }] = await Promise.all([import('../sessions/prompt-recall.js'), import('../store/roots.js')]);
  const roots = resolveRoots({ ...rt, cwd: payloadCwd(payload, rt) });
  const out = await promptRecall(rt, {
    sessionsDir,
    roots,
    harness,
    prompt: payload.prompt,
    sessionId: payload.session_id,
  });
  if (!out.text) {
    if (harness === 'codex') io.stdout('{}\n');
    return;
  }
  log('info', `recalled ${out.ids.length} memories (${out.text.length} characters)`);
  io.stdout(`${JSON.stringify(contextAnswer(harness, 'user-prompt-submit', out.text))}\n`);
}

/**
 * How this hook lists relevant memories (ids and titles, project and team scopes, the title
 * cache in the sessions folder), or undefined when listing is switched off.
 */
async function memoryLister(
  rt: Runtime,
  payload: Record<string, unknown>,
  settings: ReturnType<typeof readHookSettings>,
  sessionsDir: string,
  deadline: number,
): Promise<import('../sessions/start/session-start.js').MemoryLister | undefined> {
  if (!settings.inject || !settings.listMemories) return undefined;
  const [{ listMemoryPointers }, { resolveRoots }] = await Promise.all([import('../sessions/start/memory-titles.js'), import('../store/roots.js')]);
  const cwd = payloadCwd(payload, rt);
  return {
    roots: () => resolveRoots({ ...rt, cwd }),
    limit: 5,
    list: (roots, context, proof) =>
      listMemoryPointers(roots, ['project', 'team'], context, {
        limit: 5,
        maxFiles: 400,
        deadline: deadline - 300,
        now: () => rt.now().getTime(),
        cache: { dir: sessionsDir, rt },
        ...(proof ? { proof } : {}),
      }),
  };
}

/** What a session start took from the start record, for the log: ` (start record: …)` or ''. */
function fromRecordNote(from: { snapshot: boolean; memories: boolean }): string {
  const parts = [from.snapshot ? 'snapshot' : '', from.memories ? 'memory list' : ''].filter(Boolean);
  return parts.length ? ` (start record: ${parts.join(' and ')})` : '';
}
