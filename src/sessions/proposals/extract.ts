/**
 * The extractor: reads transcript lines (new since the last run), keeps a small state between
 * runs, and turns what happened into proposed memories with plain rules: cue phrases for
 * decisions and preferences, failure → change → passing run for lessons, failure → other
 * commands → passing run for runbooks, open todo items at a stop for hand-offs. No model, no
 * network, no file system: the caller reads the transcript and stores the state.
 */
import type { Harness } from '../transcripts/transcript-summary.js';
import { capText, clipRaw, oneLine, redact, stripControls } from '../transcripts/text.js';
import { commandFamily, errorLines, firstLine, isLookOnly, outputSaysFailed } from './commands.js';
import { type CueSentence, cueSentences, isRejection, reasonIn, sentences, statedLesson, statementOf } from './cues.js';
import { claudeEvents } from '../transcripts/claude-transcript.js';
import { codexEvents } from '../transcripts/codex-transcript.js';
import { detectHarness, type TranscriptEvent } from '../transcripts/transcript-events.js';
import { bodyOf, code, errorSignature, fingerprintOf, normalizeKey, quote, tagsOf, titleOf } from './render.js';
import {
  type ExtractorState,
  type OpenFailure,
  type OpenItem,
  type PendingCall,
  type Proposal,
  type ProposalEvidence,
  type ProposalKind,
  WHY_PLACEHOLDER,
} from './types.js';

/** When the caller runs the extractor: hand-offs are proposed at `stop`, `session-end` and `import`. */
export type ExtractEvent = 'stop' | 'session-end' | 'pre-compact' | 'import';

/** Options of an extractor run. */
export interface ExtractOptions {
  /** which harness wrote the transcript; detected from the records when not given */
  harness?: Harness;
  /**
   * Why the extractor runs. At `stop`, `session-end` and `import` the session's open todo items
   * (Claude TodoWrite, Codex update_plan) become a hand-off proposal; for Codex, which has no
   * session end, the last stop stands in for it. Default: none (no hand-off).
   */
  event?: ExtractEvent;
  /** absolute time (ms, same clock as `now`) after which the run stops early; the state says where */
  deadline?: number;
  /** clock for the deadline (ms); injected, the extractor never reads the time itself */
  now?: () => number;
}

/** What one run returns. */
export interface ExtractResult {
  /** new proposals, in transcript order (never one whose fingerprint this session proposed before) */
  proposals: Proposal[];
  /**
   * Fingerprints of earlier proposals to drop: an agent's decision the person turned down in the
   * next message, a hand-off whose open items changed or were all done.
   */
  withdrawn: string[];
  /** the state to pass to the next run (a new object; the input state is not changed) */
  state: ExtractorState;
  /** what this run read */
  stats: { lines: number; records: number; invalidLines: number; oversizedLines: number; stoppedEarly: boolean };
}

/** Bounds of the extractor (characters are UTF-16 units). */
export const EXTRACTOR_LIMITS = {
  /** a line longer than this is skipped, not parsed (4 MiB) */
  lineChars: 4 * 1024 * 1024,
  calls: 64,
  failures: 12,
  failureAgeCommands: 60,
  todos: 50,
  seen: 2000,
  recent: 8,
  saidChars: 2000,
  commandChars: 2000,
} as const;

/** Stands for a line too long to read (the byte entry point does not even decode it). */
export const OVERSIZED_LINE: unique symbol = Symbol('oversized line');

/** A fresh state (version 1). */
export function createExtractorState(harness?: Harness): ExtractorState {
  return {
    version: 1,
    harness,
    line: 0,
    byteOffset: 0,
    sessionId: undefined,
    cwd: undefined,
    goal: undefined,
    lastUser: undefined,
    lastAssistant: undefined,
    lastAction: undefined,
    calls: {},
    execSessions: {},
    failures: [],
    todos: undefined,
    todosAt: undefined,
    files: [],
    commands: [],
    pendingDecisions: [],
    handoff: undefined,
    seen: [],
    recent: [],
    records: 0,
    invalidLines: 0,
    oversizedLines: 0,
  };
}

