/**
 * The memory digest at the two moments it is made: when a snapshot is written
 * ({@link precomputeDigest}: asks git for the changed paths, searches, stores the digest record)
 * and at session start ({@link startDigest}: the record's digest while it holds; the record's
 * digest with the memories saved since on top while the vault only grew (digest-delta.ts); else
 * one search with the changed paths the record kept; never git).
 */
import type { GitRunner } from '../../io/git.js';
import type { Runtime } from '../../io/runtime.js';
import type { ClientIdentity } from '../../search/resident/resident-client.js';
import type { VaultRoots } from '../../store/roots.js';
import type { SessionSnapshot } from '../snapshots/snapshot.js';
import type { WorktreeKey } from '../snapshots/snapshot-store.js';
import {
  changedPaths,
  digestContext,
  digestMadeFor,
  digestOf,
  digestStillValid,
  finishProof,
  listKindFolders,
  readDigestRecord,
  vaultFolders,
  writeDigestRecord,
  type FolderListing,
} from './digest-cache.js';
import { DEFAULT_MEMORY_CHARS, renderDigest, type DigestEntry, type MemoryDigest } from './digest-render.js';

/** The digest builder and the search under it, loaded only when a digest is built (not when a record holds). */
const builder = () => import('./memory-digest.js');
/** The reader of memories saved since a record (the scanner's checks), loaded only when the vault grew since the record. */
const delta = () => import('./digest-delta.js');
import { fnv1a32 } from './start-cache.js';

/** Where and for whom a digest is made. */
export interface DigestTarget {
  sessionsDir: string;
  roots: VaultRoots;
  /** the harness, canonical name */
  harness: string;
  key: WorktreeKey;
  /** the worktree's branch now */
  branch: string | undefined;
  /** the latest snapshot of the worktree, if any */
  snapshot: SessionSnapshot | undefined;
  /** character budget (ECC_SESSION_START_MEMORY_CHARS) */
  budget: number;
  /** the process searching (user id, environment: the index server, ECC_INDEX_FULL_CHECK_S) */
  who: ClientIdentity;
}

function contextOf(t: DigestTarget, changed: readonly string[]): string {
  return digestContext({ branch: t.snapshot?.branch ?? t.branch, goal: t.snapshot?.goal, files: t.snapshot?.files, changed });
}

/**
 * Computes the digest for the next session start of a worktree and stores it (digest-cache.ts).
 * Runs git (through `git`) in `cwd` for the changed paths. Never throws: a failure leaves the
 * next start to search.
 */
export async function precomputeDigest(rt: Runtime, t: DigestTarget, git: GitRunner, cwd: string): Promise<MemoryDigest | undefined> {
  try {
    const changed = changedPaths(git, cwd);
    const context = contextOf(t, changed);
    const proof = vaultFolders(t.roots);
    const listing = listKindFolders(proof, t.roots);
    const digest = await (await builder()).buildMemoryDigest(t.roots, t.harness, context, t.who, t.budget);
    storeDigest(rt, t, changed, context, proof, listing, digest);
    return digest;
  } catch {
    return undefined;
  }
}

/** Finishes the proof that the vault did not change while `digest` was searched, and stores it as the record. @throws what the proof or the write throws */
function storeDigest(
  rt: Runtime,
  t: DigestTarget,
  changed: string[],
  context: string,
  proof: ReturnType<typeof vaultFolders>,
  listing: FolderListing,
  digest: MemoryDigest,
): void {
  finishProof(proof, digest.files, rt.now().getTime());
  writeDigestRecord(
    t.sessionsDir,
    t.key,
    {
      harness: t.harness,
      budget: t.budget,
      roots: [t.roots.project, t.roots.team],
      changed,
      context: fnv1a32(context),
      proof,
      listing,
      text: digest.text,
      ids: digest.ids,
      entries: digest.entries,
    },
    rt,
  );
}

/** ECC_INDEX_FULL_CHECK_S=0 (as index-freshness.ts reads it): every search checks every file, so no record is trusted. */
function checksEveryFile(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env.ECC_INDEX_FULL_CHECK_S?.trim();
  return v !== undefined && /^0{1,9}$/.test(v);
}

/** Where a session start's digest came from: the record as it is, the record with memories saved since on top, or a search. */
export type DigestSource = 'record' | 'record+new' | 'search';

