/**
 * Streaming transcript reading: validates the path a hook payload names, then reads the JSONL
 * file in 1 MiB chunks (never whole into memory), one JSON record per line. Invalid lines,
 * a half-written last line and non-record JSON are counted, never fatal. Files larger than the
 * byte budget are read as a head window (the goal) plus a tail window (the recent state); a
 * deadline stops the read early. Both are recorded in the summary (`skippedBytes`, `truncated`).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { VaultError } from '../../errors.js';
import { createClaudeReader, type TranscriptRecordReader } from './claude-transcript.js';
import { createCodexReader } from './codex-transcript.js';
import { pushRecent, SUMMARY_LIMITS, type Harness, type TranscriptSummary } from './transcript-summary.js';

/** Default byte budget of one transcript read: 64 MiB (head 8 MiB + tail 56 MiB beyond that). */
export const DEFAULT_TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;
const CHUNK = 1024 * 1024;
/** A single line longer than this is skipped as invalid (protects memory). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const MAX_PATH_CHARS = 4096;
const MAX_SUBAGENT_FILES = 32;

/** Why a transcript path was refused. */
export type TranscriptPathProblem = 'not-a-string' | 'too-long' | 'not-absolute' | 'traversal' | 'not-jsonl' | 'missing' | 'symlink' | 'not-a-regular-file';

/**
 * Checks a transcript path from a hook payload before anything opens it.
 *
 * Rules: a string of at most 4,096 characters without NUL, absolute, with no `.` or `..`
 * segment, ending in `.jsonl`, naming an existing regular file that is not a symbolic link.
 *
 * @returns the path, or the rule it broke
 */
export function checkTranscriptPath(raw: unknown): { ok: true; path: string } | { ok: false; problem: TranscriptPathProblem } {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, problem: 'not-a-string' };
  if (raw.length > MAX_PATH_CHARS || raw.includes('\u0000')) return { ok: false, problem: 'too-long' };
  if (!isAbsolute(raw)) return { ok: false, problem: 'not-absolute' };
  if (raw.split(/[\\/]+/).some((seg) => seg === '..' || seg === '.')) return { ok: false, problem: 'traversal' };
  if (!raw.endsWith('.jsonl')) return { ok: false, problem: 'not-jsonl' };
  let st;
  try {
    st = lstatSync(raw);
  } catch {
    return { ok: false, problem: 'missing' };
  }
  if (st.isSymbolicLink()) return { ok: false, problem: 'symlink' };
  if (!st.isFile()) return { ok: false, problem: 'not-a-regular-file' };
  return { ok: true, path: raw };
}

/** Options of {@link readTranscript}. */
export interface ReadTranscriptOptions {
  harness: Harness;
  /** byte budget (default {@link DEFAULT_TRANSCRIPT_MAX_BYTES}) */
  maxBytes?: number;
  /** absolute time (ms since epoch) after which reading stops */
  deadline?: number;
  /** clock for the deadline (ms since epoch) */
  now?: () => number;
  /** read Claude Code 2.x `<session>/subagents/agent-*.jsonl` files too (default true) */
  subagents?: boolean;
}

interface LineStats {
  invalidLines: number;
  bytesRead: number;
  stoppedEarly: boolean;
}

let shared: Buffer | undefined;
/** One read buffer for the process: reads are synchronous and never nested. */
function chunkBuffer(): Buffer {
  shared ??= Buffer.allocUnsafe(CHUNK);
  return shared;
}

/**
 * Feeds every complete JSON line of `[start, end)` of an open file to `onRecord`.
 *
 * @param skipFirst drop the bytes up to the first newline (a window starting mid-line)
 * @param dropLast drop a trailing line without newline (a window ending mid-line)
 */
function forEachJsonLine(
  fd: number,
  start: number,
  end: number,
  skipFirst: boolean,
  dropLast: boolean,
  reader: TranscriptRecordReader,
  overdue: () => boolean,
): LineStats {
  const stats: LineStats = { invalidLines: 0, bytesRead: 0, stoppedEarly: false };
  const buf = chunkBuffer();
  let carry: Buffer[] = [];
  let carryLen = 0;
  let skipping = skipFirst;
  let oversized = false;
  const parse = (line: Buffer) => {
    let len = line.length;
    if (len > 0 && line[len - 1] === 13) len--;
    if (len === 0) return;
    let i = 0;
    while (i < len && (line[i] === 32 || line[i] === 9)) i++;
    if (i === len) return;
    if (reader.skipRaw?.(line, i, len)) return;
    try {
      reader.onRecord(JSON.parse(line.toString('utf8', i, len)));
    } catch {
      stats.invalidLines++;
    }
  };
  let pos = start;
  while (pos < end) {
    if (overdue()) {
      stats.stoppedEarly = true;
      break;
    }
    const n = readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos);
    if (n === 0) break;
    pos += n;
    stats.bytesRead += n;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(10, from);
      if (nl === -1 || nl >= n) break;
      if (skipping) skipping = false;
      else if (oversized) {
        oversized = false;
        stats.invalidLines++;
      } else if (carryLen > 0) {
        carry.push(buf.subarray(from, nl));
        parse(Buffer.concat(carry));
        carry = [];
        carryLen = 0;
      } else parse(buf.subarray(from, nl));
      from = nl + 1;
    }
    if (from < n && !skipping && !oversized) {
      carryLen += n - from;
      if (carryLen > MAX_LINE_BYTES) {
        oversized = true;
        carry = [];
        carryLen = 0;
      } else carry.push(Buffer.from(buf.subarray(from, n)));
    }
  }
  if (!stats.stoppedEarly && !dropLast && carryLen > 0)
    parse(Buffer.concat(carry)); // a last line without newline (maybe half-written)
  else if (oversized) stats.invalidLines++;
  return stats;
}

