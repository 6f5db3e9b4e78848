/**
 * Findings as values (after vfile-message): a {@link Diagnostic} says which file (and line), which
 * rule (`code`, a stable id), how bad, what is wrong and how to fix it. The scanner, the search
 * index, doctor and the MCP server all speak this one shape; failures that stop an operation are
 * exceptions instead (VaultError, errors.ts). Messages never quote file content: they name
 * fields, rules, ids and line numbers only.
 */
import { DOCUMENT_ERROR_CODES } from './errors.js';

/** How bad a finding is. `error` fails `vault doctor`; `warning` fails it with `--strict`. */
export type Severity = 'error' | 'warning' | 'info';

export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/**
 * Every diagnostic code. Never rename one: CI scripts and MCP clients match on them. A file that
 * cannot be parsed or validated carries its document error code (`invalid-field`,
 * `unclosed-frontmatter`, ...; see errors.ts).
 */
export const DIAGNOSTIC_CODES = [
  ...DOCUMENT_ERROR_CODES,
  /** a document that failed to parse for a reason the parser did not name */
  'invalid-document',
  /** the file could not be opened or read */
  'unreadable',
  /** scope or kind folder disagrees with the frontmatter */
  'location-mismatch',
  /** a credential shape in an existing file */
  'suspected-secret',
  'second-frontmatter',
  'merge-conflict',
  'sync-conflict',
  'duplicate-id',
  'broken-link',
  'gitignore-missing',
  'gitignore-wrong',
  'symlink',
  'scan-incomplete',
  'non-canonical',
  'filename-mismatch',
  'stray-file',
  'probably-superseded',
  'updated-before-created',
  'obsidian-tag',
  'index-missing',
  'index-stale',
  'invisible-characters',
  'team-links-local',
  /** a killed save's temporary file, or a memory with a second hard link */
  'save-leftover',
  /** an active handoff older than ECC_HANDOFF_STALE_DAYS (default 30) */
  'stale-handoff',
  /** an active memory with the same title and body as an older active one */
  'duplicate-memory',
] as const;

/** A stable diagnostic code (the rule id). */
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

/** One finding. `line` and `column` are omitted when the finding is about a whole file or the vault. */
export interface Diagnostic {
  /** vault-relative path (`team/decisions/mem_x.md`), or a folder (`project/`) for a finding about the vault */
  path: string;
  /** 1-based line in the file */
  line?: number;
  /** 1-based column (UTF-16 units) on that line */
  column?: number;
  code: DiagnosticCode;
  severity: Severity;
  /** what is wrong, one sentence; never file content */
  message: string;
  /** how a person fixes it, one sentence */
  hint: string;
}

const CODES: ReadonlySet<string> = new Set(DIAGNOSTIC_CODES);

/** True for a known diagnostic code. */
export function isDiagnosticCode(code: unknown): code is DiagnosticCode {
  return typeof code === 'string' && CODES.has(code);
}

/** True for a document error code (a file that cannot be parsed or validated), `invalid-document` included. */
export function isDocumentDiagnostic(code: DiagnosticCode): boolean {
  return code === 'invalid-document' || (DOCUMENT_ERROR_CODES as readonly string[]).includes(code);
}

/**
 * Builds a diagnostic, leaving `line` (and `column`) out when unknown or not a positive whole
 * number. Keys come in the order `vault doctor --json` has always printed them.
 */
export function diagnostic(
  severity: Severity,
  code: DiagnosticCode,
  path: string,
  line: number | undefined,
  message: string,
  hint: string,
  column?: number,
): Diagnostic {
  const at = (n: number | undefined) => n !== undefined && Number.isInteger(n) && n > 0;
  return {
    severity,
    code,
    path,
    ...(at(line) ? { line } : {}),
    ...(at(line) && at(column) ? { column } : {}),
    message,
    hint,
  };
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts diagnostics by path, then line, then severity, then code, then message (stable, deterministic output). */
export function sortDiagnostics<T extends Diagnostic>(list: T[]): T[] {
  return list.sort(
    (a, b) =>
      cmp(a.path, b.path) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      cmp(a.code, b.code) ||
      cmp(a.message, b.message),
  );
}
