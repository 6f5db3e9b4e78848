/**
 * Doctor findings as values: each problem has a severity, a stable code, the vault-relative path
 * of the file it is about, the line where it applies, a message and a fix hint (after vfile-message).
 * Messages never quote file content: they name fields, rules, ids and line numbers only.
 */
import type { Scope } from '../document/contract.js';
import type { DocumentErrorCode } from '../errors.js';

/** How bad a finding is. `error` fails `vault doctor`; `warning` fails it with `--strict`. */
export type Severity = 'error' | 'warning' | 'info';

/**
 * Stable problem codes. Never rename one: CI scripts and MCP clients match on them.
 * Parse failures use the document error codes (`invalid-field`, `unclosed-frontmatter`, ...).
 */
export type ProblemCode =
  | DocumentErrorCode
  | 'unreadable'
  | 'second-frontmatter'
  | 'merge-conflict'
  | 'sync-conflict'
  | 'duplicate-id'
  | 'broken-link'
  | 'location-mismatch'
  | 'suspected-secret'
  | 'gitignore-missing'
  | 'gitignore-wrong'
  | 'symlink'
  | 'scan-incomplete'
  | 'non-canonical'
  | 'filename-mismatch'
  | 'stray-file'
  | 'probably-superseded'
  | 'updated-before-created'
  | 'obsidian-tag'
  | 'index-missing'
  | 'index-stale'
  | 'editor-files'
  | 'invisible-characters'
  | 'team-links-local';

/** One finding. `line` is omitted when the problem is about the whole file or vault. */
export interface Problem {
  severity: Severity;
  code: ProblemCode | (string & {});
  /** vault-relative path (`team/decisions/mem_x.md`), or a folder (`project/`) for vault-level problems */
  path: string;
  /** 1-based line in the file, when it applies */
  line?: number;
  message: string;
  hint: string;
}

/** Counts in a {@link DoctorReport}. */
export interface DoctorCounts {
  errors: number;
  warnings: number;
  infos: number;
  /** valid memories read */
  memories: number;
  /** files with at least one problem */
  files: number;
  /** memory files checked per file (all of them, or the git-changed ones) */
  checked: number;
  /** hidden entries and editor files left alone */
  ignored: number;
  [key: string]: number;
}

/** The result of {@link runDoctor}: `ok` is false when an error (or, with `strict`, a warning) was found. */
export interface DoctorReport {
  ok: boolean;
  problems: Problem[];
  counts: DoctorCounts;
  /** scopes that were checked */
  scopes: Scope[];
  /** false when the scan hit a bound or could not read a folder (then there is a `scan-incomplete` error) */
  complete: boolean;
  /** `--changed <ref>` / `--staged`: which git selection limited the per-file checks */
  selection?: { mode: 'changed' | 'staged'; ref?: string; files: string[] };
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Sorts problems by path, then line, then severity, then code (stable, deterministic output). */
export function sortProblems(problems: Problem[]): Problem[] {
  return problems.sort(
    (a, b) =>
      cmp(a.path, b.path) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      cmp(a.code, b.code) ||
      cmp(a.message, b.message),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds a problem, leaving `line` out when it is unknown. */
export function problem(severity: Severity, code: ProblemCode, path: string, line: number | undefined, message: string, hint: string): Problem {
  const p: Problem = { severity, code, path, message, hint };
  if (line !== undefined && Number.isInteger(line) && line > 0) p.line = line;
  return { severity: p.severity, code: p.code, path: p.path, ...(p.line !== undefined ? { line: p.line } : {}), message: p.message, hint: p.hint };
}
