/**
 * Rule: `updated_at` is not earlier than `created_at`. Both are valid timestamps (the document
 * rules hold that); their order is a hand-edit slip or a clock problem: a warning.
 */
import { isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Warnings for memories updated before they were created. */
export function checkTimestamps(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (!isSelected(ctx, e.path)) continue;
    // ISO-8601 UTC with milliseconds: string order is time order
    if (e.memory.updatedAt >= e.memory.createdAt) continue;
    out.push(
      diagnostic(
        'warning',
        'updated-before-created',
        e.path,
        keyLine(e, 'updated_at'),
        `updated_at ${e.memory.updatedAt} is earlier than created_at ${e.memory.createdAt}`,
        'set updated_at to the time of the last change (at least created_at), in UTC with milliseconds',
      ),
    );
  }
  return out;
}
