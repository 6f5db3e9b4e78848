/**
 * Rule: every memory file must parse as an ecc.memory.v1 document. Reports the exact reason
 * (the document error code), with the line where it applies; never quotes the file.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { problem, type Problem, type ProblemCode } from '../report.js';

/** Errors for unreadable and invalid documents found by the scan. */
export function checkInvalidDocuments(ctx: DoctorContext): Problem[] {
  const out: Problem[] = [];
  for (const f of ctx.scan.invalid) {
    if (f.kind !== 'invalid-document' && f.kind !== 'unreadable') continue;
    if (!isSelected(ctx, f.path)) continue;
    const hint = f.hint ?? (f.kind === 'unreadable' ? 'check the file permissions' : 'fix the file so it matches ecc.memory.v1 (see docs/format.md)');
    out.push(problem('error', f.code as ProblemCode, f.path, f.line, f.message, hint));
  }
  return out;
}
