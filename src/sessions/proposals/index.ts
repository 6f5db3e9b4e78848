/**
 * Proposed memories from agent sessions: a rule-based extractor (no model, no network, no file
 * system) that reads the transcript lines new since its last run and proposes decisions,
 * lessons, runbooks, preferences and hand-offs for a person to review. Nothing here writes a
 * memory: proposals are stored by the caller in the sessions folder, next to the snapshots, and
 * only a person's accept turns one into a memory.
 *
 * Use:
 *
 * ```ts
 * let state = parseExtractorState(saved) ?? createExtractorState('claude-code');
 * const chunk = readFrom(transcriptPath, state.byteOffset);   // the bytes appended since
 * const { proposals, withdrawn, state: next } = extractProposalsFromBytes(chunk, state, { event: 'stop' });
 * save(serializeExtractorState(next));
 * ```
 */
import { OVERSIZED_LINE, runExtractor, type ExtractOptions, type ExtractResult } from './extract.js';
import type { ExtractorState, OpenFailure, PendingCall, Said } from './types.js';
import { createExtractorState, EXTRACTOR_LIMITS } from './extract.js';

export { createExtractorState, EXTRACTOR_LIMITS, type ExtractEvent, type ExtractOptions, type ExtractResult } from './extract.js';
export { PROPOSAL_LIMITS } from './render.js';
export { PROPOSAL_KINDS, WHY_PLACEHOLDER, type ExtractorState, type Proposal, type ProposalEvidence, type ProposalKind } from './types.js';

/**
 * Extracts proposals from transcript lines new since the last run.
 *
 * @param input the new lines, in file order: each element a line of JSONL text (without its
 *   newline; a line that is not valid JSON is counted in `stats.invalidLines`, a line over
 *   {@link EXTRACTOR_LIMITS}.lineChars characters in `stats.oversizedLines`), or a record
 *   already parsed. Line numbers continue from `state.line`.
 * @param state the state the previous run returned, or undefined for a transcript read from its
 *   first line. Never modified.
 * @param options harness (else detected), the hook event (hand-offs at `stop`, `session-end`,
 *   `import`), an optional deadline with its clock (ms)
 * @returns the new proposals, fingerprints withdrawn from earlier runs, and the next state. When
 *   the deadline stopped the run (`stats.stoppedEarly`), `state.line` says how many lines were
 *   consumed: pass the rest next time.
 */
export function extractProposals(input: Iterable<unknown>, state?: ExtractorState, options?: ExtractOptions): ExtractResult {
  return runExtractor(input, state, options);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Extracts proposals from the bytes appended to a transcript file since the last run.
 *
 * `chunk` must start at `state.byteOffset` of the file (0 for a new transcript). Only complete
 * lines (ending in LF) are read: a last line without its newline (a record still being written)
 * is left for the next run, unless `options.event` is `session-end` or `import` (the file is
 * complete; a half-written last line is then counted as invalid). A line that is not valid UTF-8
 * is counted as invalid and skipped; one over {@link EXTRACTOR_LIMITS}.lineChars bytes is
 * skipped without being decoded.
 *
 * @returns as {@link extractProposals}; `state.byteOffset` and `state.line` advance past the
 *   lines consumed.
 */
export function extractProposalsFromBytes(chunk: Uint8Array, state?: ExtractorState, options: ExtractOptions = {}): ExtractResult {
  const complete = options.event === 'session-end' || options.event === 'import';
  const ends: number[] = [];
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) ends.push(i);
  const tail = ends.length ? ends[ends.length - 1]! + 1 : 0;
  const withLast = complete && tail < chunk.length;
  const stop = withLast ? chunk.length : tail;
  // Decoding the whole chunk at once is about twice as fast as line by line; a chunk that is not
  // valid UTF-8 somewhere is decoded line by line, so only the bad lines are lost.
  let whole: string[] | undefined;
  if (stop > 0 && stop <= 256 * 1024 * 1024) {
    try {
      whole = decoder.decode(chunk.subarray(0, stop)).split('\n');
      if (!withLast) whole.pop(); // the empty string after the last newline
    } catch {
      whole = undefined;
    }
  }
  let consumed = 0;
  function* lines(): Generator<unknown> {
    let start = 0;
    let n = 0;
    for (const end of ends) {
      yield whole ? oversized(whole[n]!, end - start) : decodeLine(chunk, start, end);
      n++;
      consumed = end + 1;
      start = end + 1;
    }
    if (withLast) {
      yield whole ? oversized(whole[n]!, chunk.length - tail) : decodeLine(chunk, tail, chunk.length);
      consumed = chunk.length;
    }
  }
  const result = runExtractor(lines(), state, options);
  // The generator is read lazily: a deadline stops it after the last line the run consumed.
  result.state.byteOffset = (state?.byteOffset ?? 0) + consumed;
  return result;
}

function oversized(line: string, bytes: number): string | typeof OVERSIZED_LINE {
  return bytes > EXTRACTOR_LIMITS.lineChars ? OVERSIZED_LINE : line;
}

/** A line's text; text that is not JSON for a line that is not UTF-8; a marker for a line too long to decode. */
function decodeLine(chunk: Uint8Array, start: number, end: number): string | typeof OVERSIZED_LINE {
  if (end - start > EXTRACTOR_LIMITS.lineChars) return OVERSIZED_LINE;
  try {
    return decoder.decode(chunk.subarray(start, end));
  } catch {
    return '\u0000not utf-8';
  }
}

