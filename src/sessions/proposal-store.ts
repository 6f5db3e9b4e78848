/**
 * Proposed memories in the sessions folder (never in a vault): `<sessions>/.proposals/<shortid>.json`
 * holds one session's extractor state and its live proposals, `decided.json` the fingerprints a
 * person accepted or rejected, so the same thing is never proposed again. The session files are
 * pruned with the snapshots (snapshot-index.ts); every write is atomic (the sessions folder's
 * writer, store/atomic-write.ts).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { extractProposalsFromBytes, parseExtractorState, serializeExtractorState, type ExtractEvent, type Proposal } from './proposals/index.js';
import type { ExtractorState } from './proposals/types.js';
import { PROPOSALS_DIR, withSnapshotLock, writeSessionFile } from './snapshots/snapshot-store.js';
import { readTranscriptBytes } from './transcripts/read-transcript.js';
import { redact } from './transcripts/text.js';
import type { Harness } from './transcripts/transcript-summary.js';

/** Bounds of the proposal store. */
export const PROPOSAL_STORE_LIMITS = {
  /** transcript bytes read per hook run (the rest waits for the next run; decoding more would not fit the budget) */
  bytesPerHook: 1024 * 1024,
  /** transcript bytes read per import run (import runs again until the transcript is read) */
  bytesPerImport: 8 * 1024 * 1024,
  /** time the extractor gets per hook run, ms (issue 17: within 50 ms) */
  hookBudgetMs: 50,
  /** live proposals kept per session (the newest) */
  perSession: 100,
  /** decided fingerprints remembered (the newest) */
  decided: 20_000,
  /** largest store file read back */
  fileBytes: 8 * 1024 * 1024,
} as const;

/** One stored proposal: the extractor's proposal with its short id, when it was made and where. */
export interface StoredProposal extends Proposal {
  /** `p` + the first 10 hex digits of the fingerprint: what `vault review show|accept|reject` take */
  id: string;
  /** ISO time it was stored */
  createdAt: string;
  /** the session's snapshot short id */
  shortId: string;
  /** realpath of the session's worktree */
  worktree: string;
}

interface SessionFile {
  version: 1;
  sessionId: string;
  shortId: string;
  worktree: string;
  transcript: string;
  harness: Harness;
  updatedAt: string;
  state: ExtractorState;
  proposals: StoredProposal[];
}

interface DecidedFile {
  version: 1;
  /** fingerprint → `accepted:<memory id>` or `rejected`, oldest first */
  fingerprints: Record<string, string>;
}

const SESSION_FILE = /^([a-z0-9_][a-z0-9_-]{0,63})\.json$/;
const DECIDED = 'decided.json';

/** The short id a fingerprint gives: `p` + 10 hex digits. */
export function proposalId(fingerprint: string): string {
  const hex = /^sha256:([0-9a-f]{10})/.exec(fingerprint)?.[1] ?? createHash('sha256').update(fingerprint).digest('hex').slice(0, 10);
  return `p${hex}`;
}

/** Creates `.proposals` (0700); its path, or undefined when it is not a real folder (never written through a link). */
function ensureDir(sessionsDir: string): string | undefined {
  const sub = join(sessionsDir, PROPOSALS_DIR);
  try {
    mkdirSync(sub, { mode: 0o700 });
  } catch {
    /* exists (checked below) or cannot be made */
  }
  return lstatSync(sub, { throwIfNoEntry: false })?.isDirectory() ? sub : undefined;
}

