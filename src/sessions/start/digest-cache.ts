/**
 * The digest record of a worktree and harness: the memory digest (memory-digest.ts) computed when
 * a snapshot is written (stop, pre-compact, session-end), or by a session start that had to search
 * (start-digest.ts: the same context and proof), so session start reuses it instead of
 * searching, and the paths changed on the branch, which only that hook asks git for (through the
 * git port): session start never runs git.
 *
 * File: `<sessions>/.start/digest-<fnv1a32 of worktree, repo, harness>.json`, JSON
 * `{"v":2,"worktree","repo","harness","budget","roots","changed","context","proof","listing","text","ids","entries"}`.
 * Shown as it is only while the budget, the vault roots, the context query (fnv1a32) and the
 * vault are unchanged: every scope root and kind folder keeps its mtime (adding, removing or
 * renaming a memory changes it) and every memory shown keeps its size and mtime ({@link ListProof},
 * as the start record's memory list). Known limit, as there: a memory that is not shown, edited
 * in place to become relevant, is seen when its folder next changes.
 *
 * When kind folders changed, the record still serves when memories were only added
 * (digest-delta.ts): `listing` summarises the names of each kind folder when the record was made
 * ({@link FolderListing}), `entries` holds the memories shown, so the new ones can be put on top
 * without searching. Advisory: a missing, damaged or stale record costs one search.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { ID_PATTERN } from '../../document/contract.js';
import type { GitRunner } from '../../io/git.js';
import type { Runtime } from '../../io/runtime.js';
import type { VaultRoots } from '../../store/roots.js';
import { ensureStartDir, readSnapshotText, removeStaleWorkFiles, START_DIR, writeSessionFile, type WorktreeKey } from '../snapshots/snapshot-store.js';
import { listStillValid, type ListProof } from './memory-titles.js';
import { DIGEST_KINDS, LEAD_CHARS, type DigestEntry, type MemoryDigest } from './digest-render.js';
import { fnv1a32 } from './start-cache.js';

const RECORD_VERSION = 2;
const RECORD_MAX_BYTES = 256 * 1024;
/** Changed paths kept (git diff output beyond is dropped). */
export const CHANGED_MAX_PATHS = 200;
/** A folder or file modified this recently (ms) may change again within the same tick. */
const RACY_MS = 2000;

/** Longest context query (characters): the search tokenises it whole. */
const CONTEXT_MAX_CHARS = 2000;

/** What the context query is built from. */
export interface DigestContextParts {
  branch?: string | undefined;
  goal?: string | undefined;
  files?: readonly string[] | undefined;
  /** paths changed on the branch (git diff --name-only against the merge base) */
  changed?: readonly string[] | undefined;
}

/**
 * The context query: branch, goal, files and changed paths with their separators turned into
 * spaces (so `src/search/index-store.ts` searches as its words), capped at 2,000 characters.
 */
export function digestContext(parts: DigestContextParts): string {
  const words = (s: string) => s.replace(/[/\\._\-:]+/g, ' ');
  const all = [parts.branch ?? '', parts.goal ?? '', ...(parts.files ?? []).map(words), ...(parts.changed ?? []).map(words)];
  return all.join(' ').replace(/\s+/g, ' ').trim().slice(0, CONTEXT_MAX_CHARS);
}

/** A digest record as stored. */
export interface DigestRecord {
  v: number;
  worktree: string;
  repo: string | null;
  harness: string;
  /** the character budget it was rendered for */
  budget: number;
  roots: [project: string, team: string];
  /** paths changed on the branch when the record was written */
  changed: string[];
  /** fnv1a32 of the context query the digest was ranked by */
  context: string;
  proof: ListProof;
  /** the names of the kind folders when the record was made ({@link listKindFolders}) */
  listing: FolderListing;
  text: string;
  ids: string[];
  /** the memories shown, in order (their ids are `ids`) */
  entries: DigestEntry[];
}

