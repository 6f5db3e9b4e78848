/**
 * `vault sessions import` as a library operation ({@link importSessions}): backfills session
 * snapshots (and proposed memories) from transcripts already on disk, through the one snapshot
 * path the hooks use (record-session.ts, event `import`). Idempotent: a transcript that has not
 * changed leaves its snapshot byte for byte; one that has grown updates its snapshot (keyed by
 * session id), never adds a second. Reads transcripts and the repository's git files; writes
 * only in the sessions folder, never in a vault.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { homeDir } from '../store/roots.js';
import { recordSession } from './record-session.js';
import { identifyWorktree } from './snapshots/worktree-identity.js';
import { checkTranscriptPath, DEFAULT_TRANSCRIPT_MAX_BYTES } from './transcripts/read-transcript.js';
import type { Harness } from './transcripts/transcript-summary.js';

/** Bounds of one import run (stated in `vault sessions import --help` and docs/capture.md). */
export const IMPORT_LIMITS = {
  /** largest transcript imported, bytes (64 MiB: the reader's whole budget, so nothing is read as windows); larger ones are skipped */
  transcriptBytes: DEFAULT_TRANSCRIPT_MAX_BYTES,
  /** most transcripts imported per run (newest first); the rest are skipped and counted */
  files: 1000,
  /** most directory entries looked at while finding transcripts */
  entries: 200_000,
  /** deepest folder level searched under a root or a PATH */
  depth: 6,
  /** bytes of a transcript's start read to find its cwd */
  headBytes: 256 * 1024,
  /** time one transcript may take, ms */
  perFileMs: 30_000,
} as const;

/** Why a transcript was not imported. */
export type ImportSkipReason =
  | 'symlink'
  | 'too-large'
  | 'over-file-limit'
  | 'other-repository'
  | 'before-since'
  | 'no-cwd'
  | 'empty'
  | 'unreadable'
  | 'not-transcript';

/** Options of {@link importSessions}. */
export interface ImportOptions {
  sessionsDir: string;
  /** transcript files or folders given by the user (absolute or relative to the runtime's cwd); none: the harnesses' own folders */
  paths?: readonly string[];
  /** only this harness's transcripts (and the harness of every PATH) */
  harness?: Harness;
  /** only transcripts modified at or after this time, ms since epoch */
  sinceMs?: number;
  /** every repository's sessions (default: only those whose cwd is in the current repository) */
  all?: boolean;
  /** largest transcript, bytes (default and most {@link IMPORT_LIMITS}.transcriptBytes) */
  maxBytes?: number;
  /** most transcripts per run (default {@link IMPORT_LIMITS}.files) */
  maxFiles?: number;
  /** called after each transcript (done, total) */
  onProgress?: (done: number, total: number) => void;
}

/** One transcript's outcome. */
export interface ImportedFile {
  path: string;
  harness: Harness;
  outcome: 'imported' | 'updated' | 'unchanged' | 'skipped';
  reason?: ImportSkipReason;
  shortId?: string;
  /** proposals stored by this run */
  proposals?: number;
}

/** What {@link importSessions} did. */
export interface ImportSummary {
  /** transcripts found (before any filter) */
  found: number;
  imported: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** skipped transcripts by reason */
  skippedBy: Partial<Record<ImportSkipReason, number>>;
  /** proposals stored by this run */
  proposals: number;
  /** directory entries left unlooked at (the entry bound was reached) */
  entriesCut: boolean;
  files: ImportedFile[];
}

interface Found {
  path: string;
  size: number;
  mtimeMs: number;
  /** a symbolic link: skipped, never followed */
  link?: boolean;
  /** a file given by name that is not a transcript (`*.jsonl`): counted and skipped, never opened */
  notTranscript?: boolean;
}

interface Candidate extends Found {
  harness: Harness;
}

/** The harnesses' transcript folders: `~/.claude/projects` and `$CODEX_HOME/sessions` (default `~/.codex/sessions`). */
export function transcriptRoots(rt: Runtime): Array<{ harness: Harness; dir: string }> {
  const home = homeDir(rt, 'ECC_SESSIONS_DIR');
  const codexHome = rt.env.CODEX_HOME && isAbsolute(rt.env.CODEX_HOME) ? rt.env.CODEX_HOME : join(home, '.codex');
  return [
    { harness: 'claude-code', dir: join(home, '.claude', 'projects') },
    { harness: 'codex', dir: join(codexHome, 'sessions') },
  ];
}

