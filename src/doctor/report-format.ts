/**
 * Renders a {@link DoctorReport} for people (grouped by file, one summary line) and for GitHub
 * Actions (workflow commands `::error file=...,line=...::...`). Pure string functions: the caller
 * supplies colours (or none) and the function that maps a vault path to a repository path.
 */
import type { Diagnostic, Severity } from '../diagnostics.js';
import type { DoctorReport } from './report.js';

/** Colour functions; identity functions when colour is off. */
export interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  green(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const plain = (s: string) => s;
/** No colour. */
export const NO_PAINT: Paint = { red: plain, yellow: plain, blue: plain, green: plain, dim: plain, bold: plain };

function plural(n: number, word: string): string {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${word.endsWith('y') ? `${word.slice(0, -1)}ies` : `${word}s`}`;
}

/** The one-line summary, e.g. `2 errors, 1 warning in 2 files (120 memories)`. */
export function summaryLine(report: DoctorReport, strict = false): string {
  const c = report.counts;
  const scope = report.selection
    ? `${plural(c.checked, 'changed memory file')} checked, ${plural(c.memories, 'valid memory')} in the vault`
    : `${plural(c.checked, 'memory file')} checked, ${c.memories} valid`;
  if (c.errors + c.warnings + c.infos === 0) return `no problems (${scope})`;
  const parts = [plural(c.errors, 'error'), plural(c.warnings, 'warning')];
  if (c.infos) parts.push(`${c.infos} info`);
  return `${parts.join(', ')} in ${plural(c.files, 'file')} (${scope})${strict && c.warnings > 0 && !report.ok ? '; --strict: warnings fail' : ''}`;
}

/**
 * The report for a terminal: problems grouped by file, then the summary line.
 *
 * @param clean makes untrusted text (messages, hints) safe for a terminal
 * @param name shows a file's path (default `clean`); see displayName, which keeps names distinct
 */
export function formatText(report: DoctorReport, paint: Paint, clean: (s: string) => string, strict = false, name: (s: string) => string = clean): string {
  const out: string[] = [];
  const label: Record<Severity, string> = { error: paint.red('error'), warning: paint.yellow('warning'), info: paint.blue('info') };
  let current: string | undefined;
  for (const p of report.problems) {
    if (p.path !== current) {
      if (current !== undefined) out.push('');
      out.push(paint.bold(name(p.path)));
      current = p.path;
    }
    const where = p.line !== undefined ? String(p.line) : '-';
    out.push(`  ${paint.dim(where.padStart(4))}  ${label[p.severity]}${' '.repeat(8 - p.severity.length)}${clean(p.message)}  ${paint.dim(p.code)}`);
    out.push(`        ${paint.dim(`fix: ${clean(p.hint)}`)}`);
  }
  if (out.length) out.push('');
  const summary = summaryLine(report, strict);
  out.push(report.ok ? (report.counts.warnings ? paint.yellow(summary) : paint.green(summary)) : paint.red(summary));
  return `${out.join('\n')}\n`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * GitHub Actions workflow commands, one per problem, then the summary as a plain line.
 * Severity maps to `error`, `warning` or `notice`. Values are escaped by GitHub's rules (`%25`,
 * `%0D`, `%0A`; in properties also `%3A`, `%2C`) and nothing else is dropped, so `file=` names
 * exactly the file in the repository.
 *
 * @param repoPath maps a vault path to a path relative to the repository root (what GitHub
 *   matches against the pull request's files)
 */
export function formatGithub(report: DoctorReport, repoPath: (p: Diagnostic) => string, strict = false): string {
  const cmd: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };
  const lines = report.problems.map((p) => {
    const props = [`file=${escapeProperty(repoPath(p))}`];
    if (p.line !== undefined) props.push(`line=${p.line}`);
    props.push(`title=${escapeProperty(`vault doctor: ${p.code}`)}`);
    return `::${cmd[p.severity]} ${props.join(',')}::${escapeData(`${p.message}. Fix: ${p.hint}`)}`;
  });
  lines.push(summaryLine(report, strict));
  return `${lines.join('\n')}\n`;
}
