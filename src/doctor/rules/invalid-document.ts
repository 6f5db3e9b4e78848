/**
 * Rule: every memory file must parse as an ecc.memory.v1 document. Reports the exact reason
 * (the document error code), with the line where it applies; never quotes the file.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, isDocumentDiagnostic, type Diagnostic } from '../../diagnostics.js';

/** Errors for unreadable and invalid documents found by the scan. */
export function checkInvalidDocuments(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of ctx.scan.invalid) {
    if (f.code !== 'unreadable' && !isDocumentDiagnostic(f.code)) continue;
    if (!isSelected(ctx, f.path)) continue;
    out.push(diagnostic('error', f.code, f.path, f.line, f.message, f.hint));
  }
  return out;
}