/** Controls and invisible characters stripped, credential shapes redacted, capped: every string that enters the state passes here. */
function clean(text: string, max: number): string {
  return capText(redact(stripControls(clipRaw(text, max * 2))), max);
}

function pushBounded<T>(list: T[], value: T, max: number): void {
  list.push(value);
  if (list.length > max) list.splice(0, list.length - max);
}

function pushUnique(list: string[], value: string, max: number): void {
  const at = list.indexOf(value);
  if (at !== -1) list.splice(at, 1);
  pushBounded(list, value, max);
}

const DONE = new Set(['completed', 'complete', 'done', 'cancelled', 'canceled', 'skipped']);
const SKIP_RAW = /"type":\s*"(?:token_count|agent_reasoning|reasoning|file-history-snapshot|progress|queue-operation|ghost_snapshot)"/;
/** The call id of a tool result (Claude `tool_use_id`, Codex `call_id`) near the start of a line. */
const RESULT_ID = /"(?:tool_use_id|call_id)":\s*"([^"\\]{1,128})"/;
const RESULT_LINE = /"type":\s*"(?:tool_result|function_call_output|custom_tool_call_output)"/;

/** One run over a sequence of lines or parsed records. */
class Run {
  readonly proposals: Proposal[] = [];
  readonly withdrawn: string[] = [];
  readonly events: TranscriptEvent[] = [];
  lines = 0;
  records = 0;
  invalid = 0;
  oversized = 0;
  stoppedEarly = false;

  constructor(
    readonly s: ExtractorState,
    readonly options: ExtractOptions,
  ) {}

  /** Reads one transcript line (text) or record (parsed); returns false when the deadline passed. */
  take(item: unknown): boolean {
    if (this.lines % 16 === 0 && this.options.deadline !== undefined && (this.options.now?.() ?? 0) > this.options.deadline) {
      this.stoppedEarly = true;
      return false;
    }
    this.lines++;
    const line = ++this.s.line;
    let rec: unknown = item;
    if (item === OVERSIZED_LINE) {
      this.oversized++;
      return true;
    }
    if (typeof item === 'string') {
      if (item.length > EXTRACTOR_LIMITS.lineChars) {
        this.oversized++;
        return true;
      }
      let start = 0;
      while (start < item.length && (item.charCodeAt(start) === 32 || item.charCodeAt(start) === 9 || item.charCodeAt(start) === 0xfeff)) start++;
      if (start === item.length || (item.length - start === 1 && item.charCodeAt(start) === 13)) return true; // a blank line
      const head = item.slice(start, start + 600);
      if (SKIP_RAW.test(head) || this.unwantedResult(head)) {
        this.records++;
        return true;
      }
      try {
        rec = JSON.parse(start ? item.slice(start) : item);
      } catch {
        this.invalid++;
        return true;
      }
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) {
      this.invalid++;
      return true;
    }
    this.records++;
    const r = rec as Record<string, unknown>;
    this.s.harness ??= this.options.harness ?? detectHarness(r);
    if (this.s.harness === undefined) return true;
    this.events.length = 0;
    if (this.s.harness === 'codex') codexEvents(r, line, this.events);
    else if (r.isSidechain !== true) claudeEvents(r, line, this.events); // a subagent's records: the person did not speak in them
    for (const ev of this.events) this.on(ev);
    return true;
  }

  /**
   * True for the line of a tool result nobody waits for (a file read, a search, a plan update):
   * most of a transcript's bytes, skipped without parsing. The id must appear in the line's first
   * bytes, where both harnesses write it, with the result type.
   */
  unwantedResult(head: string): boolean {
    if (!RESULT_LINE.test(head)) return false;
    const id = RESULT_ID.exec(head)?.[1];
    return id !== undefined && this.s.calls[id] === undefined && !/"type":\s*"text"/.test(head);
  }

