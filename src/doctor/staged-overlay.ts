/**
 * `vault doctor --staged` checks what the commit will hold: the staged copies of the changed
 * files replace their working-tree copies in the scan (a file fixed on disk but not staged is
 * still reported; a file deleted from the index is gone; a staged symbolic link is a symlink).
 */
import { join } from 'node:path';
import type { Scope } from '../document/contract.js';
import { isEditorFile, scanFileBytes, type ScanResult, type WalkedFile } from '../scanner/scan-vault.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';
import type { StagedFile } from './git-changes.js';

/**
 * Replaces the scan's records of staged files with their staged content.
 *
 * @param blobs blob id → content (see readBlobs)
 * @returns vault path → staged content, for rules that need to locate a line in a file
 */
export function applyStagedFiles(scan: ScanResult, roots: VaultRoots, staged: readonly StagedFile[], blobs: ReadonlyMap<string, Buffer>): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  for (const s of staged) {
    const bytes = blobs.get(s.sha);
    const regular = s.mode.startsWith('100');
    if (!s.deleted && regular && bytes === undefined) continue; // keep the working-tree copy
    const segments = s.path.split('/');
    const scope = segments.shift() as Scope;
    if (segments.some((seg) => seg.startsWith('.'))) continue; // hidden: never a memory
    scan.entries = scan.entries.filter((e) => e.path !== s.path);
    scan.invalid = scan.invalid.filter((f) => f.path !== s.path);
    scan.symlinks = scan.symlinks.filter((p) => p !== s.path);
    scan.strays = scan.strays.filter((p) => p !== s.path);
    if (s.deleted) continue;
    if (s.mode === '120000') {
      scan.symlinks.push(s.path);
      continue;
    }
    if (!regular || bytes === undefined) continue; // a submodule: not ours
    const name = segments.at(-1) ?? '';
    if (isEditorFile(name)) continue;
    if (!name.endsWith('.md')) {
      scan.strays.push(s.path);
      continue;
    }
    const f: WalkedFile = { scope, path: s.path, absPath: join(scopeRoot(roots, scope), ...segments), segments };
    const r = scanFileBytes(f, bytes, 0, { secretCheck: true, keepText: true });
    if (r.entry) scan.entries.push(r.entry);
    else scan.invalid.push(r.invalid);
    contents.set(s.path, bytes);
  }
  return contents;
}
