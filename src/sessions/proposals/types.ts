/**
 * Shapes of proposed memories and of the extractor's incremental state. Everything here is
 * plain JSON, so a caller can store the state and the proposals in the sessions folder between
 * hook runs.
 */
import type { Harness } from '../transcripts/transcript-summary.js';

/** The memory kinds the extractor proposes (a subset of the ecc.memory.v1 kinds). */
export type ProposalKind = 'decision' | 'lesson' | 'runbook' | 'preference' | 'handoff';

/** Every {@link ProposalKind}, in a stable order. */
export const PROPOSAL_KINDS: readonly ProposalKind[] = ['decision', 'lesson', 'runbook', 'preference', 'handoff'];

/**
 * The Why of a proposed decision whose session gave no reason. It asks the person to write the
 * reason, so `vault review accept` refuses a body that still holds it (accept with `--edit`).
 */
export const WHY_PLACEHOLDER = 'Not stated in the session; add the reason before accepting.';

/** Where a proposal comes from in the transcript. */
export interface ProposalEvidence {
  harness: Harness;
  /** session id from the transcript (Claude `sessionId`, Codex `session_meta.id`), when seen */
  sessionId: string | undefined;
  /** 1-based line of the transcript file that carries the main evidence */
  line: number;
  /** the Claude Code record `uuid` of that line, when it has one (Codex records have none) */
  uuid?: string;
  /** ISO timestamp of that line, when it has one */
  timestamp?: string;
  /** every 1-based line the proposal rests on, in order (a failure, the fix, the passing run); at most 12 */
  lines: number[];
}

/** One proposed memory: never written to the vault by the extractor; a person accepts it or not. */
export interface Proposal {
  kind: ProposalKind;
  /** trimmed, 1..200 characters (UTF-16 units), no control or bidi characters (rule from ecc.memory.v1) */
  title: string;
  /** Markdown in the canonical style of `templates/<kind>.md`; trimmed, non-empty, at most 16,000 characters */
  body: string;
  /** 0..6 slugs matching `^[a-z0-9][a-z0-9._-]{0,63}$` (rule from ecc.memory.v1) */
  tags: string[];
  evidence: ProposalEvidence;
  /**
   * `sha256:` + 64 hex digits of the kind and the normalised key text (the sentence of a
   * decision or preference; the command and error signature of a lesson or runbook; the session
   * and its open items for a hand-off). Equal for the same thing said again, in this session or
   * another, so a store can drop repeats and remember rejections by it.
   */
  fingerprint: string;
  /**
   * At most one live proposal per slot: a newer proposal with the same slot replaces the older
   * one. Set on hand-offs (`handoff:<session id>`), whose open items change as the session goes on.
   */
  slot?: string;
}

/** A todo or plan item as the extractor keeps it. */
export interface OpenItem {
  text: string;
  status: string;
}

/** A command that failed and is waiting for a fix. */
export interface OpenFailure {
  /** normalised command (program and subcommand), e.g. `npm test`, `cargo build` */
  family: string;
  /** the failing command as run (one line, capped) */
  command: string;
  /** the most telling line of the error output */
  headline: string;
  /** up to 6 error lines of the output */
  excerpt: string[];
  line: number;
  uuid?: string;
  timestamp?: string;
  /** transcript lines of the failure and of what followed it */
  lines: number[];
  /** files changed since the failure */
  edits: string[];
  /** successful non-trivial commands run since the failure (other than the family itself) */
  steps: string[];
  /** what the agent said right after the failure, before changing anything */
  explanation?: string;
  /** commands run since the failure; a failure this old is dropped */
  age: number;
}

/** A pending tool call, by call id. */
export interface PendingCall {
  kind: 'command' | 'edit' | 'stdin';
  command?: string;
  files?: string[];
  /** for `stdin`: the Codex exec session written to */
  session?: string;
  line: number;
  uuid?: string;
  timestamp?: string;
}

/** Something said, kept for the context of the next proposal. */
export interface Said {
  text: string;
  line: number;
}

/**
 * The extractor's incremental state: what it has read and what it still waits for. JSON, small
 * and bounded (at most a few hundred KB), versioned; store it with the session's proposals and
 * pass it back on the next run. Treat it as opaque.
 */
export interface ExtractorState {
  version: 1;
  harness: Harness | undefined;
  /** transcript lines consumed so far; the next input starts at line `line + 1` */
  line: number;
  /** transcript bytes consumed so far (kept by the byte-chunk entry point) */
  byteOffset: number;
  sessionId: string | undefined;
  cwd: string | undefined;
  /** the first prompt of the session */
  goal: string | undefined;
  lastUser: Said | undefined;
  lastAssistant: Said | undefined;
  /** the last command or edit before the person's latest message */
  lastAction: string | undefined;
  calls: Record<string, PendingCall>;
  /** Codex unified exec: process session id → the call that started it */
  execSessions: Record<string, string>;
  failures: OpenFailure[];
  /** the latest todo list or plan; undefined until one is seen */
  todos: OpenItem[] | undefined;
  /** where the latest todo list or plan was written */
  todosAt: { line: number; uuid?: string; timestamp?: string } | undefined;
  /** files changed recently, most recent last */
  files: string[];
  /** successful non-trivial commands, most recent last */
  commands: string[];
  /** fingerprints of the agent's decisions of its last turn, withdrawn if the person says no */
  pendingDecisions: string[];
  /** fingerprint of the live hand-off proposal of this session */
  handoff: string | undefined;
  /** fingerprints proposed so far in this session (most recent last) */
  seen: string[];
  /** keys of the latest messages, to read a message Codex writes twice only once */
  recent: string[];
  /** counters: records read, lines that were not valid records, lines skipped as too long */
  records: number;
  invalidLines: number;
  oversizedLines: number;
}
