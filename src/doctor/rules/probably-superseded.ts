/**
 * Rule: supersession is a new memory that links to the old one; retiring the old one is a
 * reviewed human edit of its `status`. An active memory linked by a newer active memory of the
 * same kind or the same title probably should be retired: a warning on the old one.
 */
import { isSelected, keyLine, linksOf, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

function sameTitle(a: string, b: string): boolean {
  return a.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ') === b.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
}

/** Warnings for active memories that a newer memory of the same kind or title links to. */
export function checkSuperseded(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const newer of ctx.scan.entries) {
    if (newer.memory.status !== 'active') continue;
    for (const id of linksOf(newer)) {
      for (const old of ctx.byId.get(id) ?? []) {
        if (old === newer || old.memory.status !== 'active') continue;
        if (!(newer.memory.createdAt > old.memory.createdAt)) continue;
        const kindMatch = newer.memory.kind === old.memory.kind;
        if (!kindMatch && !sameTitle(newer.memory.title, old.memory.title)) continue;
        if (!isSelected(ctx, old.path) && !isSelected(ctx, newer.path)) continue;
        const key = `${old.path}\u0000${newer.memory.id}`;
        if (reported.has(key)) continue;
        reported.add(key);
        out.push(
          diagnostic(
            'warning',
            'probably-superseded',
            old.path,
            keyLine(old, 'status'),
            `still active, but the newer ${newer.memory.kind} ${newer.memory.id} (${newer.memory.createdAt.slice(0, 10)}, ${kindMatch ? 'same kind' : 'same title'}) links to it`,
            `if ${newer.memory.id} replaces it, set status: "superseded" in this file (a reviewed edit); if both stand, ignore this warning`,
          ),
        );
      }
    }
  }
  return out;
}