/**
 * The names of each kind folder of a {@link ListProof} (scope roots excluded) when the record was
 * made, without the names themselves (10,000 would be 200 KB): per folder the number of its
 * non-hidden names, an order-independent 64-bit sum of their hashes ({@link NameSummary}) and a
 * Bloom filter of them (base64), so a start can tell the names added since from those that were
 * there (digest-delta.ts).
 */
export type FolderListing = Array<[path: string, count: number, sum: string, bloom: string]>;

/** Bits of a folder's Bloom filter at most (a folder of more names has more false positives: more searches, never a wrong digest). */
const BLOOM_MAX_BITS = 32768;

/** Two 32-bit hashes of a name: FNV-1a, and a mix of it with the length (odd, for double hashing). */
export function nameHashes(name: string): [number, number] {
  let a = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) a = Math.imul(a ^ name.charCodeAt(i), 0x01000193);
  a >>>= 0;
  let b = Math.imul(a ^ (a >>> 16) ^ name.length, 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a, ((b ^ (b >>> 16)) | 1) >>> 0];
}

/** Hash functions of a Bloom filter of `bits` bits for `count` names (1 to 8). */
function bloomHashes(bits: number, count: number): number {
  return Math.max(1, Math.min(8, Math.round((bits / Math.max(1, count)) * Math.LN2)));
}

/** Whether the Bloom filter `bloom` (a power of two of bytes) may hold a name of these hashes. */
export function bloomHas(bloom: Uint8Array, count: number, [a, b]: [number, number]): boolean {
  const mask = bloom.length * 8 - 1;
  const k = bloomHashes(bloom.length * 8, count);
  for (let i = 0; i < k; i++) {
    const bit = (a + Math.imul(i, b)) & mask;
    if (!(bloom[bit >>> 3]! & (1 << (bit & 7)))) return false;
  }
  return true;
}

/** The number and the 64-bit sum (hex) of a folder's non-hidden names: the same names in any order give the same summary. */
export class NameSummary {
  count = 0;
  private a = 0;
  private b = 0;
  add([a, b]: [number, number]): void {
    this.count++;
    this.a = (this.a + a) >>> 0;
    this.b = (this.b + b) >>> 0;
  }
  get sum(): string {
    return this.a.toString(16).padStart(8, '0') + this.b.toString(16).padStart(8, '0');
  }
}

/** The {@link FolderListing} entry of a folder's names. */
export function folderNames(path: string, names: readonly string[]): FolderListing[number] {
  const visible = names.filter((n) => !n.startsWith('.'));
  let bits = 256;
  while (bits < visible.length * 10 && bits < BLOOM_MAX_BITS) bits *= 2;
  const bloom = new Uint8Array(bits / 8);
  const k = bloomHashes(bits, visible.length);
  const summary = new NameSummary();
  for (const n of visible) {
    const h = nameHashes(n);
    summary.add(h);
    for (let i = 0; i < k; i++) {
      const bit = (h[0] + Math.imul(i, h[1])) & (bits - 1);
      bloom[bit >>> 3]! |= 1 << (bit & 7);
    }
  }
  return [path, summary.count, summary.sum, Buffer.from(bloom).toString('base64')];
}

/**
 * Lists the kind folders of a proof just made by {@link vaultFolders} (a folder that cannot be
 * listed is left out: a change of it then falls back to a search). A folder that changed since
 * it was stamped makes the proof incomplete (no record is stored): its names and its stamp
 * would not agree.
 */
export function listKindFolders(proof: ListProof, roots: VaultRoots): FolderListing {
  const listing: FolderListing = [];
  for (const [path, stamp] of proof.folders) {
    if (stamp < 0 || path === roots.project || path === roots.team) continue;
    try {
      listing.push(folderNames(path, readdirSync(path)));
    } catch {
      /* not listed: no shortcut for this folder */
    }
    if (stampOf(path) !== stamp) proof.complete = false;
  }
  return listing;
}

