/**
 * Rule: files are in the canonical byte-exact form (what `vault save` writes), so diffs in review
 * stay minimal and tools agree byte for byte. A BOM, CRLF line endings, block-style or unquoted
 * YAML (what editors such as Obsidian write) and body spacing are warnings: the values are fine,
 * and `vault fmt` restores the form without changing a value.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import type { NonCanonicalReason } from '../../document/parse.js';

const WHAT: Record<NonCanonicalReason, string> = {
  bom: 'a byte order mark',
  crlf: 'CRLF line endings',
  'frontmatter-style': 'frontmatter not written as canonical `key: <JSON>` lines (e.g. block-style lists, unquoted strings, other order)',
  'body-spacing': 'body spacing differs (blank line after ---, trimmed body, one final newline)',
};

/** The first line where the file departs from its canonical form. */
function firstDifference(text: string | undefined, canonical: string): number | undefined {
  if (text === undefined) return undefined;
  const a = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const b = canonical.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return 1;
}

/** Warnings for readable memories that are not in canonical form. */
export async function checkCanonicalForm(ctx: DoctorContext): Promise<Diagnostic[]> {
  const todo = ctx.scan.entries.filter((e) => !e.canonical && isSelected(ctx, e.path));
  if (todo.length === 0) return [];
  const { serializeMemory } = await import('../../document/serialize.js');
  return todo.map((e) => {
    const compact = firstDifference(e.text, serializeMemory(e.memory));
    const spaced = firstDifference(e.text, serializeMemory(e.memory, { listSeparator: ', ' }));
    const line = e.nonCanonical.includes('bom') || e.nonCanonical.includes('crlf') ? 1 : Math.max(spaced ?? 1, compact ?? 1);
    return diagnostic(
      'warning',
      'non-canonical',
      e.path,
      line,
      `not in canonical form: ${e.nonCanonical.map((r) => WHAT[r]).join('; ')}`,
      `run \`vault fmt ${e.path}\` (changes formatting only, never a value)`,
    );
  });
}
