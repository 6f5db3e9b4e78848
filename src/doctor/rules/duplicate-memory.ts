/**
 * Rule: two active memories that say the same thing (the same title and the same body, compared
 * after Unicode NFKC, case folding and collapsing whitespace) are one memory saved twice: both
 * come back from every search and both are recalled into a session. `vault save` warns about such
 * a save, but a save without the check (an older tool, a hand-made file, a merge of two branches
 * that each saved it) gets past it. A warning on the newer copy (by `created_at`, then id), with the
 * fix: retire it as rejected. Memories that read separately (the user scope apart from project and
 * team) are compared within their own group only; a reference between the two (a link) is no
 * excuse: a copy is still a copy.
 */
import { isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** The text two copies share: NFKC, lower case, whitespace runs as one space, trimmed. */
function sameness(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Warnings for each active memory that repeats an older active memory's title and body. */
export function checkDuplicateMemories(ctx: DoctorContext): Diagnostic[] {
  const groups = new Map<string, (typeof ctx.scan.entries)[number][]>();
  for (const entry of ctx.scan.entries) {
    if (entry.memory.status !== 'active') continue;
    const readTogether = entry.scope === 'user' ? 'user' : 'repo';
    const key = `${readTogether}\u0000${sameness(entry.memory.title)}\u0000${sameness(entry.memory.body)}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const out: Diagnostic[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // one id in two files is duplicate-id's finding, not this rule's
    if (new Set(group.map((e) => e.memory.id)).size < 2) continue;
    const sorted = [...group].sort((a, b) =>
      a.memory.createdAt === b.memory.createdAt ? (a.memory.id < b.memory.id ? -1 : 1) : a.memory.createdAt < b.memory.createdAt ? -1 : 1,
    );
    const first = sorted[0]!;
    for (const copy of sorted.slice(1)) {
      if (copy.memory.id === first.memory.id) continue;
      if (!isSelected(ctx, copy.path) && !isSelected(ctx, first.path)) continue;
      out.push(
        diagnostic(
          'warning',
          'duplicate-memory',
          copy.path,
          keyLine(copy, 'title'),
          `same title and body as the older active ${first.memory.kind} ${first.memory.id} (${first.path}): one memory saved twice`,
          `keep one: vault retire ${copy.memory.id} --rejected (commit it for review); if the two are meant to differ, make the difference a new memory that links to the first`,
        ),
      );
    }
  }
  return out;
}
