/**
 * What `vault doctor` reports: its findings (diagnostics, see src/diagnostics.ts: one shape from
 * the scanner to doctor to search to MCP), counts, the scopes checked and the git selection.
 */
import type { Scope } from '../document/contract.js';
import type { Diagnostic } from '../diagnostics.js';

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
  /** the findings, sorted by path and line (see sortDiagnostics) */
  problems: Diagnostic[];
  counts: DoctorCounts;
  /** scopes that were checked */
  scopes: Scope[];
  /** false when the scan hit a bound or could not read a folder (then there is a `scan-incomplete` error) */
  complete: boolean;
  /** `--changed <ref>` / `--staged`: which git selection limited the per-file checks */
  selection?: { mode: 'changed' | 'staged'; ref?: string; files: string[] };
}
