/**
 * Rule: what a killed save left behind. A save stages its temporary file in the scope's hidden
 * staging folder (store/layout.ts, STAGING_DIR) and links it to the memory's name; a process
 * killed between the two leaves a temporary file there (empty, or a second hard link to the
 * memory), or `.ecc-memory-*.tmp` in a kind folder when it had to fall back there (git would stage
 * that one). Each is a warning; a later save removes them after the grace period.
 */
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/**
 * When a save removes a leftover: in the staging folder any save sweeps it once it is 10 minutes
 * old; in a kind folder the sweep runs at most every 10 minutes (store/scope-folders.ts kindSweepDue).
 */
function after(path: string): string {
  return path.split('/').includes('.staging') ? 'after 10 minutes' : 'after 10 to 20 minutes';
}

/** Warnings for leftover temporary files and for memories with more than one hard link. */
export function checkSaveLeftovers(ctx: DoctorContext): Diagnostic[] {
  return ctx.scan.leftovers
    .filter((p) => isSelected(ctx, p))
    .map((p) =>
      p.endsWith('.md')
        ? diagnostic(
            'warning',
            'save-leftover',
            p,
            undefined,
            'the memory file has more than one hard link (a killed save left its temporary file, or a link was made by hand)',
            `the next \`vault save\` removes a killed save's temporary file ${after(p)}; otherwise remove the other link`,
          )
        : diagnostic(
            'warning',
            'save-leftover',
            p,
            undefined,
            'temporary file left by a killed save; it is never a memory',
            `delete it, or let the next \`vault save\` remove it (${after(p)})`,
          ),
    );
}