  on(ev: TranscriptEvent): void {
    const s = this.s;
    switch (ev.type) {
      case 'meta':
        if (!s.sessionId && ev.sessionId) s.sessionId = oneLine(ev.sessionId, 200);
        if (!s.cwd && ev.cwd) s.cwd = oneLine(ev.cwd, 4096);
        return;
      case 'user':
        if (!ev.slash) this.onUser(ev); // a slash command is the harness's, not a statement
        return;
      case 'assistant':
        this.onAssistant(ev);
        return;
      case 'command':
        for (const f of s.failures) f.age++;
        s.failures = s.failures.filter((f) => f.age <= EXTRACTOR_LIMITS.failureAgeCommands);
        this.addCall(ev.id, { kind: 'command', command: clean(ev.command, EXTRACTOR_LIMITS.commandChars), ...where(ev) });
        return;
      case 'edit':
        this.addCall(ev.id, { kind: 'edit', files: ev.files.map((f) => clean(f, 300)).filter(Boolean), ...where(ev) });
        return;
      case 'stdin':
        this.addCall(ev.id, { kind: 'stdin', session: ev.session, ...where(ev) });
        return;
      case 'result':
        this.onResult(ev);
        return;
      case 'todos':
        s.todos = ev.items.slice(0, EXTRACTOR_LIMITS.todos).map((t) => ({ text: clean(t.text, 300), status: clean(t.status, 40) }));
        s.todosAt = where(ev);
        return;
      case 'turn-end':
      case 'tool':
      case 'compaction':
        return;
    }
  }

  addCall(id: string, call: PendingCall): void {
    const calls = this.s.calls;
    const key = id.slice(0, 128);
    delete calls[key];
    calls[key] = call;
    const keys = Object.keys(calls);
    for (let i = 0; i < keys.length - EXTRACTOR_LIMITS.calls; i++) delete calls[keys[i]!];
  }

  /** Codex writes a message twice (event_msg and response_item): read it once. */
  seenRecently(role: string, text: string): boolean {
    const key = `${role}:${text.length}:${text.slice(0, 120)}`;
    if (this.s.recent.includes(key)) return true;
    pushBounded(this.s.recent, key, EXTRACTOR_LIMITS.recent);
    return false;
  }

  onUser(ev: Extract<TranscriptEvent, { type: 'user' }>): void {
    const s = this.s;
    const text = clean(ev.text, 16 * 1024);
    if (!text.trim() || this.seenRecently('user', text)) return;
    s.goal ??= oneLine(text, 300) || undefined;
    if (s.pendingDecisions.length) {
      if (isRejection(text)) for (const fp of s.pendingDecisions) this.withdraw(fp);
      s.pendingDecisions = [];
    }
    const { cues, all } = cueSentences(text, 'user');
    const prefs = cues.filter((c) => c.kind === 'preference');
    const decisions = cues.filter((c) => c.kind === 'decision');
    if (prefs.length) this.preference(prefs, all, ev);
    if (decisions.length) this.decision('user', decisions, all, ev);
    this.statedLessons('user', all, ev);
    s.lastUser = { text: capText(text, EXTRACTOR_LIMITS.saidChars), line: ev.line };
    s.lastAction = undefined;
  }

  onAssistant(ev: Extract<TranscriptEvent, { type: 'assistant' }>): void {
    const s = this.s;
    const text = clean(ev.text, 16 * 1024);
    if (!text.trim() || this.seenRecently('assistant', text)) return;
    const { cues, all } = cueSentences(text, 'assistant');
    const decisions = cues.filter((c) => c.kind === 'decision');
    if (decisions.length) {
      const fp = this.decision('assistant', decisions, all, ev);
      if (fp) pushBounded(s.pendingDecisions, fp, 8);
    }
    this.statedLessons('assistant', all, ev);
    const latest = s.failures[s.failures.length - 1];
    if (latest && !latest.explanation && latest.edits.length === 0 && latest.steps.length === 0) latest.explanation = capText(text, 600);
    s.lastAssistant = { text: capText(text, EXTRACTOR_LIMITS.saidChars), line: ev.line };
  }

