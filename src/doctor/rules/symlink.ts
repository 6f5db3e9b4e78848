/**
 * Rule: no symbolic links in the vault. The scanner never follows them (file or folder links are
 * skipped, not read), so whatever they point to is invisible to reads and search, and a link can
 * smuggle files from outside the repository into a review. The link itself is inspected with
 * readlink only, to say whether it points outside the vault.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { isSelected, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { guardedDirs, scopeRoot } from '../../store/roots.js';
import type { Scope } from '../../document/contract.js';

function absOf(ctx: DoctorContext, vaultPath: string): string | undefined {
  const slash = vaultPath.indexOf('/');
  const scope = vaultPath.slice(0, slash) as Scope;
  if (!ctx.scopes.includes(scope)) return undefined;
  return resolve(scopeRoot(ctx.roots, scope), vaultPath.slice(slash + 1));
}

function pointsOutside(abs: string, vaultRoot: string): boolean | undefined {
  try {
    const target = readlinkSync(abs);
    const resolved = isAbsolute(target) ? target : resolve(dirname(abs), target);
    const rel = relative(vaultRoot, resolved);
    return rel.startsWith('..') || isAbsolute(rel);
  } catch {
    return undefined;
  }
}

/** Errors for symbolic links inside the scope folders, and for symlinked vault folders. */
export function checkSymlinks(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const path of ctx.scan.symlinks) {
    if (!isSelected(ctx, path) && !path.endsWith('/')) continue;
    const abs = absOf(ctx, path.replace(/\/$/, ''));
    const outside = abs ? pointsOutside(abs, ctx.roots.memoryRoot) : undefined;
    const where = outside === true ? ' pointing outside the vault' : outside === false ? ' pointing inside the vault' : '';
    out.push(
      diagnostic(
        'error',
        'symlink',
        path,
        undefined,
        `symbolic link${where}; it is skipped, never followed or read`,
        'replace the link with the real file or folder (memories are plain files), or remove it',
      ),
    );
  }
  if (ctx.selection) return out;
  // The folders above the scopes: a link there would move the whole vault elsewhere.
  const seen = new Set<string>();
  for (const scope of ctx.scopes) {
    for (const dir of guardedDirs(ctx.roots, scope).slice(0, -1)) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      try {
        if (lstatSync(dir).isSymbolicLink()) {
          const rel = relative(ctx.roots.worktreeRoot, dir) || dir;
          out.push(
            diagnostic(
              'error',
              'symlink',
              `${rel}/`,
              undefined,
              'a vault folder is a symbolic link; writes refuse it and reads may see another tree',
              'replace the link with a real folder',
            ),
          );
        }
      } catch {
        /* missing: fine */
      }
    }
  }
  return out;
}
