/**
 * What the session-start hook does, as a library operation ({@link prepareSessionStart}): prune
 * snapshots past the retention, find the latest complete snapshot of exactly this worktree, and
 * build the context to inject. Kept apart from the transcript readers so the hook that runs on
 * every start loads as little code as possible.
 *
 * The fast path reads the worktree's start record (start-cache.ts), written by the hook that
 * last wrote one of its snapshots, and uses it only while the sessions folder and the vault
 * folders are unchanged since; otherwise the full path lists the snapshots (snapshot-index.ts)
 * and the memories (memory-titles.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Runtime } from '../../io/runtime.js';
import type { VaultRoots } from '../../store/roots.js';
import type { SessionSnapshot } from '../snapshots/snapshot.js';
import { buildInjectionText, type MemoryPointer } from './injection-text.js';
import { listStillValid, type ListProof } from './memory-titles.js';
import { fnv1a32, readStartRecord, snapshotContext, startFromRecord, type StartMemories } from './start-cache.js';
import { discoverSnapshot } from '../snapshots/snapshot-index.js';
import { removeStaleFiles, type WorktreeKey } from '../snapshots/snapshot-store.js';
import { identifyWorktree } from '../snapshots/worktree-identity.js';

function usableDir(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isAbsolute(value) || value.length > 4096 || value.includes('\u0000')) return undefined;
  try {
    return statSync(value).isDirectory() ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Input of {@link prepareSessionStart}. */
export interface StartInput {
  /** `cwd` as received (falls back to the runtime's cwd) */
  cwd: unknown;
  sessionsDir: string;
  /** inject the prior snapshot (false: only prune) */
  inject: boolean;
  /** character budget of the context */
  maxChars: number;
  /** snapshots older than this many days are not injected */
  maxAgeDays: number;
  /** retention in days; undefined disables pruning */
  retentionDays: number | undefined;
  /** list relevant memories (ids and titles) from these roots; `proof` is filled with what the list was made from */
  memories?: MemoryLister | undefined;
}

/** How relevant memories are listed (memory-titles.ts in the hook). */
export interface MemoryLister {
  roots: () => VaultRoots;
  limit: number;
  list: (roots: VaultRoots, context: string, proof?: ListProof) => MemoryPointer[];
}

/**
 * Lists the memories relevant to a snapshot for its start record: the list and what it was made
 * from. Undefined when the list could not be made (a broken vault).
 */
export function listForRecord(lister: MemoryLister, snapshot: SessionSnapshot): StartMemories | undefined {
  try {
    const roots = lister.roots();
    const context = snapshotContext(snapshot);
    const proof: ListProof = { folders: [], files: [], complete: true };
    const list = lister.list(roots, context, proof).slice(0, lister.limit);
    return { roots: [roots.project, roots.team], context: fnv1a32(context), proof, list };
  } catch {
    return undefined;
  }
}

/** What {@link prepareSessionStart} found. */
export interface StartOutcome {
  /** the context to inject ('' when none) */
  context: string;
  pruned: number;
  snapshotPath?: string;
  memoryCount: number;
  /** what came from the worktree's start record (start-cache.ts): the snapshot, the memory list */
  fromRecord: { snapshot: boolean; memories: boolean };
  /** the snapshot injected, and the worktree (for the memory digest, start-digest.ts) */
  snapshot?: SessionSnapshot;
  worktree?: { key: WorktreeKey; branch: string | undefined };
}

/**
 * Prepares the session-start context for a working directory: prunes snapshots past the
 * retention, then injects the newest complete snapshot of exactly this worktree (never another
 * worktree's or project's, however new), wrapped as historical reference and capped.
 */
export function prepareSessionStart(rt: Runtime, input: StartInput): StartOutcome {
  const inject = input.inject && input.maxChars > 0;
  const cwd = usableDir(input.cwd) ?? rt.cwd;
  const where = existsSync(cwd) ? identifyWorktree(cwd) : undefined;
  const nowMs = rt.now().getTime();
  const maxAgeMs = input.maxAgeDays * 86_400_000;

  // Fast path: the start record of this worktree, while nothing it was made from changed. A
  // snapshot past the retention is left to the full path, which prunes it; pruning is otherwise
  // done when snapshots are written (record-session.ts), off this path.
  const record = inject && where ? readStartRecord(input.sessionsDir, where) : undefined;
  const retentionMs = input.retentionDays === undefined ? Infinity : input.retentionDays * 86_400_000;
  const fast = record && where ? startFromRecord(input.sessionsDir, record, where, nowMs, Math.min(maxAgeMs, retentionMs)) : undefined;
  let found = fast;
  let pruned = 0;
  if (!fast) {
    const d = discoverSnapshot(input.sessionsDir, where ?? { worktree: '', repo: undefined }, rt, {
      maxAgeMs,
      retentionDays: input.retentionDays,
      find: inject && where !== undefined,
    });
    pruned = d.pruned;
    if (pruned) removeStaleFiles(input.sessionsDir, nowMs, rt);
    found = d.found;
  }
  if (!inject || !where) return { context: '', pruned, memoryCount: 0, fromRecord: { snapshot: false, memories: false } };
  let memories: MemoryPointer[] = [];
  let listFromRecord = false;
  if (input.memories) {
    try {
      const s = found?.snapshot;
      const ctx = s ? snapshotContext(s) : (where.branch ?? '');
      const roots = input.memories.roots();
      // The record's list holds on the full path too (the sessions folder changed, not the vault)
      // when it was ranked by the same text: the roots, the context and the vault proof decide.
      const kept = record?.memories;
      if (kept && kept.roots[0] === roots.project && kept.roots[1] === roots.team && kept.context === fnv1a32(ctx) && listStillValid(kept.proof)) {
        memories = kept.list.slice(0, input.memories.limit);
        listFromRecord = true;
      } else memories = input.memories.list(roots, ctx).slice(0, input.memories.limit);
    } catch {
      memories = []; // a broken vault never breaks session start
    }
  }
  const context = buildInjectionText(found?.snapshot, memories, input.maxChars);
  return {
    context,
    pruned,
    ...(found ? { snapshot: found.snapshot } : {}),
    worktree: { key: { worktree: where.worktree, repo: where.repo, repoId: where.repoId }, branch: where.branch },
    ...(found ? { snapshotPath: found.file.path } : {}),
    memoryCount: memories.length,
    fromRecord: { snapshot: Boolean(fast), memories: listFromRecord },
  };
}