const CODEX_TYPES = new Set([
  'session_meta',
  'turn_context',
  'response_item',
  'event_msg',
  'compacted',
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
]);

/**
 * The harness one record shows: Claude Code records carry `uuid` / `sessionId` / `parentUuid`;
 * Codex rollouts have `{type, payload}` envelopes, or (older ones) bare response items and a
 * first record of `id`, `timestamp`, `instructions`.
 */
function recordHarness(rec: Record<string, unknown>): Harness | undefined {
  if ('uuid' in rec || 'sessionId' in rec || 'parentUuid' in rec) return 'claude-code';
  if ((typeof rec.type === 'string' && CODEX_TYPES.has(rec.type)) || 'instructions' in rec || 'record_type' in rec) return 'codex';
  return undefined;
}

/**
 * Every `*.jsonl` regular file under `dir` (or `dir` itself), never through a symbolic link,
 * skipping Claude Code's `subagents` folders (the reader takes them with their session).
 */
function walk(dir: string, depth: number, budget: { entries: number; cut: boolean }, out: Found[]): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink()) {
    if (dir.endsWith('.jsonl')) out.push({ path: dir, size: 0, mtimeMs: 0, link: true }); // counted, never opened
    return;
  }
  if (st.isFile()) {
    if (dir.endsWith('.jsonl')) out.push({ path: dir, size: st.size, mtimeMs: st.mtimeMs });
    else if (depth === 0) out.push({ path: dir, size: st.size, mtimeMs: st.mtimeMs, notTranscript: true }); // named by the user: say why it was not imported
    return;
  }
  if (!st.isDirectory() || depth > IMPORT_LIMITS.depth) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (budget.entries-- <= 0) {
      budget.cut = true;
      return;
    }
    if (name === 'subagents' || name.startsWith('.')) continue;
    walk(join(dir, name), depth + 1, budget, out);
  }
}

/**
 * What a transcript's first bytes tell: the cwd it records (Claude Code: a record's `cwd`;
 * Codex: the `session_meta` / `turn_context` payload's) and its harness (a `rollout-*.jsonl`
 * name is Codex; else its records).
 */
function sniff(path: string): { cwd: string | undefined; harness: Harness } {
  let harness: Harness | undefined = basename(path).startsWith('rollout-') ? 'codex' : undefined;
  let cwd: string | undefined;
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return { cwd, harness: harness ?? 'claude-code' };
    const buf = Buffer.alloc(IMPORT_LIMITS.headBytes);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const lines = buf.toString('utf8', 0, n).split('\n');
    if (n === buf.length) lines.pop(); // a cut last line
    for (const line of lines) {
      if (cwd && harness) break;
      try {
        const rec = JSON.parse(line) as Record<string, unknown> & { payload?: { cwd?: unknown } };
        if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) continue;
        harness ??= recordHarness(rec);
        const c = typeof rec.cwd === 'string' ? rec.cwd : typeof rec.payload?.cwd === 'string' ? rec.payload.cwd : undefined;
        if (!cwd && c && isAbsolute(c) && c.length <= 4096 && !c.includes('\u0000')) cwd = c;
      } catch {
        /* not a record */
      }
    }
  } catch {
    /* unreadable: the reader says so later */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return { cwd, harness: harness ?? 'claude-code' };
}

/**
 * Imports transcripts into session snapshots and proposals (see the module comment). Newest
 * transcripts first; past the file limit the rest are skipped and counted. Files over the size
 * limit are skipped whole (never read as windows), and counted.
 *
 * @throws VaultError `invalid-input` (a limit out of range), `not-found` (a given path does not
 *   exist), `io-error` (sessions folder)
 */