/** The state as JSON text, to store between runs. */
export function serializeExtractorState(state: ExtractorState): string {
  return JSON.stringify(state);
}

/**
 * Reads a stored state back, bounded and checked: undefined for anything that is not a version 1
 * state. A corrupt or old file is never an error: the caller starts over, and the fingerprints in
 * its proposal store keep what was already proposed from coming back. Entries of the wrong shape
 * are dropped; lists are cut to the extractor's bounds.
 *
 * @param text at most 4 MiB of JSON
 */
export function parseExtractorState(text: string): ExtractorState | undefined {
  if (typeof text !== 'string' || text.length > 4 * 1024 * 1024) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v) || v.version !== 1 || !nat(v.line) || !nat(v.byteOffset)) return undefined;
  const harness = v.harness === 'claude-code' || v.harness === 'codex' ? v.harness : undefined;
  const s = createExtractorState(harness);
  s.line = v.line;
  s.byteOffset = v.byteOffset;
  s.records = nat(v.records) ? v.records : 0;
  s.invalidLines = nat(v.invalidLines) ? v.invalidLines : 0;
  s.oversizedLines = nat(v.oversizedLines) ? v.oversizedLines : 0;
  s.sessionId = optStr(v.sessionId, 200);
  s.cwd = optStr(v.cwd, 4096);
  s.goal = optStr(v.goal, 300);
  s.lastAction = optStr(v.lastAction, 600);
  s.handoff = optStr(v.handoff, 100);
  s.lastUser = said(v.lastUser);
  s.lastAssistant = said(v.lastAssistant);
  s.files = strs(v.files, 20, 300);
  s.commands = strs(v.commands, 10, 300);
  s.pendingDecisions = strs(v.pendingDecisions, 8, 100);
  s.seen = strs(v.seen, EXTRACTOR_LIMITS.seen, 100);
  s.recent = strs(v.recent, EXTRACTOR_LIMITS.recent, 200);
  if (Array.isArray(v.todos))
    s.todos = v.todos
      .filter(isObj)
      .slice(0, EXTRACTOR_LIMITS.todos)
      .map((t) => ({ text: optStr(t.text, 300) ?? '', status: optStr(t.status, 40) ?? 'pending' }))
      .filter((t) => t.text);
  s.todosAt = at(v.todosAt);
  if (isObj(v.calls))
    for (const [id, c] of Object.entries(v.calls).slice(-EXTRACTOR_LIMITS.calls)) {
      if (!isObj(c) || (c.kind !== 'command' && c.kind !== 'edit' && c.kind !== 'stdin') || !nat(c.line) || id.length > 128) continue;
      const call: PendingCall = { kind: c.kind, ...at(c)! };
      const command = optStr(c.command, EXTRACTOR_LIMITS.commandChars);
      if (command) call.command = command;
      if (Array.isArray(c.files)) call.files = strs(c.files, 20, 300);
      const session = optStr(c.session, 64);
      if (session) call.session = session;
      s.calls[id] = call;
    }
  if (isObj(v.execSessions))
    for (const [k, id] of Object.entries(v.execSessions).slice(-16)) if (typeof id === 'string' && k.length <= 64 && id.length <= 128) s.execSessions[k] = id;
  if (Array.isArray(v.failures))
    for (const f of v.failures.slice(-EXTRACTOR_LIMITS.failures)) {
      if (!isObj(f) || !nat(f.line) || !nat(f.age)) continue;
      const family = optStr(f.family, 300);
      const command = optStr(f.command, 300);
      const headline = optStr(f.headline, 240);
      if (!family || !command || headline === undefined) continue;
      const failure: OpenFailure = {
        family,
        command,
        headline,
        excerpt: strs(f.excerpt, 6, 240),
        ...at(f)!,
        lines: Array.isArray(f.lines) ? f.lines.filter(nat).slice(0, 12) : [],
        edits: strs(f.edits, 20, 300),
        steps: strs(f.steps, 12, 300),
        age: f.age,
      };
      const explanation = optStr(f.explanation, 600);
      if (explanation) failure.explanation = explanation;
      s.failures.push(failure);
    }
  return s;
}

function isObj(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}
function nat(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}
function optStr(x: unknown, max: number): string | undefined {
  return typeof x === 'string' && x.length <= max ? x : undefined;
}
function strs(x: unknown, maxItems: number, maxChars: number): string[] {
  return Array.isArray(x) ? x.filter((y): y is string => typeof y === 'string' && y.length <= maxChars).slice(-maxItems) : [];
}
function said(x: unknown): Said | undefined {
  if (!isObj(x) || !nat(x.line)) return undefined;
  const text = optStr(x.text, EXTRACTOR_LIMITS.saidChars);
  return text === undefined ? undefined : { text, line: x.line };
}
function at(x: unknown): { line: number; uuid?: string; timestamp?: string } | undefined {
  if (!isObj(x) || !nat(x.line)) return undefined;
  const a: { line: number; uuid?: string; timestamp?: string } = { line: x.line };
  const uuid = optStr(x.uuid, 128);
  const timestamp = optStr(x.timestamp, 40);
  if (uuid) a.uuid = uuid;
  if (timestamp) a.timestamp = timestamp;
  return a;
}
