/**
 * Rule: the scan saw everything. When a bound (entries, depth, bytes) was hit or a folder could
 * not be listed, reads are fail-closed and doctor cannot vouch for the rest: an error.
 */
import type { DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Errors for each reason the scan is incomplete. */
export function checkScanBounds(ctx: DoctorContext): Diagnostic[] {
  return ctx.scan.incompleteReasons.map((reason) => {
    const m = /: ((?:project|team|user)\/\S*)$/.exec(reason);
    const scope = /\b(project|team|user) scope\b/.exec(reason);
    return diagnostic(
      'error',
      'scan-incomplete',
      m ? m[1]! : scope ? `${scope[1]}/` : `${ctx.scopes[0] ?? 'team'}/`,
      undefined,
      `the vault could not be fully scanned: ${reason}`,
      'fix the folder (permissions, nesting) or split the vault; until then lookups answer "incomplete" instead of "not found"',
    );
  });
}
