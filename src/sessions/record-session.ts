/**
 * What the stop, session-end and pre-compact hooks do, as a library operation
 * ({@link recordSession}): read the transcript and create or update this session's snapshot
 * (never a placeholder when there is nothing to record). Session start is in session-start.ts.
 * Nothing here writes outside the sessions folder or touches the vault.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Runtime } from '../io/runtime.js';
import { checkTranscriptPath, readTranscript, type TranscriptPathProblem } from './transcripts/read-transcript.js';
import { deriveShortId } from './snapshots/session-ids.js';
import { mergeSnapshots, renderSnapshot, snapshotFromSummary, withNote, type SessionSnapshot } from './snapshots/snapshot.js';
import { listForRecord, type MemoryLister } from './start/session-start.js';
import { sessionsMtime, writeStartRecord } from './start/start-cache.js';
import { discoverSnapshot, indexSnapshot } from './snapshots/snapshot-index.js';
import { ensureStartDir, loadSnapshot, updateSnapshot } from './snapshots/snapshot-store.js';
import { oneLine } from './transcripts/text.js';
import type { Harness, TranscriptSummary } from './transcripts/transcript-summary.js';
import { identifyWorktree } from './snapshots/worktree-identity.js';
import { captureProposals, reviewNotice, type CaptureOutcome } from './proposal-store.js';

/**
 * Lifecycle events that record a snapshot; `import` is `vault sessions import` (import-sessions.ts):
 * it leaves an unchanged snapshot byte for byte as it is, and writes no start record.
 */
export type RecordEvent = 'stop' | 'session-end' | 'pre-compact' | 'import';

/** Input of {@link recordSession}, taken from a hook payload. */
export interface RecordInput {
  harness: Harness;
  event: RecordEvent;
  /** `transcript_path` as received (validated here) */
  transcriptPath: unknown;
  /** `session_id` as received */
  sessionId: unknown;
  /** `cwd` as received */
  cwd: unknown;
  /** pre-compact: `trigger` (manual / auto) */
  trigger?: unknown;
  sessionsDir: string;
  /** absolute deadline, ms since epoch */
  deadline: number;
  transcriptMaxBytes?: number;
  /** list the memories relevant to the snapshot into the worktree's start record */
  memories?: MemoryLister;
  /** prune snapshots older than this many days (at most once an hour); undefined: never */
  retentionDays?: number | undefined;
  /** stop: work out the review notice for the person (proposal-store.ts reviewNotice) */
  notice?: boolean;
}

/** What {@link recordSession} did. */
export interface RecordOutcome {
  written: boolean;
  /** a snapshot was created (not an existing one updated) */
  created?: boolean;
  /** absolute path of the snapshot written */
  path?: string;
  shortId?: string;
  /** why nothing was written (for the log) */
  skipped?: 'no-transcript' | 'no-session-id' | 'empty-transcript' | 'no-snapshot-to-annotate' | 'unchanged' | TranscriptPathProblem;
  summary?: TranscriptSummary;
  /** what the proposal extractor did after the snapshot (proposal-store.ts), or why it failed */
  proposals?: CaptureOutcome | { error: string };
  /** the review notice to show the person, when one is due */
  notice?: string;
}

function usableDir(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isAbsolute(value) || value.length > 4096 || value.includes('\u0000')) return undefined;
  try {
    return statSync(value).isDirectory() ? value : undefined;
  } catch {
    return undefined;
  }
}

function hasContent(s: TranscriptSummary): boolean {
  return Boolean(s.goal || s.prompts.length || s.files.length || s.commands.length || s.lastAssistant || s.compactions.length);
}

/**
 * Creates or updates the snapshot of the session a hook payload names.
 *
 * Without a valid transcript, stop and session-end write nothing; pre-compact only adds a
 * compaction note to an existing snapshot of the same session and worktree.
 *
 * `import` (import-sessions.ts): a snapshot that would render alike but for its update time,
 * count and event is left as it is (`skipped: 'unchanged'`, its proposals still read on);
 * `created` tells a new snapshot from an updated one; no start record is written.
 *
 * @throws VaultError `io-error` (sessions folder, lock, write), `invalid-input` (transcript)
 */
