/**
 * Rule: tags work in Obsidian too. A tag is valid for ecc.memory.v1 when it is a slug, but
 * Obsidian ignores a purely numeric tag (`2024`) and cuts a tag at a dot (`node.js` → `node`),
 * so the tag pane and searches there would miss it: a warning.
 * Source: Obsidian help, "Tag format" (at least one non-numeric character; letters, digits,
 * `_`, `-`, `/` only).
 */
import { isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { OBSIDIAN_TAG_FIX, obsidianTagProblem } from '../../document/validate.js';

/** Warnings for tags Obsidian would not treat as tags. */
export function checkObsidianTags(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (!isSelected(ctx, e.path)) continue;
    for (const tag of e.memory.tags) {
      const why = obsidianTagProblem(tag);
      if (!why) continue;
      out.push(
        diagnostic('warning', 'obsidian-tag', e.path, keyLine(e, 'tags'), `tag ${tag} ${why}, so Obsidian does not treat it as a tag`, OBSIDIAN_TAG_FIX),
      );
    }
  }
  return out;
}
