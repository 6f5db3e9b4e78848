/**
 * Rule: no sync-conflict copies. File-sync tools leave copies beside a memory when two machines
 * edit it (Syncthing `x.sync-conflict-20260101-120000-ABCDEFG.md`; Obsidian Sync, Dropbox,
 * Nextcloud `x (conflict 2026-...).md`, `x (Bob's conflicted copy 2026-...).md`). The copy claims
 * the same id as the original: an error naming the file and the line of its id.
 */
import { keyLine, keyLineIn, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

const PATTERNS = [/\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?(?=\.md$)/, / \((?:[^()]*\s)?conflict(?:ed)?(?:\s[^()]*)?\)(?=\.md$)/i];

/** The original file name of a sync-conflict copy (`x.md`), or undefined for an ordinary name. */
export function syncConflictOriginal(fileName: string): string | undefined {
  for (const p of PATTERNS) if (p.test(fileName)) return fileName.replace(p, '');
  return undefined;
}

/** Vault paths (of memory files, valid or not) that are sync-conflict copies. */
export function findConflictCopies(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of paths) if (syncConflictOriginal(p.slice(p.lastIndexOf('/') + 1))) out.add(p);
  return out;
}

/** Errors for sync-conflict copies of memory files. */
export function checkSyncConflicts(ctx: DoctorContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const all = [
    ...ctx.scan.entries.map((e) => ({ path: e.path, entry: e, file: undefined })),
    ...ctx.scan.invalid.map((f) => ({ path: f.path, entry: undefined, file: f })),
  ];
  for (const { path, entry, file } of all) {
    if (!ctx.conflictCopies.has(path)) continue;
    if (ctx.selection && !ctx.selection.paths.has(path)) continue;
    const base = path.slice(path.lastIndexOf('/') + 1);
    const original = path.slice(0, path.lastIndexOf('/') + 1) + syncConflictOriginal(base)!;
    const line = entry ? keyLine(entry, 'id') : file ? (keyLineIn(readInvalidText(file, ctx), false, 'id') ?? 1) : 1;
    const id = entry?.memory.id ?? file?.id;
    out.push(
      diagnostic(
        'error',
        'sync-conflict',
        path,
        line,
        `sync-conflict copy of ${original}${id ? `; it claims id ${id} a second time` : ''}`,
        `compare it with ${original}, merge what you want to keep into that file, then delete this copy`,
      ),
    );
  }
  return out;
}
