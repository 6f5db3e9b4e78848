/**
 * Rule: the scope folders hold memories only. Any other regular file (notes.txt, a stray JSON)
 * is a warning: it is not read, not searched, and probably landed there by mistake. Hidden
 * entries (.obsidian/, .trash/, the index folder, dotfiles) and editor files (*.canvas, ...) are
 * never memories and never problems.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Warnings for non-memory files in the vault. */
export function checkStrayFiles(ctx: DoctorContext): Diagnostic[] {
  return ctx.scan.strays
    .filter((p) => isSelected(ctx, p))
    .map((p) =>
      diagnostic(
        'warning',
        'stray-file',
        p,
        undefined,
        'not a memory file (memories are <kind>s/<id>.md); it is ignored by reads and search',
        'move it out of the vault, or save its content as a memory with `vault save`',
      ),
    );
}
