/**
 * The memories saved since a digest record was made (digest-cache.ts), found without the search
 * index, so the first session start after `vault save` does not search: an exact re-ranking is
 * impossible without one (BM25 statistics change with every document), so the stored ranking is
 * kept and the new memories are shown on top of it until the next snapshot (stop, pre-compact)
 * ranks everything again.
 *
 * Only when the record proves that memories were only ADDED ({@link savedSince}):
 * - every memory the record shows keeps its size and mtime (not edited, retired or deleted);
 * - every scope root keeps its mtime (no kind folder added, removed or renamed);
 * - in each kind folder whose mtime changed, the names present when the record was made are all
 *   still there: the names the record's Bloom filter does not know are the new ones (at most
 *   {@link MAX_NEW_FILES}), and the others must be exactly the recorded names (same count, same
 *   64-bit sum of name hashes, FolderListing in digest-cache.ts); a folder or link among the new
 *   names, or a new file that cannot be read, is no proof.
 * Anything else (a deleted or renamed file, a new name the filter takes for an old one) gives
 * undefined: the caller searches as before. Known limit, as for the record itself: a memory that
 * is not shown, edited in place, is not looked at (it is ranked again at the next snapshot).
 *
 * The new files are read as the index reads them (store/read-scope-file.ts through folder
 * handles, never following a link; scanFileBytes: parse, location, built-in secret shapes): an
 * invalid or quarantined file is not shown, nor one that is not active, not of a digest kind or
 * not targeted at the harness. Their leads are cleaned like the ranked ones (leadOf: invisible and
 * control characters stripped, credential shapes redacted).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { kindOfFolder, LIMITS, type Memory, type Scope } from '../../document/contract.js';
import { targetsHarness } from '../../document/harness-names.js';
import { isEditorFile, scanFileBytes } from '../../scanner/scan-vault.js';
import { readScopeFile } from '../../store/read-scope-file.js';
import type { VaultRoots } from '../../store/roots.js';
import { bloomHas, nameHashes, NameSummary, type DigestRecord } from './digest-cache.js';
import { DIGEST_KINDS, KIND_QUOTAS, leadOf, type DigestEntry } from './digest-render.js';

/** Most new files read at a session start; more (a pull, a sync) is left to the search. */
export const MAX_NEW_FILES = 32;

function stampOf(path: string): number {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return !st ? -1 : st.isDirectory() ? st.mtimeMs : -2;
}

/**
 * The memories saved since `record` was made, to show on top of its entries: active, of a digest
 * kind, targeted at `harness`; hand-offs first, then the kinds in {@link KIND_QUOTAS} order, the
 * newest file (mtime) first within a kind, at most the kind's quota (only as many files are read
 * as that takes). [] when files were added but none is such a memory.
 *
 * @param harness canonical harness name
 * @returns undefined when the record does not prove that memories were only added (see the
 *   module comment): the digest must be searched
 */
export function savedSince(record: DigestRecord, roots: VaultRoots, harness: string): DigestEntry[] | undefined {
  for (const [path, size, mtime] of record.proof.files) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size !== size || st.mtimeMs !== mtime) return undefined;
  }
  const listed = new Map(record.listing.map((f) => [f[0], f]));
  const found: Array<{ m: Memory; file: string }> = [];
  const ids = new Set(record.ids);
  let newFiles = 0;
  for (const [folder, stamp] of record.proof.folders) {
    if (stampOf(folder) === stamp) continue;
    const scope: Scope | undefined = dirname(folder) === roots.project ? 'project' : dirname(folder) === roots.team ? 'team' : undefined;
    const kindDir = basename(folder);
    const was = listed.get(folder);
    if (!scope || !kindOfFolder(kindDir) || was === undefined || stamp < 0) return undefined;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return undefined;
    }
    const bloom = Buffer.from(was[3], 'base64');
    if (bloom.length < 8 || (bloom.length & (bloom.length - 1)) !== 0) return undefined;
    const kept = new NameSummary();
    const added: Array<{ name: string; mtime: number }> = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const h = nameHashes(name);
      if (bloomHas(bloom, was[1], h)) kept.add(h);
      else if (++newFiles > MAX_NEW_FILES)
        return undefined; // many (a pull, a sync): search
      else added.push({ name, mtime: 0 });
    }
    if (kept.count !== was[1] || kept.sum !== was[2]) return undefined;
    for (const a of added) {
      const st = lstatSync(folder + sep + a.name, { throwIfNoEntry: false });
      if (!st?.isFile()) return undefined; // a folder or link of memories (or gone): search
      a.mtime = st.mtimeMs;
    }
    // newest file first; only as many read as the kind's quota can show
    added.sort((x, y) => y.mtime - x.mtime || (x.name < y.name ? -1 : 1));
    const quota = KIND_QUOTAS.find(([k]) => k === kindOfFolder(kindDir))?.[1] ?? 0;
    let taken = 0;
    for (const { name } of added) {
      if (taken >= quota) break;
      if (!name.endsWith('.md') || isEditorFile(name)) continue; // never a memory
      const rel = `${kindDir}/${name}`;
      const read = readScopeFile(roots, scope, rel, LIMITS.documentMaxBytes);
      if (!read.ok) return undefined;
      const scanned = scanFileBytes({ scope, path: `${scope}/${rel}`, absPath: join(folder, name), segments: [kindDir, name] }, read.bytes, read.mtimeMs, {
        secretCheck: true,
        keepText: false,
      });
      if (scanned.invalid) continue; // the index does not show it either
      const m = scanned.entry.memory;
      if (ids.has(m.id)) return undefined; // a second file of an id: let the search decide
      ids.add(m.id);
      if (m.status === 'active' && DIGEST_KINDS.includes(m.kind) && targetsHarness(m.targetHarnesses, harness)) {
        found.push({ m, file: join(folder, name) });
        taken++;
      }
    }
  }
  const out: DigestEntry[] = [];
  for (const [kind] of KIND_QUOTAS)
    for (const { m, file } of found) if (m.kind === kind) out.push({ id: m.id, kind: m.kind, scope: m.scope, title: m.title, lead: leadOf(m.body), file });
  return out;
}
