/**
 * Rule: the project scope's `.gitignore` is exactly `*\n!.gitignore\n`, so local memories can
 * never be committed (the fail-closed rule of the vault layout). Only checked when the project
 * scope folder exists and is being checked.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { readScopeFile } from '../../store/read-scope-file.js';
import { PROJECT_GITIGNORE } from '../../store/layout.js';

const PATH = 'project/.gitignore';
const FIX = 'make it contain exactly two lines, "*" and "!.gitignore" (vault init writes it when it is missing)';

/** Errors for a missing, symlinked or wrong project .gitignore. */
export function checkProjectGitignore(ctx: DoctorContext): Diagnostic[] {
  if (!ctx.scopes.includes('project')) return [];
  try {
    if (!lstatSync(ctx.roots.project).isDirectory()) return [];
  } catch {
    return []; // no project scope yet: nothing to protect
  }
  const file = join(ctx.roots.project, '.gitignore');
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return [diagnostic('error', 'gitignore-missing', PATH, undefined, 'project memory folder has no .gitignore: local memories could be committed', FIX)];
  }
  if (st.isSymbolicLink())
    return [diagnostic('error', 'gitignore-wrong', PATH, undefined, 'project .gitignore is a symbolic link', `replace it with a regular file; ${FIX}`)];
  // through the scope's folder handles: a folder swapped for a link meanwhile is never followed
  const read = readScopeFile(ctx.roots, 'project', '.gitignore', 4096);
  if (!read.ok) return [diagnostic('error', 'gitignore-wrong', PATH, undefined, `project .gitignore cannot be read (${read.code})`, FIX)];
  const text = read.bytes.toString('utf8');
  if (text === PROJECT_GITIGNORE) return [];
  const want = PROJECT_GITIGNORE.split('\n');
  const have = text.split('\n');
  let line = 1;
  while (line <= have.length && have[line - 1] === want[line - 1]) line++;
  return [
    diagnostic(
      'error',
      'gitignore-wrong',
      PATH,
      Math.min(line, Math.max(have.length, 1)),
      'project .gitignore does not hold exactly the fail-closed rules ("*" then "!.gitignore")',
      FIX,
    ),
  ];
}