  onResult(ev: Extract<TranscriptEvent, { type: 'result' }>): void {
    const s = this.s;
    const key = ev.id.slice(0, 128);
    let call = s.calls[key];
    if (!call) return;
    if (call.kind === 'stdin') {
      delete s.calls[key];
      if (ev.ok === undefined || !call.session) return;
      const original = s.execSessions[call.session];
      delete s.execSessions[call.session];
      call = original ? s.calls[original] : undefined;
      if (!call || !original) return;
      delete s.calls[original];
    } else if (ev.running !== undefined) {
      s.execSessions[ev.running.slice(0, 64)] = key;
      const sessions = Object.keys(s.execSessions);
      for (let i = 0; i < sessions.length - 16; i++) delete s.execSessions[sessions[i]!];
      return;
    } else delete s.calls[key];

    if (call.kind === 'edit') {
      if ((ev.ok ?? ev.says) === true) this.onEdited(call.files ?? [], ev);
      return;
    }
    if (call.kind !== 'command' || !call.command) return;
    const command = call.command;
    if (ev.refused) {
      s.lastAction = `tried to run ${code(firstLine(command))}, and the person stopped it`;
      return;
    }
    let ok = ev.ok;
    if (ok === true && outputSaysFailed(ev.output.includes('\u001b') ? stripControls(ev.output) : ev.output)) ok = false;
    s.lastAction = `ran ${code(firstLine(command))}${ok === false ? ' (it failed)' : ''}`;
    if (ok === undefined) return;
    const family = commandFamily(command);
    if (!family || isLookOnly(command)) return;
    if (!ok) {
      this.onFailed(family, command, ev);
      return;
    }
    pushUnique(s.commands, oneLine(firstLine(command), 200), 10);
    const fixed = s.failures.find((f) => f.family === family);
    for (const f of s.failures) if (f !== fixed) pushUnique(f.steps, oneLine(firstLine(command), 200), 12);
    if (fixed) {
      s.failures = s.failures.filter((f) => f !== fixed);
      this.resolved(fixed, command, ev);
    }
  }

  onFailed(family: string, command: string, ev: Extract<TranscriptEvent, { type: 'result' }>): void {
    const s = this.s;
    const known = s.failures.find((f) => f.family === family);
    if (known) {
      known.age = 0;
      pushBounded(known.lines, ev.line, 12);
      return;
    }
    const { headline, excerpt } = errorLines(clean(ev.output, 64 * 1024));
    const failure: OpenFailure = {
      family,
      command: oneLine(firstLine(command), 300),
      headline: oneLine(headline, 240) || `exit status not zero`,
      excerpt: excerpt.map((l) => oneLine(l, 240)).filter(Boolean),
      ...where(ev),
      lines: [ev.line],
      edits: [],
      steps: [],
      age: 0,
    };
    pushBounded(s.failures, failure, EXTRACTOR_LIMITS.failures);
  }

  onEdited(files: string[], ev: { line: number }): void {
    const s = this.s;
    for (const f of files) pushUnique(s.files, f, 20);
    s.lastAction = files.length
      ? `changed ${files
          .slice(0, 3)
          .map((f) => code(shortPath(f, s.cwd)))
          .join(', ')}`
      : 'changed files';
    for (const failure of s.failures) {
      for (const f of files.length ? files : ['(a file)']) pushUnique(failure.edits, f, 20);
      pushBounded(failure.lines, ev.line, 12);
    }
  }

  // ── proposals ─────────────────────────────────────────────────────────────────────────
  evidence(at: { line: number; uuid?: string; timestamp?: string }, lines: number[]): ProposalEvidence {
    const e: ProposalEvidence = {
      harness: this.s.harness ?? 'claude-code',
      sessionId: this.s.sessionId,
      line: at.line,
      lines: [...new Set(lines)].slice(0, 12),
    };
    if (at.uuid) e.uuid = at.uuid;
    if (at.timestamp) e.timestamp = at.timestamp;
    return e;
  }

