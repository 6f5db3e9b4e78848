/**
 * Rule: a memory lives at `<scope>/<kind>s/...` matching its frontmatter (a team memory in the
 * project folder would never be committed; a decision in notes/ is mis-filed).
 */
import { isSelected, keyLineIn, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Errors for memories whose scope or kind folder disagrees with their frontmatter. */
export function checkLocations(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of ctx.scan.invalid) {
    if (f.code !== 'location-mismatch' || !isSelected(ctx, f.path)) continue;
    const key = /scope/.test(f.message) ? 'scope' : 'kind';
    const line = keyLineIn(readInvalidText(f, ctx), false, key);
    out.push(diagnostic('error', 'location-mismatch', f.path, line, f.message, f.hint));
  }
  return out;
}
