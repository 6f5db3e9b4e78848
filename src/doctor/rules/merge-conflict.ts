/**
 * Rule: no unresolved git merge conflict in a memory file. Markers in the body still parse as
 * Markdown, so only this rule notices them.
 */
import { isSelected, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, isDocumentDiagnostic, type Diagnostic } from '../../diagnostics.js';

const MARKER = /^(?:<{7}|>{7})(?: |$)/;

/** The 1-based line of the first conflict marker, or undefined. */
export function conflictMarkerLine(text: string): number | undefined {
  if (!/^(?:<{7}|>{7})(?: |\r?$)/m.test(text)) return undefined; // the common case, without splitting
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) if (MARKER.test(lines[i]!)) return i + 1;
  return undefined;
}

/** Errors for files holding `<<<<<<<` / `>>>>>>>` conflict markers. */
export function checkMergeConflicts(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (path: string, text: string | undefined) => {
    const line = text === undefined ? undefined : conflictMarkerLine(text);
    if (line !== undefined) {
      out.push(
        diagnostic(
          'error',
          'merge-conflict',
          path,
          line,
          `unresolved merge conflict marker on line ${line}`,
          'resolve the conflict: keep one version of the lines between <<<<<<< and >>>>>>>, remove the markers',
        ),
      );
    }
  };
  for (const e of ctx.scan.entries) if (isSelected(ctx, e.path)) report(e.path, e.text);
  for (const f of ctx.scan.invalid) if (isDocumentDiagnostic(f.code) && isSelected(ctx, f.path)) report(f.path, readInvalidText(f, ctx));
  return out;
}