  /** Proposes what `render` makes, unless this session proposed the same key before (then nothing is rendered). */
  emit(kind: ProposalKind, key: string, render: () => Omit<Proposal, 'kind' | 'fingerprint'>): string | undefined {
    const fingerprint = fingerprintOf(kind, key);
    if (this.s.seen.includes(fingerprint)) return undefined;
    pushBounded(this.s.seen, fingerprint, EXTRACTOR_LIMITS.seen);
    this.proposals.push({ kind, fingerprint, ...render() });
    return fingerprint;
  }

  withdraw(fingerprint: string): void {
    const at = this.proposals.findIndex((p) => p.fingerprint === fingerprint);
    if (at !== -1) this.proposals.splice(at, 1);
    else if (!this.withdrawn.includes(fingerprint)) this.withdrawn.push(fingerprint);
  }

  harnessName(): string {
    return this.s.harness === 'codex' ? 'Codex' : 'Claude Code';
  }

  decision(role: 'user' | 'assistant', cues: CueSentence[], all: string[], ev: { line: number; uuid?: string; timestamp?: string }): string | undefined {
    const s = this.s;
    const used = cues.slice(0, 3);
    const cueIndexes = new Set(used.map((c) => c.index));
    const statement = used.map((c) => c.sentence).join(' ');
    const first = statementOf(used[0]!);
    const other = role === 'user' ? s.lastAssistant : s.lastUser;
    const context =
      role === 'user'
        ? other
          ? `Decided by the person, in reply to the agent:\n\n${quote(other.text)}`
          : `Stated by the person in a ${this.harnessName()} session.`
        : other
          ? `Decided by the agent while working on what the person asked:\n\n${quote(other.text)}`
          : `Stated by the agent in a ${this.harnessName()} session.`;
    const options = optionsIn(statement);
    return this.emit('decision', normalizeKey(statement), () => ({
      title: titleOf(first.statement),
      body: bodyOf([
        ['Context', context],
        ['Options', options ? `- ${options[0]} (chosen)\n- ${options[1]}` : ''],
        ['Decision', statement],
        ['Why', whyOf(all, cueIndexes, first.tail, WHY_PLACEHOLDER)],
      ]),
      tags: tagsOf(statement),
      evidence: this.evidence(ev, [...(other ? [other.line] : []), ev.line]),
    }));
  }

  /** Lessons stated with a label ("Lesson: ...", "TIL: ..."; see cues.ts), one proposal each, at most 3 per message. */
  statedLessons(role: 'user' | 'assistant', all: string[], ev: { line: number; uuid?: string; timestamp?: string }): void {
    const s = this.s;
    let n = 0;
    for (const [index, sentence] of all.entries()) {
      const lesson = statedLesson(sentence);
      if (!lesson || ++n > 3) continue;
      const other = role === 'user' ? s.lastAssistant : s.lastUser;
      const who = role === 'user' ? 'the person' : 'the agent';
      const happened = other
        ? `Stated by ${who} in a ${this.harnessName()} session, after ${role === 'user' ? 'the agent said' : 'the person asked'}:\n\n${quote(other.text)}`
        : `Stated by ${who} in a ${this.harnessName()} session.`;
      this.emit('lesson', normalizeKey(lesson), () => ({
        title: titleOf(lesson),
        body: bodyOf([
          ['What happened', happened],
          ['Why', whyOf(all, new Set([index]), '', 'Not stated in the session.')],
          ['Lesson', lesson],
          ['How to apply', 'Not stated in the session.'],
        ]),
        tags: tagsOf(lesson),
        evidence: this.evidence(ev, [...(other ? [other.line] : []), ev.line]),
      }));
    }
  }

