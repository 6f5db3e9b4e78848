/**
 * Rule: a team memory links only to team memories. Team memories are committed; project
 * memories never are (the project scope's .gitignore ignores them) and user memories live in a
 * home folder, so a link from a team memory to either resolves here but is broken in every other
 * clone: a warning. Links are frontmatter `links` and body wikilinks (see linkedIds).
 */
import { bodyLineOf, isSelected, keyLine, linksOf, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Warnings for team memories linking to memories that exist only in the project or user scope. */
export function checkTeamLinksLocal(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (e.scope !== 'team') continue;
    for (const target of linksOf(e)) {
      const found = ctx.byId.get(target);
      if (!found || found.some((t) => t.scope === 'team')) continue; // missing: broken-link's concern
      if (!isSelected(ctx, e.path) && !ctx.selection?.ids.has(target)) continue;
      const where = [...new Set(found.map((t) => t.scope))].join(' and ');
      const inFrontmatter = e.memory.links.includes(target);
      out.push(
        diagnostic(
          'warning',
          'team-links-local',
          e.path,
          inFrontmatter ? keyLine(e, 'links') : bodyLineOf(e, `[[${target}`),
          `${inFrontmatter ? 'links names' : `body wikilink [[${target}]] names`} ${target}, a ${where}-scope memory: it is not committed, so the link is broken in every other clone`,
          `share the target with \`vault share ${target}\` (then commit it), or drop the link`,
        ),
      );
    }
  }
  return out;
}