function recordName(key: WorktreeKey, harness: string): string {
  return `digest-${fnv1a32(`${key.worktree}\u0000${key.repo ?? ''}\u0000${harness}`)}.json`;
}

/**
 * The paths changed on the branch: `git diff --name-only` against the merge base of HEAD with the
 * default branch of `origin` (origin/HEAD), else `main`, else `master`; at most
 * {@link CHANGED_MAX_PATHS}. [] when git fails or there is no such branch.
 */
export function changedPaths(git: GitRunner, cwd: string): string[] {
  const out = (args: string[]) => {
    const r = git(cwd, args);
    return r.status === 0 ? r.stdout.toString('utf8', 0, Math.min(r.stdout.length, 256 * 1024)).trim() : undefined;
  };
  const candidates = [out(['rev-parse', '--abbrev-ref', 'origin/HEAD']), 'main', 'master'].filter((b): b is string => Boolean(b) && b !== 'origin/HEAD');
  for (const base of candidates) {
    const mb = out(['merge-base', 'HEAD', base]);
    if (!mb || !/^[0-9a-f]{40,64}$/.test(mb)) continue;
    const diff = out(['diff', '--name-only', '-z', mb]);
    if (diff === undefined) return [];
    return diff
      .split('\u0000')
      .filter((p) => p && p.length <= 1024)
      .slice(0, CHANGED_MAX_PATHS);
  }
  return [];
}

function stampOf(path: string): number {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return !st ? -1 : st.isDirectory() ? st.mtimeMs : -2;
}

/**
 * The folders a digest depends on, stamped now: each scope root and its kind folders. Taken
 * before the search, so a change during it makes the record stale.
 */
export function vaultFolders(roots: VaultRoots): ListProof {
  const proof: ListProof = { folders: [], files: [], complete: true };
  for (const root of [roots.project, roots.team]) {
    proof.folders.push([root, stampOf(root)]);
    let names: string[] = [];
    try {
      if (lstatSync(root, { throwIfNoEntry: false })?.isDirectory()) names = readdirSync(root);
    } catch {
      names = [];
    }
    for (const n of names.sort()) if (!n.startsWith('.') && n.endsWith('s')) proof.folders.push([join(root, n), stampOf(join(root, n))]);
  }
  return proof;
}

/** Completes a proof with the files shown; incomplete when anything was modified within {@link RACY_MS} of `nowMs`. */
export function finishProof(proof: ListProof, files: readonly string[], nowMs: number): ListProof {
  for (const f of files) {
    const st = lstatSync(f, { throwIfNoEntry: false });
    if (!st?.isFile()) proof.complete = false;
    else proof.files.push([f, st.size, st.mtimeMs]);
  }
  if (proof.folders.some(([, m]) => m >= nowMs - RACY_MS) || proof.files.some(([, , m]) => m >= nowMs - RACY_MS)) proof.complete = false;
  return proof;
}

/** Writes the digest record (atomically, in {@link START_DIR}); failures are ignored (a cache). */
export function writeDigestRecord(dir: string, key: WorktreeKey, record: Omit<DigestRecord, 'v' | 'worktree' | 'repo'>, rt: Runtime): void {
  if (!record.proof.complete) return;
  try {
    const sub = ensureStartDir(dir);
    if (!sub) return;
    const full: DigestRecord = { v: RECORD_VERSION, worktree: key.worktree, repo: key.repo ?? null, ...record };
    writeSessionFile(sub, recordName(key, record.harness), JSON.stringify(full), 'digest', rt, true);
    removeStaleWorkFiles(sub, rt);
  } catch {
    /* the next start searches */
  }
}

const isStr = (x: unknown): x is string => typeof x === 'string';

