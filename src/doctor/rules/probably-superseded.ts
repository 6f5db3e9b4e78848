/**
 * Rule: supersession is a new memory that links to the old one; retiring the old one is
 * `vault retire OLD --superseded-by NEW`, the one sanctioned edit of its `status`. An active memory probably should be retired when a newer
 * active memory replaces it: it has the same title, or it says so — a supersession word
 * ("supersedes", "replaces", "instead of", "obsoletes", "deprecates", "retires", "overrides")
 * in its title or on a body line that names the old id. A plain "see [[id]]" or a bare
 * `links` entry is a reference, not a replacement: no warning.
 */
import type { ScanEntry } from '../../scanner/scan-vault.js';
import { isSelected, keyLine, linksOf, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

function sameTitle(a: string, b: string): boolean {
  return a.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ') === b.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
}

/** Words that say a memory replaces another (English; matched case-insensitively, whole words). */
const SUPERSESSION =
  /\b(?:supersed(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|instead of|obsolet(?:e|es|ed|ing)|deprecat(?:e|es|ed|ing)|retir(?:e|es|ed|ing)|overrid(?:e|es|ing))\b/i;

/** True when `newer` says it replaces `oldId`: a supersession word in its title or on a body line naming the id. */
function saysItReplaces(newer: ScanEntry, oldId: string): boolean {
  if (SUPERSESSION.test(newer.memory.title)) return true;
  const body = newer.memory.body;
  if (!body.includes(oldId)) return false;
  return body.split('\n').some((line) => line.includes(oldId) && SUPERSESSION.test(line));
}

/** Warnings for active memories that a newer memory links to and replaces (same title, or supersession wording). */
export function checkSuperseded(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const newer of ctx.scan.entries) {
    if (newer.memory.status !== 'active') continue;
    for (const id of linksOf(newer)) {
      for (const old of ctx.byId.get(id) ?? []) {
        if (old === newer || old.memory.status !== 'active') continue;
        if (!(newer.memory.createdAt > old.memory.createdAt)) continue;
        const titleMatch = sameTitle(newer.memory.title, old.memory.title);
        if (!titleMatch && !saysItReplaces(newer, id)) continue;
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
            `still active, but the newer ${newer.memory.kind} ${newer.memory.id} (${newer.memory.createdAt.slice(0, 10)}, ${titleMatch ? 'same title' : 'says it replaces it'}) links to it`,
            `if ${newer.memory.id} replaces it: vault retire ${old.memory.id} --superseded-by ${newer.memory.id} (the one sanctioned edit; commit it for review); if both stand, ignore this warning`,
          ),
        );
      }
    }
  }
  return out;
}
