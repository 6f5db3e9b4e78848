/**
 * Rule: one frontmatter block per file. When an editor or a paste adds a second `---` block, the
 * file still parses (the second block becomes the start of the body), but its values are
 * silently ignored: an error that names the line where the second block starts.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** The 1-based line where a second frontmatter block starts, or undefined. */
export function secondFrontmatterLine(text: string): number | undefined {
  if (text.split('---', 4).length < 4) return undefined; // fewer than three markers: no second block
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let i = 1;
  while (i < lines.length && lines[i] !== '---') i++; // closing marker of the first block
  i++;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (lines[i] !== '---') return undefined;
  const start = i;
  let keys = 0;
  for (i++; i < lines.length; i++) {
    if (lines[i] === '---') return keys > 0 ? start + 1 : undefined;
    if (/^[A-Za-z_][\w-]*\s*:/.test(lines[i]!)) keys++;
  }
  return undefined;
}

/** Errors for memories whose body starts with another frontmatter block. */
export function checkSecondFrontmatter(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (!isSelected(ctx, e.path) || e.text === undefined) continue;
    const line = secondFrontmatterLine(e.text);
    if (line === undefined) continue;
    out.push(
      diagnostic(
        'error',
        'second-frontmatter',
        e.path,
        line,
        `a second frontmatter block starts on line ${line}; its values are ignored`,
        'merge the values you want into the first block (one line per field) and delete the second block',
      ),
    );
  }
  return out;
}