  preference(cues: CueSentence[], all: string[], ev: { line: number; uuid?: string; timestamp?: string }): void {
    const s = this.s;
    const used = cues.slice(0, 4);
    const statement = used.map((c) => c.sentence);
    const first = statementOf(used[0]!);
    const source = s.lastAction
      ? `The person said this in a ${this.harnessName()} session, after the agent ${s.lastAction}.`
      : `The person said this in a ${this.harnessName()} session.`;
    this.emit('preference', normalizeKey(statement.join(' ')), () => ({
      title: titleOf(first.statement),
      body: bodyOf([
        ['Preference', statement.length > 1 ? statement.map((x) => `- ${x}`).join('\n') : statement[0]!],
        ['Reason', whyOf(all, new Set(used.map((c) => c.index)), first.tail, 'Not stated in the session.')],
        ['Exceptions', 'None stated.'],
        ['Source', source],
      ]),
      tags: tagsOf(statement.join(' ')),
      evidence: this.evidence(ev, [ev.line]),
    }));
  }

  resolved(f: OpenFailure, command: string, ev: { line: number; uuid?: string; timestamp?: string }): void {
    const passed = oneLine(firstLine(command), 300);
    const changedCommand = normalizeKey(passed) !== normalizeKey(f.command);
    const excerpt = f.excerpt.length ? f.excerpt.map((l) => `    ${l}`).join('\n') : `    ${f.headline}`;
    const cwd = this.s.cwd;
    const short = shortPaths(f.headline, 110, cwd);
    const lines = [...f.lines, ev.line];
    if (f.edits.length || (!f.steps.length && changedCommand)) {
      const files = f.edits.slice(0, 6);
      const fileList = files.map((x) => code(shortPath(x, cwd))).join(', ');
      const title = files.length
        ? `${code(f.family)}: ${short}; fixed in ${files
            .slice(0, 2)
            .map((x) => shortPath(x, cwd))
            .join(', ')}${files.length > 2 ? ' and more' : ''}`
        : `${code(f.family)}: ${short}; passed as ${code(passed)}`;
      const happened = files.length
        ? `${code(f.command)} failed:\n\n${excerpt}\n\nThen ${fileList} ${files.length === 1 ? 'was' : 'were'} changed${f.steps.length ? ` (and ${f.steps.slice(0, 3).map(code).join(', ')} run)` : ''}, and ${code(passed)} passed.`
        : `${code(f.command)} failed:\n\n${excerpt}\n\nRun as ${code(passed)}, it passed.`;
      const lesson = files.length
        ? `When ${code(f.family)} fails with “${short}”, the fix was in ${fileList}.`
        : `Run ${code(passed)} rather than ${code(f.command)}.`;
      this.emit('lesson', `${f.family}\n${errorSignature(f.headline)}`, () => ({
        title: titleOf(title),
        body: bodyOf([
          ['What happened', happened],
          ['Why', f.explanation ? quote(f.explanation) : 'Not stated in the session.'],
          ['Lesson', lesson],
          ['How to apply', `If the error comes back, check ${files.length ? fileList : 'how the command is run'} first; ${code(passed)} passing is the check.`],
        ]),
        tags: tagsOf(`${f.headline} ${f.explanation ?? ''}`, [f.family], files),
        evidence: this.evidence(f, lines),
      }));
      return;
    }
    if (!f.steps.length) return; // the same command simply passed on a retry: nothing learned
    const steps = [...f.steps.slice(0, 11), passed];
    this.emit('runbook', `${f.family}\n${errorSignature(f.headline)}\n${f.steps.map(commandFamily).join('\n')}`, () => ({
      title: titleOf(`${code(f.family)} fails with “${short}”: run ${code(f.steps[0]!)} first`),
      body: bodyOf([
        ['When to use', `When ${code(f.command)} fails with:\n\n${excerpt}`],
        ['Steps', steps.map((x, i) => `${i + 1}. ${code(x)}`).join('\n')],
        ['Verification', `${code(passed)} exits 0 (it did at transcript line ${ev.line}).`],
        ['Rollback', 'Not recorded in the session.'],
      ]),
      tags: tagsOf(f.headline, [f.family, ...f.steps.map(commandFamily)]),
      evidence: this.evidence(f, lines),
    }));
  }

