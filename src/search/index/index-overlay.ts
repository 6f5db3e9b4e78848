/**
 * After the vault wrote a memory file itself (a save): that one file goes into its scope's index
 * overlay directly, read like any changed file (memory-terms.ts: the scanner's checks, then its
 * terms), without the folder check's listing of the folder and the pass over every indexed path
 * it makes (~150 ms at 10,000 memories).
 *
 * Without more, the folder records stay as they were: the next search still lists the changed
 * folder, so a file another process wrote beside it at the same moment is found then, and the new
 * entry is checked again (its mtime is recorded as racy, -1). With the writer's proof that its
 * create was the folder's only change (store/create-witness.ts), and when the index recorded the
 * folder exactly as the writer found it before the write (same mtime and inode, not racy), the
 * folder is recorded as it is after the write and the entry with its own mtime: the next search
 * then neither lists the folder nor reads the file again (at 100,000 memories that listing was a
 * third of a save). Any other case is the one without the proof.
 */
import { sep } from 'node:path';
import type { Scope } from '../../document/contract.js';
import { processIds, type ProcessIds } from '../../io/runtime.js';
import type { WalkedFile } from '../../scanner/scan-vault.js';
import { indexDirFor } from '../../store/layout.js';
import { scopeRoot, type VaultRoots } from '../../store/roots.js';
import { readState, writeState } from './index-store.js';
import { overlayEntryOf, readIndexableFile } from './memory-terms.js';
import { directOverlayLimit, stateAsLastSeen } from './index-freshness.js';
import { openScopeReader } from '../../store/read-scope-file.js';
import type { CreateProof } from '../../store/create-witness.js';

/**
 * Puts one file the vault just wrote into its scope's index overlay (see the module comment).
 * Never throws: a missing or unusable index, an overlay due for compaction, an index folder that
 * cannot be written are all left to the next search, which repairs the index.
 *
 * @param relPath the file's path below the scope folder, `/`-separated (`notes/mem_x.md`)
 * @param proof the writer's proof that the create was the only change to the file's folder
 * @returns true when state.bin now holds the file
 */
export function addWrittenFile(roots: VaultRoots, scope: Scope, relPath: string, ids: ProcessIds = processIds, proof?: CreateProof): boolean {
  try {
    const dir = indexDirFor(roots, scope);
    const root = scopeRoot(roots, scope);
    // the state the similar check just opened, if no one wrote it since; else read again
    const state = stateAsLastSeen(dir) ?? readState(dir, scope, root).state;
    // an overlay this large is left to the next search, which compacts it into a new generation
    if (Object.keys(state.overlay).length >= directOverlayLimit(dir, state.generation)) return false;
    const segments = relPath.split('/');
    const file: WalkedFile = { scope, path: `${scope}/${relPath}`, absPath: root + sep + segments.join(sep), segments };
    const reader = openScopeReader(roots, scope);
    let r: ReturnType<typeof readIndexableFile>;
    try {
      r = readIndexableFile(file, relPath, reader);
    } finally {
      reader.close();
    }
    const folder = relPath.includes('/') ? relPath.slice(0, relPath.lastIndexOf('/')) : '';
    const rec = Object.hasOwn(state.folders, folder) ? state.folders[folder] : undefined;
    // the index knew the folder as the writer found it before its create, and the create was its only change since
    const proven =
      proof !== undefined &&
      rec !== undefined &&
      rec.mtime !== -1 &&
      rec.mtime === proof.before.mtime &&
      rec.ino === proof.before.ino &&
      proof.after.ino === proof.before.ino;
    const read = 'invalid' in r ? r.invalid : r.doc;
    // else: written a moment ago, so inside the racy window: the next check looks at it again
    const mtime = proven && read.size === proof.file.size && read.mtime === proof.file.mtime ? read.mtime : -1;
    const entry = overlayEntryOf(r, mtime);
    const folders = proven && mtime !== -1 ? { ...state.folders, [folder]: { mtime: proof.after.mtime, ino: proof.after.ino } } : state.folders;
    writeState(dir, { ...state, overlay: { ...state.overlay, [relPath]: entry }, folders }, ids);
    return true;
  } catch {
    return false;
  }
}