export function importSessions(rt: Runtime, options: ImportOptions): ImportSummary {
  const maxBytes = options.maxBytes ?? IMPORT_LIMITS.transcriptBytes;
  const maxFiles = options.maxFiles ?? IMPORT_LIMITS.files;
  if (!(maxBytes > 0 && maxBytes <= IMPORT_LIMITS.transcriptBytes))
    throw new VaultError('invalid-input', 'the transcript size limit (--max-mib) must be more than 0 and at most 64 MiB', {
      field: 'max-mib',
      rule: 'more than 0, at most 64 (MiB)',
      hint: 'leave it out for 64',
    });
  if (!(Number.isInteger(maxFiles) && maxFiles > 0 && maxFiles <= IMPORT_LIMITS.files))
    throw new VaultError('invalid-input', 'the transcript count limit is out of range', {
      field: 'max-files',
      rule: `a whole number from 1 to ${IMPORT_LIMITS.files}`,
    });
  const budget = { entries: IMPORT_LIMITS.entries, cut: false };
  const found: Candidate[] = [];
  const seen = new Set<string>();
  const add = (harness: Harness | undefined, files: Found[]) => {
    for (const f of files) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      const h = harness ?? options.harness ?? (f.link || f.notTranscript ? 'claude-code' : sniff(f.path).harness);
      if (!options.harness || h === options.harness) found.push({ ...f, harness: h });
    }
  };
  // a path the user named that does not exist is a mistake, not "0 transcripts found"
  for (const p of options.paths ?? []) {
    if (!lstatSync(resolve(rt.cwd, p), { throwIfNoEntry: false }))
      throw new VaultError('not-found', `${p.slice(0, 200)} does not exist`, {
        field: 'path',
        hint: 'give transcript files (*.jsonl) or folders holding them; with no path, import reads ~/.claude/projects and ~/.codex/sessions',
      });
  }
  if (options.paths?.length)
    for (const p of options.paths) {
      const files: Found[] = [];
      walk(resolve(rt.cwd, p), 0, budget, files);
      add(undefined, files);
    }
  else
    for (const root of transcriptRoots(rt)) {
      if (options.harness && root.harness !== options.harness) continue;
      const files: Found[] = [];
      walk(root.dir, 0, budget, files);
      add(root.harness, files);
    }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));

  const here = options.all ? undefined : identifyWorktree(rt.cwd);
  const summary: ImportSummary = {
    found: found.length,
    imported: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    skippedBy: {},
    proposals: 0,
    entriesCut: budget.cut,
    files: [],
  };
  const skip = (c: Candidate, reason: ImportSkipReason) => {
    summary.skipped++;
    summary.skippedBy[reason] = (summary.skippedBy[reason] ?? 0) + 1;
    summary.files.push({ path: c.path, harness: c.harness, outcome: 'skipped', reason });
  };
  let taken = 0;
  const refuse = (c: Candidate): ImportSkipReason | { cwd: string } => {
    if (c.link) return 'symlink';
    if (c.notTranscript) return 'not-transcript';
    if (options.sinceMs !== undefined && c.mtimeMs < options.sinceMs) return 'before-since';
    if (c.size > maxBytes) return 'too-large';
    if (!checkTranscriptPath(c.path).ok) return 'unreadable';
    const { cwd } = sniff(c.path);
    if (!cwd) return 'no-cwd';
    if (here) {
      const there = identifyWorktree(cwd);
      if (!(here.repo ? there.repo === here.repo : there.worktree === here.worktree)) return 'other-repository';
    }
    return taken >= maxFiles ? 'over-file-limit' : { cwd };
  };
  for (const [i, c] of found.entries()) {
    options.onProgress?.(i, found.length);
    const checked = refuse(c);
    if (typeof checked === 'string') {
      skip(c, checked);
      continue;
    }
    const { cwd } = checked;
    taken++;
    const r = recordSession(rt, {
      harness: c.harness,
      event: 'import',
      transcriptPath: c.path,
      sessionId: undefined,
      cwd,
      sessionsDir: options.sessionsDir,
      deadline: rt.now().getTime() + IMPORT_LIMITS.perFileMs,
      transcriptMaxBytes: IMPORT_LIMITS.transcriptBytes,
    });
    const proposals = r.proposals && 'added' in r.proposals ? r.proposals.added : 0;
    summary.proposals += proposals;
    if (r.written) {
      const outcome = r.created ? 'imported' : 'updated';
      summary[outcome]++;
      summary.files.push({ path: c.path, harness: c.harness, outcome, ...(r.shortId ? { shortId: r.shortId } : {}), proposals });
    } else if (r.skipped === 'unchanged') {
      summary.unchanged++;
      summary.files.push({ path: c.path, harness: c.harness, outcome: 'unchanged', ...(r.shortId ? { shortId: r.shortId } : {}), proposals });
    } else skip(c, r.skipped === 'empty-transcript' ? 'empty' : r.skipped === 'no-session-id' || r.skipped === 'no-transcript' ? 'no-cwd' : 'unreadable');
  }
  options.onProgress?.(found.length, found.length);
  return summary;
}
