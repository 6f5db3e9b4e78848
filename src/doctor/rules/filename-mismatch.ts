/**
 * Rule: a memory file is named `<id>.md`. Obsidian resolves `[[mem_id]]` by file name and people
 * find files by id; a renamed file breaks both. A warning, since the id inside still rules.
 */
import { idFromFileName, isSelected, keyLine, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Warnings for valid memories whose file name is not their id. */
export function checkFileNames(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of ctx.scan.entries) {
    if (!isSelected(ctx, e.path) || ctx.conflictCopies.has(e.path)) continue;
    if (idFromFileName(e.path) === e.memory.id) continue;
    out.push(
      diagnostic(
        'warning',
        'filename-mismatch',
        e.path,
        keyLine(e, 'id'),
        `file name differs from the id ${e.memory.id}`,
        `rename the file to ${e.memory.id}.md (git mv keeps its history)`,
      ),
    );
  }
  return out;
}