export function recordSession(rt: Runtime, input: RecordInput): RecordOutcome {
  const now = () => rt.now().getTime();
  const nowIso = rt.now().toISOString();
  const checked = input.transcriptPath === undefined || input.transcriptPath === null ? undefined : checkTranscriptPath(input.transcriptPath);
  const transcript = checked?.ok ? checked.path : undefined;
  const payloadSession = typeof input.sessionId === 'string' && input.sessionId.trim() ? oneLine(input.sessionId, 200) : undefined;
  const compactNote =
    input.event === 'pre-compact'
      ? `Context compaction (${typeof input.trigger === 'string' ? oneLine(input.trigger, 20) : 'unknown'}) started at ${nowIso}`
      : undefined;

  let summary: TranscriptSummary | undefined;
  if (transcript) {
    summary = readTranscript(transcript, {
      harness: input.harness,
      deadline: input.deadline,
      now,
      ...(input.transcriptMaxBytes ? { maxBytes: input.transcriptMaxBytes } : {}),
    });
    if (!hasContent(summary) && !compactNote) return { written: false, skipped: 'empty-transcript', summary };
  } else if (!compactNote) {
    return { written: false, skipped: checked && !checked.ok ? checked.problem : 'no-transcript' };
  }

  const sessionId = payloadSession ?? summary?.sessionId;
  const shortId = deriveShortId(transcript, sessionId);
  if (!sessionId || !shortId) return { written: false, skipped: 'no-session-id' };
  const cwd = usableDir(input.cwd) ?? usableDir(summary?.cwd) ?? (typeof summary?.cwd === 'string' && isAbsolute(summary.cwd) ? summary.cwd : undefined);
  if (!cwd) return { written: false, skipped: 'no-transcript' };
  const where = identifyWorktree(cwd);
  const importing = input.event === 'import';
  let created = false;
  let unchanged = false;
  let builtId = shortId;

  const result = updateSnapshot(
    input.sessionsDir,
    { shortId, sessionId, worktree: where.worktree },
    rt,
    (existing: SessionSnapshot | undefined, id: string) => {
      let next: SessionSnapshot | undefined;
      created = !existing;
      builtId = id;
      if (summary && hasContent(summary)) {
        const fresh = snapshotFromSummary(summary, where, { sessionId, shortId: id, transcript, event: input.event, now: nowIso });
        next = existing ? mergeSnapshots(existing, fresh) : fresh;
        // an import of a transcript that has not changed since: the snapshot stays byte for byte
        if (
          importing &&
          existing &&
          renderSnapshot({ ...next, updatedAt: existing.updatedAt, updates: existing.updates, lastEvent: existing.lastEvent, shortId: id }) ===
            renderSnapshot({ ...existing, shortId: id })
        ) {
          unchanged = true;
          return undefined;
        }
      } else next = existing ? { ...existing, updates: existing.updates + 1, updatedAt: nowIso, lastEvent: input.event } : undefined;
      if (!next) return undefined; // never a placeholder
      return compactNote ? withNote(next, compactNote) : next;
    },
  );
  if (!result.written && !unchanged) return { written: false, skipped: 'no-snapshot-to-annotate', ...(summary ? { summary } : {}) };
  const name = result.path?.slice(input.sessionsDir.length + 1);
  if (name) {
    indexSnapshot(input.sessionsDir, name, where, rt);
    // Pruning is due at most once an hour; done here, session start's fast path never waits for it.
    discoverSnapshot(input.sessionsDir, where, rt, { maxAgeMs: 0, retentionDays: input.retentionDays, find: false });
  }
  const finalId = result.snapshot?.shortId ?? builtId;
  // Proposed memories from the lines new since the last snapshot, next to the snapshots (before
  // the start record reads the sessions folder's mtime: the proposal writes change it); a failure
  // there never costs the snapshot.
  let proposals: RecordOutcome['proposals'];
  let notice: string | undefined;
  if (transcript)
    try {
      proposals = captureProposals(rt, {
        sessionsDir: input.sessionsDir,
        shortId: finalId,
        sessionId,
        worktree: where.worktree,
        transcript,
        harness: input.harness,
        event: input.event,
        deadline: input.deadline,
      });
      if (input.notice && input.event === 'stop') notice = reviewNotice(input.sessionsDir, where.worktree, rt);
    } catch (err) {
      proposals = { error: (err as Error)?.message ?? String(err) };
    }
  // An import records old sessions: the start record (the latest session's) is left to the hooks.
  if (importing || !name) {
    const base = { shortId: finalId, ...(summary ? { summary } : {}), ...(proposals ? { proposals } : {}) };
    return name ? { written: true, created, path: result.path!, ...base } : { written: false, skipped: 'unchanged', ...base };
  }
  // The start record of this worktree, for the next session start (start-cache.ts). The sessions
  // folder's mtime is read now, right after this hook's writes there; the memory list (ranked by
  // the snapshot as written, read back as session start will read it) takes longer, and anything
  // written meanwhile by another session makes the record stale rather than wrong.
  ensureStartDir(input.sessionsDir); // created first: making it changes the sessions folder
  const folderMtime = sessionsMtime(input.sessionsDir);
  const written = input.memories ? loadSnapshot(result.path!) : undefined;
  const memories = input.memories && written ? listForRecord(input.memories, written) : undefined;
  writeStartRecord(input.sessionsDir, where, name, folderMtime, memories ?? null, rt);
  return {
    written: true,
    created,
    path: result.path!,
    shortId: finalId,
    ...(summary ? { summary } : {}),
    ...(proposals ? { proposals } : {}),
    ...(notice ? { notice } : {}),
  };
}
