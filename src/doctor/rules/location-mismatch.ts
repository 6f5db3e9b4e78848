/**
 * Rule: a memory lives at `<scope>/<kind>s/...` matching its frontmatter (a team memory in the
 * project folder would never be committed; a decision in notes/ is mis-filed).
 */
import { isSelected, keyLineIn, readInvalidText, type DoctorContext } from '../rule-context.js';
import { problem, type Problem } from '../report.js';

/** Errors for memories whose scope or kind folder disagrees with their frontmatter. */
export function checkLocations(ctx: DoctorContext): Problem[] {
  const out: Problem[] = [];
  for (const f of ctx.scan.invalid) {
    if (f.kind !== 'location-mismatch' || !isSelected(ctx, f.path)) continue;
    const key = /scope/.test(f.message) ? 'scope' : 'kind';
    const line = keyLineIn(readInvalidText(f, ctx), false, key);
    out.push(problem('error', 'location-mismatch', f.path, line, f.message, f.hint ?? 'move the file or fix the frontmatter'));
  }
  return out;
}
