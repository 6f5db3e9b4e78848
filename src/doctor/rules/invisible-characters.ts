/**
 * Rule: no hidden text. Unicode tag characters (U+E0000–U+E007F) and the zero-width characters
 * U+200B (zero width space), U+2060 (word joiner) and U+FEFF (zero width no-break space) render
 * as nothing, so a title, tag or body can carry text (e.g. instructions for an agent) that a
 * reviewer cannot see in a pull request: a warning. U+200D (zero width joiner) is allowed, as
 * emoji sequences use it. Source: Unicode Technical Standard #39 §3 and the "ASCII smuggling"
 * reports on tag characters in LLM prompts.
 */
import { bodyLineOf, isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { INVISIBLE_CHARS } from '../../unicode/unsafe-characters.js';

/** The first invisible character in `text` as `U+XXXX`, or undefined. */
export function firstInvisible(text: string): { char: string; code: string } | undefined {
  const m = INVISIBLE_CHARS.exec(text);
  if (!m) return undefined;
  return { char: m[0], code: `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` };
}

const HINT = 'remove the invisible characters (tag characters U+E0000–U+E007F, U+200B, U+2060, U+FEFF); they hide text from reviewers';

/** Warnings for a title, tag or body holding invisible characters, one per field. */
export function checkInvisibleCharacters(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (!isSelected(ctx, e.path)) continue;
    const title = firstInvisible(e.memory.title);
    if (title)
      out.push(diagnostic('warning', 'invisible-characters', e.path, keyLine(e, 'title'), `title contains an invisible character (${title.code})`, HINT));
    const tag = e.memory.tags.map(firstInvisible).find((x) => x !== undefined);
    if (tag) out.push(diagnostic('warning', 'invisible-characters', e.path, keyLine(e, 'tags'), `a tag contains an invisible character (${tag.code})`, HINT));
    const body = firstInvisible(e.memory.body);
    if (body)
      out.push(diagnostic('warning', 'invisible-characters', e.path, bodyLineOf(e, body.char), `body contains an invisible character (${body.code})`, HINT));
  }
  return out;
}