function openRegular(path: string): { fd: number; size: number } {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) throw new VaultError('invalid-input', 'transcript is not a regular file', { field: 'transcript_path', rule: 'regular file' });
    return { fd, size: st.size };
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (err instanceof VaultError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new VaultError('io-error', `transcript cannot be opened (${code})`, { field: 'transcript_path', cause: err });
  }
}

/** Reads one file through `reader` within the budget; returns bytes skipped and early stop. */
function readInto(
  path: string,
  reader: TranscriptRecordReader,
  maxBytes: number,
  overdue: () => boolean,
): { skipped: number; invalid: number; stoppedEarly: boolean } {
  const { fd, size } = openRegular(path);
  try {
    if (size <= maxBytes) {
      const st = forEachJsonLine(fd, 0, size, false, false, reader, overdue);
      return { skipped: size - st.bytesRead, invalid: st.invalidLines, stoppedEarly: st.stoppedEarly };
    }
    const head = Math.min(8 * 1024 * 1024, Math.floor(maxBytes / 4));
    const tail = maxBytes - head;
    const a = forEachJsonLine(fd, 0, head, false, true, reader, overdue);
    const b = a.stoppedEarly ? { invalidLines: 0, bytesRead: 0, stoppedEarly: true } : forEachJsonLine(fd, size - tail, size, true, false, reader, overdue);
    return { skipped: size - a.bytesRead - b.bytesRead, invalid: a.invalidLines + b.invalidLines, stoppedEarly: a.stoppedEarly || b.stoppedEarly };
  } finally {
    closeSync(fd);
  }
}

/** The Claude Code 2.x subagent transcripts of a session file, if any (regular files only). */
function subagentFiles(transcript: string): string[] {
  const dir = join(transcript.slice(0, -'.jsonl'.length), 'subagents');
  try {
    if (!lstatSync(dir).isDirectory()) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && /^agent-[A-Za-z0-9_-]{1,128}\.jsonl$/.test(d.name))
      .map((d) => join(dir, d.name))
      .sort()
      .slice(0, MAX_SUBAGENT_FILES);
  } catch {
    return [];
  }
}

/**
 * Reads a transcript into a bounded summary.
 *
 * @param path a path accepted by {@link checkTranscriptPath}
 * @throws VaultError `invalid-input` (not a regular file), `io-error` (cannot be opened)
 */
export function readTranscript(path: string, options: ReadTranscriptOptions): TranscriptSummary {
  const maxBytes = Math.max(64 * 1024, options.maxBytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES);
  const now = options.now ?? (() => 0);
  const overdue = options.deadline === undefined ? () => false : () => now() > options.deadline!;
  const reader = options.harness === 'codex' ? createCodexReader() : createClaudeReader();
  const main = readInto(path, reader, maxBytes, overdue);
  const summary = reader.finish();
  summary.invalidLines += main.invalid;
  summary.skippedBytes += main.skipped;
  summary.truncated ||= main.stoppedEarly;
  if (options.harness === 'claude-code' && options.subagents !== false && !main.stoppedEarly) {
    for (const file of subagentFiles(path)) {
      if (overdue()) {
        summary.truncated = true;
        break;
      }
      try {
        const sub = createClaudeReader({ sidechainOnly: true });
        const r = readInto(file, sub, maxBytes, overdue);
        const s = sub.finish();
        for (const f of s.files) pushRecent(summary.files, f, SUMMARY_LIMITS.files);
        for (const c of s.commands) pushRecent(summary.commands, c, SUMMARY_LIMITS.commands);
        for (const e of s.toolErrors.slice(-2)) summary.toolErrors.push(`${basename(file, '.jsonl')}: ${e}`);
        if (summary.toolErrors.length > SUMMARY_LIMITS.toolErrors) summary.toolErrors.splice(0, summary.toolErrors.length - SUMMARY_LIMITS.toolErrors);
        summary.invalidLines += r.invalid;
      } catch {
        /* an unreadable subagent file does not spoil the session's snapshot */
      }
    }
  }
  return summary;
}

/**
 * Reads the bytes of a transcript from `from` on, at most `maxBytes` of them, through the same
 * no-follow open as {@link readTranscript}: for readers that go on from where they stopped (the
 * proposal extractor). A file now shorter than `from` was replaced: `restart` is true and the
 * bytes are read from 0.
 *
 * @param path a path accepted by {@link checkTranscriptPath}
 * @returns the bytes read, the file's size, where they start, and whether the read restarted
 * @throws VaultError `invalid-input` (not a regular file), `io-error` (cannot be opened)
 */
export function readTranscriptBytes(path: string, from: number, maxBytes: number): { bytes: Buffer; size: number; start: number; restart: boolean } {
  const { fd, size } = openRegular(path);
  try {
    const restart = from > size;
    const start = restart ? 0 : from;
    const want = Math.max(0, Math.min(maxBytes, size - start));
    const bytes = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, bytes, got, want - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: got === want ? bytes : bytes.subarray(0, got), size, start, restart };
  } finally {
    closeSync(fd);
  }
}
