/**
 * What the session-start hook does, as a library operation ({@link prepareSessionStart}): prune
 * snapshots past the retention, find the latest complete snapshot of exactly this worktree, and
 * build the context to inject. Kept apart from the transcript readers so the hook that runs on
 * every start loads as little code as possible.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Runtime } from '../io/runtime.js';
import type { VaultRoots } from '../store/roots.js';
import { buildInjectionText, type MemoryPointer } from './injection-text.js';
import { discoverSnapshot } from './snapshot-index.js';
import { removeStaleFiles } from './snapshot-store.js';
import { identifyWorktree } from './worktree-identity.js';

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
  /** list relevant memories (ids and titles) from these roots */
  memories?: { roots: () => VaultRoots; limit: number; list: (roots: VaultRoots, context: string) => MemoryPointer[] } | undefined;
}

/** What {@link prepareSessionStart} found. */
export interface StartOutcome {
  /** the context to inject ('' when none) */
  context: string;
  pruned: number;
  snapshotPath?: string;
  memoryCount: number;
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
  const d = discoverSnapshot(input.sessionsDir, where ?? { worktree: '', repo: undefined }, rt, { maxAgeMs: input.maxAgeDays * 86_400_000, retentionDays: input.retentionDays, find: inject && where !== undefined });
  const pruned = d.pruned;
  if (pruned) removeStaleFiles(input.sessionsDir, rt.now().getTime());
  if (!inject || !where) return { context: '', pruned, memoryCount: 0 };
  const found = d.found;
  let memories: MemoryPointer[] = [];
  if (input.memories) {
    try {
      const s = found?.snapshot;
      const ctx = s ? [s.goal, ...s.requests, ...s.files, s.branch].filter(Boolean).join(' ') : where.branch ?? '';
      memories = input.memories.list(input.memories.roots(), ctx).slice(0, input.memories.limit);
    } catch {
      memories = []; // a broken vault never breaks session start
    }
  }
  const context = buildInjectionText(found?.snapshot, memories, input.maxChars);
  return { context, pruned, ...(found ? { snapshotPath: found.file.path } : {}), memoryCount: memories.length };
}
