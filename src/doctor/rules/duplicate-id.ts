/**
 * Rule: one id, one file. Two files claiming an id make every lookup ambiguous. A vault-wide
 * check: with `--changed`, reported when any of the claiming files is selected.
 */
import { keyLine, keyLineIn, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

interface Claim {
  path: string;
  line: number | undefined;
}

/** Errors for ids claimed by more than one file (valid or mis-located), across the scanned scopes. */
export function checkDuplicateIds(ctx: DoctorContext): Diagnostic[] {
  const claims = new Map<string, Claim[]>();
  const add = (id: string, c: Claim) => {
    if (ctx.conflictCopies.has(c.path)) return; // reported by the sync-conflict rule
    const list = claims.get(id) ?? [];
    list.push(c);
    claims.set(id, list);
  };
  for (const e of ctx.scan.entries) add(e.memory.id, { path: e.path, line: keyLine(e, 'id') });
  for (const f of ctx.scan.invalid) {
    if (f.id !== undefined) add(f.id, { path: f.path, line: undefined });
  }
  const out: Diagnostic[] = [];
  for (const [id, list] of claims) {
    if (list.length < 2) continue;
    if (ctx.selection && !list.some((c) => ctx.selection!.paths.has(c.path))) continue;
    for (const c of list) {
      const others = list.filter((o) => o !== c).map((o) => o.path);
      const invalidFile = c.line === undefined ? ctx.scan.invalid.find((f) => f.path === c.path) : undefined;
      const line = c.line ?? (invalidFile ? keyLineIn(readInvalidText(invalidFile, ctx), false, 'id') : undefined);
      out.push(
        diagnostic(
          'error',
          'duplicate-id',
          c.path,
          line,
          `id ${id} is also claimed by ${others.join(', ')}`,
          'keep one file per id: delete the copy, or give a genuinely different memory a new id (vault save writes a fresh one)',
        ),
      );
    }
  }
  return out;
}