function readJson(path: string): unknown {
  const r = readFileSafe(path, PROPOSAL_STORE_LIMITS.fileBytes);
  if (!r.ok) return undefined;
  try {
    return JSON.parse(r.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isStored(p: unknown): p is StoredProposal {
  return (
    isObj(p) &&
    typeof p.id === 'string' &&
    typeof p.fingerprint === 'string' &&
    typeof p.kind === 'string' &&
    typeof p.title === 'string' &&
    typeof p.body === 'string' &&
    Array.isArray(p.tags) &&
    isObj(p.evidence) &&
    typeof p.createdAt === 'string' &&
    typeof p.worktree === 'string' &&
    typeof p.shortId === 'string'
  );
}

function readSessionFile(path: string): SessionFile | undefined {
  const v = readJson(path);
  if (!isObj(v) || v.version !== 1 || typeof v.sessionId !== 'string' || typeof v.worktree !== 'string' || !Array.isArray(v.proposals)) return undefined;
  const state = parseExtractorState(JSON.stringify(v.state));
  if (!state) return undefined;
  return { ...(v as unknown as SessionFile), state, proposals: v.proposals.filter(isStored) };
}

function readDecided(sessionsDir: string): DecidedFile {
  const v = readJson(join(sessionsDir, PROPOSALS_DIR, DECIDED));
  const out: DecidedFile = { version: 1, fingerprints: {} };
  if (isObj(v) && isObj(v.fingerprints))
    for (const [fp, d] of Object.entries(v.fingerprints)) if (typeof d === 'string' && fp.length <= 80 && d.length <= 80) out.fingerprints[fp] = d;
  return out;
}

/** Input of {@link captureProposals}: the session a snapshot was just written for. */
export interface CaptureInput {
  sessionsDir: string;
  shortId: string;
  sessionId: string;
  /** realpath of the session's worktree (worktree-identity.ts) */
  worktree: string;
  /** a transcript path already accepted by checkTranscriptPath */
  transcript: string;
  harness: Harness;
  event: ExtractEvent;
  /** absolute deadline (ms since epoch, the runtime's clock); hooks also get {@link PROPOSAL_STORE_LIMITS}.hookBudgetMs */
  deadline: number;
}

/** What {@link captureProposals} did. */
export interface CaptureOutcome {
  /** proposals new to `vault review` stored by this run (one already live in another session's file is stored, not counted) */
  added: number;
  /** live proposals of the session after the run */
  total: number;
  /** the extractor stopped at the deadline or the byte budget: the rest is read next time */
  partial: boolean;
  /** time the extractor took, ms */
  ms: number;
}

/**
 * Runs the extractor over the transcript lines new since the session's last run and stores the
 * new proposals (secrets redacted; withdrawn ones dropped; a fingerprint already decided, or
 * already live in the session, skipped; one live proposal per slot). A transcript that shrank
 * (replaced) is read again from its start; its fingerprints keep repeats out.
 *
 * @throws VaultError `io-error` (lock, write), `invalid-input` / `io-error` (transcript)
 */
export function captureProposals(rt: Runtime, input: CaptureInput): CaptureOutcome {
  const dir = ensureDir(input.sessionsDir);
  if (!dir) throw new VaultError('io-error', `the proposals folder ${join(input.sessionsDir, PROPOSALS_DIR)} is not a real folder`, { hint: 'remove it' });
  const clock = () => rt.now().getTime();
  const name = `${input.shortId}.json`;
  return withSnapshotLock(input.sessionsDir, `proposals-${input.shortId}`.slice(0, 64), rt, 2000, () => {
    const path = join(dir, name);
    const existing = readSessionFile(path);
    const mine = existing && existing.sessionId === input.sessionId && existing.worktree === input.worktree ? existing : undefined;
    let state = mine?.state;
    const read = readTranscriptBytes(
      input.transcript,
      state?.byteOffset ?? 0,
      input.event === 'import' ? PROPOSAL_STORE_LIMITS.bytesPerImport : PROPOSAL_STORE_LIMITS.bytesPerHook,
    );
    if (read.restart) state = undefined;
    const started = clock();
    const result = extractProposalsFromBytes(read.bytes, state, {
      harness: input.harness,
      event: input.event,
      deadline: Math.min(input.deadline, started + (input.event === 'import' ? input.deadline - started : PROPOSAL_STORE_LIMITS.hookBudgetMs)),
      now: clock,
    });
    const ms = clock() - started;
    const decided = readDecided(input.sessionsDir).fingerprints;
    const withdrawn = new Set(result.withdrawn);
    let live = (mine?.proposals ?? []).filter((p) => !withdrawn.has(p.fingerprint));
    const nowIso = rt.now().toISOString();
    let added = 0;
    // live in another session's file: kept here too (it outlives that file), but not new
    const elsewhere = result.proposals.length ? liveFingerprints(input.sessionsDir, name) : new Set<string>();
    for (const p of result.proposals) {
      if (decided[p.fingerprint] || live.some((q) => q.fingerprint === p.fingerprint)) continue;
      if (p.slot) live = live.filter((q) => q.slot !== p.slot);
      live.push({
        ...p,
        title: redact(p.title),
        body: redact(p.body),
        id: proposalId(p.fingerprint),
        createdAt: nowIso,
        shortId: input.shortId,
        worktree: input.worktree,
      });
      if (!elsewhere.has(p.fingerprint)) added++;
    }
    live = live.slice(-PROPOSAL_STORE_LIMITS.perSession);
    const file: SessionFile = {
      version: 1,
      sessionId: input.sessionId,
      shortId: input.shortId,
      worktree: input.worktree,
      // kept for a person reading the file, never read back: a credential in a folder name is redacted like in the snapshot
      transcript: redact(input.transcript),
      harness: input.harness,
      updatedAt: nowIso,
      state: JSON.parse(serializeExtractorState(result.state)) as ExtractorState,
      proposals: live,
    };
    writeSessionFile(input.sessionsDir, `${PROPOSALS_DIR}/${name}`, `${JSON.stringify(file)}\n`, `proposals-${input.shortId}`, rt);
    const partial = result.stats.stoppedEarly || result.state.byteOffset < read.size;
    return { added, total: live.length, partial, ms };
  });
}

/** The fingerprints of the proposals stored in every session file but `except` (a file name). */
function liveFingerprints(sessionsDir: string, except: string): Set<string> {
  const sub = join(sessionsDir, PROPOSALS_DIR);
  const out = new Set<string>();
  if (!lstatSync(sub, { throwIfNoEntry: false })?.isDirectory()) return out;
  for (const n of readdirSync(sub)) {
    if (n === except || !SESSION_FILE.test(n) || n === DECIDED) continue;
    for (const p of readSessionFile(join(sub, n))?.proposals ?? []) out.add(p.fingerprint);
  }
  return out;
}

/**
 * The live proposals, newest first (then by transcript line, last first), one per fingerprint,
 * without those a person decided on.
 *
 * @param worktree only this worktree's (realpath); undefined: every worktree's
 */
export function listProposals(sessionsDir: string, worktree?: string): StoredProposal[] {
  const sub = join(sessionsDir, PROPOSALS_DIR);
  if (!lstatSync(sub, { throwIfNoEntry: false })?.isDirectory()) return [];
  const decided = readDecided(sessionsDir).fingerprints;
  const seen = new Set<string>();
  const out: StoredProposal[] = [];
  for (const n of readdirSync(sub).sort()) {
    if (!SESSION_FILE.test(n) || n === DECIDED) continue;
    const f = readSessionFile(join(sub, n));
    if (!f || (worktree !== undefined && f.worktree !== worktree)) continue;
    for (const p of f.proposals) {
      if (decided[p.fingerprint] || seen.has(p.fingerprint)) continue;
      seen.add(p.fingerprint);
      out.push(p);
    }
  }
  return out.sort((a, b) => (a.createdAt === b.createdAt ? b.evidence.line - a.evidence.line : a.createdAt < b.createdAt ? 1 : -1));
}

/**
 * Remembers a person's decision on a proposal by its fingerprint (accepted with the memory id,
 * or rejected): it is never listed or proposed again.
 *
 * @throws VaultError `io-error` (lock, write)
 */
export function decideProposal(sessionsDir: string, proposal: StoredProposal, decision: 'rejected' | { accepted: string }, rt: Runtime): void {
  const dir = ensureDir(sessionsDir);
  if (!dir) throw new VaultError('io-error', `the proposals folder ${join(sessionsDir, PROPOSALS_DIR)} is not a real folder`, { hint: 'remove it' });
  withSnapshotLock(sessionsDir, 'proposals-decided', rt, 2000, () => {
    const d = readDecided(sessionsDir);
    delete d.fingerprints[proposal.fingerprint];
    d.fingerprints[proposal.fingerprint] = decision === 'rejected' ? 'rejected' : `accepted:${decision.accepted}`;
    const keys = Object.keys(d.fingerprints);
    for (const k of keys.slice(0, Math.max(0, keys.length - PROPOSAL_STORE_LIMITS.decided))) delete d.fingerprints[k];
    writeSessionFile(sessionsDir, `${PROPOSALS_DIR}/${DECIDED}`, `${JSON.stringify(d)}\n`, 'proposals-decided', rt);
  });
}

/** Least time between two review notices of one worktree, ms (issue 17: at most once every 10 minutes). */
export const NOTICE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The line a Stop hook shows the person (never the agent) when this worktree's proposals grew
 * since the last notice, at most once every {@link NOTICE_INTERVAL_MS}; undefined otherwise. The
 * count and the time of the last notice are kept in `.proposals/.notice-<8 hex>.json`; the count
 * is stored on every call, so a review that lowers it makes the next growth count again.
 */
export function reviewNotice(sessionsDir: string, worktree: string, rt: Runtime): string | undefined {
  const dir = ensureDir(sessionsDir);
  if (!dir) return undefined;
  const count = listProposals(sessionsDir, worktree).length;
  const name = `.notice-${createHash('sha256').update(worktree).digest('hex').slice(0, 8)}.json`;
  const v = readJson(join(dir, name));
  const last = isObj(v) && typeof v.count === 'number' && typeof v.at === 'number' ? { count: v.count, at: v.at } : { count: 0, at: 0 };
  const now = rt.now().getTime();
  const speak = count > last.count && now - last.at >= NOTICE_INTERVAL_MS;
  if (count !== last.count || speak)
    writeSessionFile(sessionsDir, `${PROPOSALS_DIR}/${name}`, `${JSON.stringify({ count, at: speak ? now : last.at })}\n`, 'proposals-notice', rt, true);
  if (!speak) return undefined;
  return `vault: ${count} proposed ${count === 1 ? 'memory' : 'memories'}, run \`vault review\``;
}