/**
 * The digest for a session start: the stored one while its record holds; while the vault only
 * grew since (memories added, none changed or removed: digest-delta.ts), the stored one with the
 * new memories for this harness on top (no search: the next snapshot ranks them); else searched
 * now (with the changed paths the record kept, if any). With `rt`, a digest searched now is
 * stored as the record (the same context, the same proof as at a stop: only from a vault
 * unchanged for 2 s), so the starts after one change search once, not each time.
 * ECC_INDEX_FULL_CHECK_S=0 (in `t.who.env`) neither trusts nor stores a record.
 *
 * @returns the digest, whether it came from the record, and how (`source`; `fresh`: memories
 *   shown as saved since the record)
 * @throws what the search throws on a broken vault (the hook catches it)
 */
export async function startDigest(t: DigestTarget, rt?: Runtime): Promise<{ digest: MemoryDigest; fromRecord: boolean; source: DigestSource; fresh: number }> {
  const everyFile = checksEveryFile(t.who.env);
  const record = readDigestRecord(t.sessionsDir, t.key, t.harness);
  const changed = record?.changed ?? [];
  const context = contextOf(t, changed);
  if (record && !everyFile && digestStillValid(record, t.roots, context, t.budget))
    return { digest: digestOf(record), fromRecord: true, source: 'record', fresh: 0 };
  if (record && !everyFile && digestMadeFor(record, t.roots, context, t.budget)) {
    let added: DigestEntry[] | undefined;
    try {
      added = (await delta()).savedSince(record, t.roots, t.harness);
    } catch {
      added = undefined; // no proof: search
    }
    if (added) {
      const digest = added.length ? renderDigest(record.entries, t.budget, added) : digestOf(record);
      const fresh = digest.ids.filter((id) => !record.ids.includes(id)).length;
      if (fresh === 0) return { digest: digestOf(record), fromRecord: true, source: 'record', fresh: 0 };
      return { digest, fromRecord: true, source: 'record+new', fresh };
    }
  }
  const proof = rt && !everyFile ? vaultFolders(t.roots) : undefined;
  const listing = proof ? listKindFolders(proof, t.roots) : undefined;
  const digest = await (await builder()).buildMemoryDigest(t.roots, t.harness, context, t.who, t.budget);
  if (rt && proof && listing) {
    try {
      storeDigest(rt, t, changed, context, proof, listing, digest);
    } catch {
      /* a cache: the next start searches */
    }
  }
  return { digest, fromRecord: false, source: 'search', fresh: 0 };
}

/**
 * The digest a session start in `cwd` would show (same snapshot, same record, same search), for
 * clients without hooks: the MCP `memory_digest` prompt and `memory://digest` resource.
 *
 * ECC_SESSION_START_MEMORY_CHARS and ECC_SESSION_START_MAX_AGE_DAYS are read from `rt.env` with the
 * hook's rules (a whole number; invalid → the default; the budget capped by
 * ECC_SESSION_START_MAX_CHARS).
 *
 * @returns the digest text ('' when there is nothing to show)
 */
export async function worktreeDigest(rt: Runtime, roots: VaultRoots, harness: string, cwd: string): Promise<string> {
  const num = (v: string | undefined, d: number) => (v !== undefined && /^\s*\d{1,9}\s*$/.test(v) ? Number.parseInt(v, 10) : d);
  const budget = Math.min(num(rt.env.ECC_SESSION_START_MEMORY_CHARS, DEFAULT_MEMORY_CHARS), num(rt.env.ECC_SESSION_START_MAX_CHARS, 8000));
  if (budget <= 0) return '';
  const [{ prepareSessionStart }, { resolveSessionsDir }] = await Promise.all([import('./session-start.js'), import('../snapshots/snapshot-store.js')]);
  const sessionsDir = resolveSessionsDir(rt);
  const found = prepareSessionStart(rt, {
    cwd,
    sessionsDir,
    inject: true,
    maxChars: 8000,
    maxAgeDays: num(rt.env.ECC_SESSION_START_MAX_AGE_DAYS, 7) || 7,
    retentionDays: undefined,
  });
  if (!found.worktree) return '';
  const { digest } = await startDigest({
    sessionsDir,
    roots,
    harness,
    key: found.worktree.key,
    branch: found.worktree.branch,
    snapshot: found.snapshot,
    budget,
    who: rt,
  });
  return digest.text;
}
