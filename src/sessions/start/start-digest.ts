/**
 * The memory digest at the two moments it is made: when a snapshot is written
 * ({@link precomputeDigest}: asks git for the changed paths, searches, stores the digest record)
 * and at session start ({@link startDigest}: the record's digest while it holds, else one search
 * with the changed paths the record kept; never git).
 */
import type { GitRunner } from '../../io/git.js';
import type { Runtime } from '../../io/runtime.js';
import type { ClientIdentity } from '../../search/resident/resident-client.js';
import type { VaultRoots } from '../../store/roots.js';
import type { SessionSnapshot } from '../snapshots/snapshot.js';
import type { WorktreeKey } from '../snapshots/snapshot-store.js';
import { changedPaths, digestContext, digestOf, digestStillValid, finishProof, readDigestRecord, vaultFolders, writeDigestRecord } from './digest-cache.js';
import type { MemoryDigest } from './memory-digest.js';

/** The digest builder and the search under it, loaded only when a digest is built (not when a record holds). */
const builder = () => import('./memory-digest.js');
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
    const digest = await (await builder()).buildMemoryDigest(t.roots, t.harness, context, t.who, t.budget);
    storeDigest(rt, t, changed, context, proof, digest);
    return digest;
  } catch {
    return undefined;
  }
}

/** Finishes the proof that the vault did not change while `digest` was searched, and stores it as the record. @throws what the proof or the write throws */
function storeDigest(rt: Runtime, t: DigestTarget, changed: string[], context: string, proof: ReturnType<typeof vaultFolders>, digest: MemoryDigest): void {
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
      text: digest.text,
      ids: digest.ids,
    },
    rt,
  );
}

/** ECC_INDEX_FULL_CHECK_S=0 (as index-freshness.ts reads it): every search checks every file, so no record is trusted. */
function checksEveryFile(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env.ECC_INDEX_FULL_CHECK_S?.trim();
  return v !== undefined && /^0{1,9}$/.test(v);
}

/**
 * The digest for a session start: the stored one while its record holds, else searched now
 * (with the changed paths the record kept, if any). With `rt`, a digest searched now is stored as
 * the record (the same context, the same proof as at a stop: only from a vault unchanged for 2 s),
 * so the starts after one change search once, not each time. ECC_INDEX_FULL_CHECK_S=0 (in
 * `t.who.env`) neither trusts nor stores a record.
 *
 * @returns the digest and whether it came from the record
 * @throws what the search throws on a broken vault (the hook catches it)
 */
export async function startDigest(t: DigestTarget, rt?: Runtime): Promise<{ digest: MemoryDigest; fromRecord: boolean }> {
  const everyFile = checksEveryFile(t.who.env);
  const record = readDigestRecord(t.sessionsDir, t.key, t.harness);
  const changed = record?.changed ?? [];
  const context = contextOf(t, changed);
  if (record && !everyFile && digestStillValid(record, t.roots, context, t.budget)) return { digest: digestOf(record), fromRecord: true };
  const proof = rt && !everyFile ? vaultFolders(t.roots) : undefined;
  const digest = await (await builder()).buildMemoryDigest(t.roots, t.harness, context, t.who, t.budget);
  if (rt && proof) {
    try {
      storeDigest(rt, t, changed, context, proof, digest);
    } catch {
      /* a cache: the next start searches */
    }
  }
  return { digest, fromRecord: false };
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
  const budget = Math.min(num(rt.env.ECC_SESSION_START_MEMORY_CHARS, (await builder()).DEFAULT_MEMORY_CHARS), num(rt.env.ECC_SESSION_START_MAX_CHARS, 8000));
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