/** Reads the digest record of a worktree and harness; undefined when absent, damaged or foreign. */
export function readDigestRecord(dir: string, key: WorktreeKey, harness: string): DigestRecord | undefined {
  const text = readSnapshotText(join(dir, START_DIR, recordName(key, harness)), RECORD_MAX_BYTES);
  if (text === undefined) return undefined;
  let v: DigestRecord;
  try {
    v = JSON.parse(text) as DigestRecord;
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || v.v !== RECORD_VERSION || v.worktree !== key.worktree || v.repo !== (key.repo ?? null) || v.harness !== harness)
    return undefined;
  const rootsOk = Array.isArray(v.roots) && v.roots.length === 2 && v.roots.every((r) => isStr(r) && isAbsolute(r));
  const p = v.proof as ListProof | undefined;
  const proofOk =
    typeof p === 'object' &&
    p !== null &&
    p.complete === true &&
    Array.isArray(p.folders) &&
    Array.isArray(p.files) &&
    p.folders.every((f) => Array.isArray(f) && isStr(f[0]) && typeof f[1] === 'number') &&
    p.files.every((f) => Array.isArray(f) && isStr(f[0]) && typeof f[1] === 'number' && typeof f[2] === 'number');
  if (
    !rootsOk ||
    !proofOk ||
    typeof v.budget !== 'number' ||
    !isStr(v.context) ||
    !isStr(v.text) ||
    v.text.length > v.budget ||
    !Array.isArray(v.changed) ||
    !v.changed.every(isStr)
  )
    return undefined;
  if (!Array.isArray(v.ids) || !v.ids.every((id) => isStr(id) && ID_PATTERN.test(id))) return undefined;
  // every path it checks lies in the vault (a forged record cannot make start lstat elsewhere)
  const inVault = (path: string) => !path.split(sep).includes('..') && v.roots.some((r) => path === r || path.startsWith(`${r}${sep}`));
  if (!p!.folders.every(([f]) => inVault(f)) || !p!.files.every(([f]) => inVault(f))) return undefined;
  const l = v.listing as FolderListing | undefined;
  const listingOk =
    Array.isArray(l) &&
    l.every(
      (f) =>
        Array.isArray(f) &&
        isStr(f[0]) &&
        inVault(f[0]) &&
        Number.isInteger(f[1]) &&
        isStr(f[2]) &&
        /^[0-9a-f]{16}$/.test(f[2]) &&
        isStr(f[3]) &&
        f[3].length <= ((BLOOM_MAX_BITS / 8 + 2) / 3) * 4 + 4,
    );
  const entryOk = (e: DigestEntry, i: number) =>
    typeof e === 'object' &&
    e !== null &&
    e.id === v.ids[i] &&
    DIGEST_KINDS.includes(e.kind) &&
    (e.scope === 'project' || e.scope === 'team') &&
    isStr(e.title) &&
    e.title.length <= 1000 &&
    isStr(e.lead) &&
    e.lead.length <= LEAD_CHARS + 10 &&
    e.file === p!.files[i]?.[0];
  if (!listingOk || !Array.isArray(v.entries) || v.entries.length !== v.ids.length || !v.entries.every(entryOk)) return undefined;
  return v;
}

/** True when the record's digest can be shown as it is: same roots and context, vault unchanged. */
export function digestStillValid(record: DigestRecord, roots: VaultRoots, context: string, budget: number): boolean {
  return digestMadeFor(record, roots, context, budget) && listStillValid(record.proof);
}

/** The record's digest as a {@link MemoryDigest} (files from its proof). */
export function digestOf(record: DigestRecord): MemoryDigest {
  return { text: record.text, ids: [...record.ids], files: record.proof.files.map(([f]) => f), entries: [...record.entries] };
}

/** True when the record was made for this budget, these roots and this context (whatever the vault did since). */
export function digestMadeFor(record: DigestRecord, roots: VaultRoots, context: string, budget: number): boolean {
  return record.budget === budget && record.roots[0] === roots.project && record.roots[1] === roots.team && record.context === fnv1a32(context);
}
