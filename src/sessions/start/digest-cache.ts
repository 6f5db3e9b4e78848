/**
 * The digest record of a worktree and harness: the memory digest (memory-digest.ts) computed when
 * a snapshot is written (stop, pre-compact, session-end), or by a session start that had to search
 * (start-digest.ts: the same context and proof), so session start reuses it instead of
 * searching, and the paths changed on the branch, which only that hook asks git for (through the
 * git port): session start never runs git.
 *
 * File: `<sessions>/.start/digest-<fnv1a32 of worktree, repo, harness>.json`, JSON
 * `{"v":1,"worktree","repo","harness","budget","roots","changed","context","proof","text","ids"}`. Trusted
 * only while the budget, the vault roots, the context query (fnv1a32) and the vault are unchanged: every
 * scope root and kind folder keeps its mtime (adding, removing or renaming a memory changes it)
 * and every memory shown keeps its size and mtime ({@link ListProof}, as the start record's
 * memory list). Known limit, as there: a memory that is not shown, edited in place to become
 * relevant, is seen when its folder next changes. Advisory: a missing, damaged or stale record
 * costs one search.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { ID_PATTERN } from '../../document/contract.js';
import type { GitRunner } from '../../io/git.js';
import type { Runtime } from '../../io/runtime.js';
import type { VaultRoots } from '../../store/roots.js';
import { ensureStartDir, readSnapshotText, removeStaleWorkFiles, START_DIR, writeSessionFile, type WorktreeKey } from '../snapshots/snapshot-store.js';
import { listStillValid, type ListProof } from './memory-titles.js';
import type { MemoryDigest } from './memory-digest.js';
import { fnv1a32 } from './start-cache.js';

const RECORD_VERSION = 1;
const RECORD_MAX_BYTES = 128 * 1024;
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
  text: string;
  ids: string[];
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
  return v;
}

/** True when the record's digest can be shown as it is: same roots and context, vault unchanged. */
export function digestStillValid(record: DigestRecord, roots: VaultRoots, context: string, budget: number): boolean {
  return (
    record.budget === budget &&
    record.roots[0] === roots.project &&
    record.roots[1] === roots.team &&
    record.context === fnv1a32(context) &&
    listStillValid(record.proof)
  );
}

/** The record's digest as a {@link MemoryDigest} (files from its proof). */
export function digestOf(record: DigestRecord): MemoryDigest {
  return { text: record.text, ids: [...record.ids], files: record.proof.files.map(([f]) => f) };
}
