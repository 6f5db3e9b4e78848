/**
 * Rule: every link resolves. Links are the frontmatter `links` list and the body's Obsidian
 * wikilinks `[[mem_id]]` / `[[mem_id|label]]` (see linkedIds). A vault-wide check: with
 * `--changed`, links from selected files and links to ids of changed or deleted files are checked.
 */
import { bodyLineOf, isSelected, keyLine, linksOf, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Errors for links whose target id is not in the scanned scopes. */
export function checkBrokenLinks(ctx: DoctorContext): Diagnostic[] {
  const known = new Set<string>(ctx.byId.keys());
  for (const f of ctx.scan.invalid) if (f.id !== undefined) known.add(f.id);
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    for (const target of linksOf(e)) {
      if (known.has(target)) continue;
      if (!isSelected(ctx, e.path) && !ctx.selection?.ids.has(target)) continue;
      const inFrontmatter = e.memory.links.includes(target);
      const line = inFrontmatter ? keyLine(e, 'links') : bodyLineOf(e, `[[${target}`);
      out.push(
        diagnostic(
          'error',
          'broken-link',
          e.path,
          line,
          inFrontmatter
            ? `links names ${target}, which is not in the vault (scopes ${ctx.scopes.join(', ')})`
            : `body wikilink [[${target}]] names a memory that is not in the vault (scopes ${ctx.scopes.join(', ')})`,
          inFrontmatter ? `remove ${target} from links, or restore the memory it names` : `remove the [[${target}]] wikilink, or restore the memory it names`,
        ),
      );
    }
  }
  return out;
}
