/**
 * Rule: an active handoff is a note to the next session; one older than the stale age (default 30
 * days, `ECC_HANDOFF_STALE_DAYS` in the adapters) has most likely been picked up or overtaken, and
 * keeps being shown at session start. A warning, with the fix: retire it (`vault retire ID
 * --rejected`, or `--superseded-by` a newer handoff that links to it). Age counts from
 * `created_at` to the clock the adapter passes (the runtime port); without a clock the rule is
 * silent.
 */
import { isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Default age, in days, after which an active handoff is reported. */
export const HANDOFF_STALE_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * Reads `ECC_HANDOFF_STALE_DAYS` as the adapters give it: whole days ≥ 1, else the default.
 *
 * @param value the variable's value (undefined when unset)
 */
export function handoffStaleDaysFrom(value: string | undefined): number {
  return value !== undefined && /^\d{1,6}$/.test(value.trim()) && Number(value.trim()) >= 1 ? Number(value.trim()) : HANDOFF_STALE_DAYS;
}

/** Warnings for active handoffs created more than `ctx.handoffStaleDays` days before `ctx.nowMs`. */
export function checkStaleHandoffs(ctx: DoctorContext): Diagnostic[] {
  if (ctx.nowMs === undefined) return [];
  const days = ctx.handoffStaleDays;
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (e.memory.kind !== 'handoff' || e.memory.status !== 'active' || !isSelected(ctx, e.path)) continue;
    const created = Date.parse(e.memory.createdAt);
    if (!(ctx.nowMs - created > days * DAY_MS)) continue;
    const age = Math.floor((ctx.nowMs - created) / DAY_MS);
    out.push(
      diagnostic(
        'warning',
        'stale-handoff',
        e.path,
        keyLine(e, 'created_at'),
        `active handoff written ${age} days ago (${e.memory.createdAt.slice(0, 10)}); handoffs older than ${days} days are stale`,
        `if it was picked up or no longer applies: vault retire ${e.memory.id} --rejected (or --superseded-by a newer handoff that links to it); ECC_HANDOFF_STALE_DAYS sets the age`,
      ),
    );
  }
  return out;
}