  /** At a stop or session end: the open todo items as a hand-off, replacing the session's previous one. */
  handoff(): void {
    const s = this.s;
    const open = openItems(s);
    const old = s.handoff;
    if (!open.items.length) {
      if (old) this.withdraw(old);
      s.handoff = undefined;
      return;
    }
    // the open items alone, not the session id: the same hand-off from another session (an
    // imported copy, a resumed session) is the same thing, proposed once (docs/capture.md)
    const key = open.items.map((i) => normalizeKey(i.text)).join('\n');
    const fingerprint = fingerprintOf('handoff', key);
    if (fingerprint === old) return;
    if (old) this.withdraw(old);
    const done = (s.todos ?? []).filter((t) => DONE.has(t.status)).slice(0, 12);
    const lastWords = s.lastAssistant ? quote(s.lastAssistant.text) : '';
    const questions = s.lastAssistant
      ? sentences(s.lastAssistant.text)
          .filter((x) => /[?？]\s*$/.test(x))
          .slice(0, 3)
      : [];
    const pointers = [
      ...(s.files.length
        ? [
            `- Files changed: ${s.files
              .slice(-10)
              .map((f) => code(shortPath(f, s.cwd)))
              .join(', ')}`,
          ]
        : []),
      ...(s.commands.length ? [`- Last commands: ${s.commands.slice(-5).map(code).join(', ')}`] : []),
      ...(s.cwd ? [`- Working directory: ${code(s.cwd)}`] : []),
    ];
    const next = open.items.find((t) => t.status === 'in_progress') ?? open.items[0]!;
    const more = open.items.length - 1;
    s.handoff = fingerprint;
    // The fingerprint is the slot's key, not in `seen`: the same open items later in the session are not proposed again, other ones are.
    this.proposals.push({
      kind: 'handoff',
      fingerprint,
      slot: `handoff:${s.sessionId ?? 'unknown'}`,
      title: titleOf(`Hand-off: ${next.text}${more > 0 ? ` (and ${more} more open item${more > 1 ? 's' : ''})` : ''}`),
      body: bodyOf([
        [
          'State',
          [
            s.goal ? `Goal of the session: ${s.goal}` : '',
            done.length ? done.map((t) => `- [x] ${t.text}`).join('\n') : '',
            lastWords ? `The agent's last words:\n\n${lastWords}` : '',
          ]
            .filter(Boolean)
            .join('\n\n') || 'Nothing recorded as done.',
        ],
        [
          'Next steps',
          open.items.map((t, i) => `${i + 1}. ${t.text}${t.status && t.status !== 'pending' ? ` (${t.status.replace(/_/g, ' ')})` : ''}`).join('\n'),
        ],
        ['Open questions', questions.length ? questions.map((q) => `- ${q}`).join('\n') : 'None recorded.'],
        ['Pointers', pointers.join('\n') || 'None recorded.'],
      ]),
      tags: tagsOf(`${s.goal ?? ''} ${open.items.map((i) => i.text).join(' ')}`, [], s.files),
      evidence: this.evidence(open.at ?? { line: s.line }, [open.at?.line ?? s.line]),
    });
  }
}

function where(ev: { line: number; uuid?: string; timestamp?: string }): { line: number; uuid?: string; timestamp?: string } {
  const w: { line: number; uuid?: string; timestamp?: string } = { line: ev.line };
  if (ev.uuid) w.uuid = ev.uuid;
  if (ev.timestamp) w.timestamp = ev.timestamp;
  return w;
}

/** The open items: the latest todo list's unfinished entries, else a "Next steps" list in the agent's last message. */
function openItems(s: ExtractorState): { items: OpenItem[]; at: { line: number; uuid?: string; timestamp?: string } | undefined } {
  if (s.todos) return { items: s.todos.filter((t) => !DONE.has(t.status)).slice(0, 20), at: s.todosAt };
  const text = s.lastAssistant?.text;
  if (!text) return { items: [], at: undefined };
  const m =
    /(?:^|\n)\s*(?:#+\s*|\*\*)?(?:next steps?|remaining(?: work)?|still to do|left to do|to ?do|open items|follow-?ups?|下一步|待办(?:事项)?|后续(?:工作)?|剩下的(?:工作)?|还没做的)\s*(?:\*\*)?\s*[:：]?\s*\n((?:\s*(?:[-*•]|\d+[.)])\s+.+\n?){2,})/i.exec(
      text,
    );
  if (!m) return { items: [], at: undefined };
  const items = m[1]!
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+(?:\[ \]\s*)?/, '').trim())
    .filter(Boolean)
    .slice(0, 20)
    .map((text) => ({ text, status: 'pending' }));
  return { items, at: { line: s.lastAssistant!.line } };
}

/**
 * The reason for a decision or preference: a because/since/colon clause in the message, else
 * the rest of the cue sentence after its statement, else the message's other statements.
 */
function whyOf(all: string[], cueIndexes: Set<number>, tail: string, none: string): string {
  const said = reasonIn(all, cueIndexes) ?? (tail.length >= 12 ? tail : undefined);
  const rest = all.filter((x, i) => !cueIndexes.has(i) && !/[?？]\s*$/.test(x)).slice(0, 3);
  const why = said ?? (rest.length ? rest.join(' ') : none);
  return /^[a-z]/.test(why) ? why[0]!.toUpperCase() + why.slice(1) : why;
}

/** "X over Y" in a decision: the chosen and the rejected option. */
function optionsIn(statement: string): [string, string] | undefined {
  const m =
    /\b(?:chose|chosen|picked|selected|went with|going with|go with|use|using|stick with|switch to)\s+(.{1,60}?)\s+(?:over|rather than|instead of)\s+(.{1,60}?)(?=[,.;:!?)]|\s+(?:for|because|since|so|as|in|on|to)\b|$)/i.exec(
      statement,
    );
  if (!m) return undefined;
  const clean = (x: string) => x.replace(/^(?:the|a|an)\s+/i, '').trim();
  return [clean(m[1]!), clean(m[2]!)];
}

/**
 * A path as a reader wants it: relative to the session's working directory when inside it, else
 * its last two segments (`/usr/lib/node_modules/x/index.js` → `x/index.js`).
 */
function shortPath(p: string, cwd?: string): string {
  if (cwd && p.startsWith(`${cwd}/`) && p.length > cwd.length + 1) return p.slice(cwd.length + 1);
  const parts = p.split(/[\\/]+/).filter(Boolean);
  return parts.length > 2 && (p.startsWith('/') || /^[A-Za-z]:/.test(p)) ? parts.slice(-2).join('/') : p;
}

/** A line with its absolute paths shortened (not inside URLs), a closing full stop dropped, capped. */
function shortPaths(text: string, max: number, cwd?: string): string {
  const short = text.replace(/(?<![\w:/.])(?:[A-Za-z]:)?(?:\/[\w.@~+-]+){3,}/g, (m) => shortPath(m, cwd)).replace(/[.。]\s*$/, '');
  return capText(short, max);
}

/**
 * Runs the extractor over `items` (transcript lines as text, or records already parsed), from
 * the given state. Lines are numbered from `state.line + 1`.
 */
export function runExtractor(items: Iterable<unknown>, state: ExtractorState | undefined, options: ExtractOptions = {}): ExtractResult {
  const s = state ? (structuredClone(state) as ExtractorState) : createExtractorState(options.harness);
  if (options.harness && !s.harness) s.harness = options.harness;
  const run = new Run(s, options);
  for (const item of items) if (!run.take(item)) break;
  if (!run.stoppedEarly && (options.event === 'stop' || options.event === 'session-end' || options.event === 'import')) run.handoff();
  s.records += run.records;
  s.invalidLines += run.invalid;
  s.oversizedLines += run.oversized;
  return {
    proposals: run.proposals,
    withdrawn: run.withdrawn,
    state: s,
    stats: { lines: run.lines, records: run.records, invalidLines: run.invalid, oversizedLines: run.oversized, stoppedEarly: run.stoppedEarly },
  };
}
