/**
 * `vault review`: the proposed memories of this worktree's sessions (sessions/proposal-store.ts),
 * and a person's decision on each. Accept goes through the one save operation (save.ts) with the
 * session's harness as the writer and a link to the most related memory of the scope; reject is
 * remembered by fingerprint. Nothing else writes a proposal into the vault.
 */
import { createHash } from 'node:crypto';
import type { Scope } from '../document/contract.js';
import { isVaultError, VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { searchMemories } from '../search/query/search-memories.js';
import { decideProposal, listProposals, type StoredProposal } from '../sessions/proposal-store.js';
import { WHY_PLACEHOLDER } from '../sessions/proposals/types.js';
import { identifyWorktree } from '../sessions/snapshots/worktree-identity.js';
import type { VaultRoots } from '../store/roots.js';
import { readMemory } from './read.js';
import { save, type SaveResult } from './save.js';
import { quoteInput } from '../document/echo-input.js';

export type { StoredProposal } from '../sessions/proposal-store.js';

/** The proposals of the worktree `cwd` lies in, newest first. */
export function reviewList(sessionsDir: string, cwd: string): StoredProposal[] {
  return listProposals(sessionsDir, identifyWorktree(cwd).worktree);
}

/**
 * One proposal of the worktree by its id (`p` + 10 hex digits, or a unique prefix of at least 4
 * characters).
 *
 * @throws VaultError `not-found` (no such proposal, hint `vault review list`), `usage` (ambiguous)
 */
/** Shortest id prefix `vault review show|accept|reject` takes (`p2e3` or `2e3f`). */
const MIN_PREFIX = 4;

export function reviewFind(sessionsDir: string, cwd: string, ref: string): StoredProposal {
  const id = ref.trim().toLowerCase();
  const all = reviewList(sessionsDir, cwd);
  if (id.length < MIN_PREFIX)
    throw new VaultError('usage', `proposal id ${JSON.stringify(ref.slice(0, 40))} is too short: a prefix needs at least ${MIN_PREFIX} characters`, {
      hint: 'give more of the id (p + 10 hex digits); run `vault review list` to see them',
    });
  const hits = all.filter((p) => p.id === id || p.id.startsWith(id) || p.id.slice(1).startsWith(id));
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) throw new VaultError('usage', `proposal id ${quoteInput(ref, 40)} is ambiguous (${hits.length} match)`, { hint: 'give more of the id' });
  throw new VaultError('not-found', `no proposal ${quoteInput(ref, 40)} for this worktree`, { hint: 'run `vault review list` to see them' });
}

/** Changes a person made before accepting (`--edit`, flags). */
export interface AcceptChanges {
  title?: string | undefined;
  body?: string | undefined;
  /** default `project` */
  scope?: string | undefined;
  /** explicit links; default: the most related active memory of the scope, when there is one */
  links?: readonly string[] | undefined;
}

/** Result of {@link reviewAccept}. */
export interface AcceptResult {
  proposal: StoredProposal;
  saved: SaveResult;
}

/**
 * Saves a proposal as an (unreviewed) memory through the save operation, then remembers its
 * fingerprint as accepted so it is never proposed again.
 *
 * @throws VaultError `invalid-input` when the body still holds {@link WHY_PLACEHOLDER} (a decision
 *   without its reason: accept with `--edit`); from save (invalid values, secrets, symlinks…), `not-found`
 */
export async function reviewAccept(
  roots: VaultRoots,
  sessionsDir: string,
  proposal: StoredProposal,
  changes: AcceptChanges,
  rt: Runtime,
): Promise<AcceptResult> {
  const body = changes.body ?? proposal.body;
  if (body.includes(WHY_PLACEHOLDER))
    throw new VaultError('invalid-input', `proposal ${proposal.id} has no reason yet: its Why section says "${WHY_PLACEHOLDER}"`, {
      field: 'body',
      rule: 'a decision is accepted with its reason',
      hint: `accept it with --edit and write the reason: vault review accept ${proposal.id} --edit`,
    });
  const scope = changes.scope ?? 'project';
  const title = changes.title ?? proposal.title;
  let links = changes.links;
  if (!links && (scope === 'project' || scope === 'team' || scope === 'user')) {
    const found = await searchMemories(roots, title, { scopes: [scope], limit: 1, feedback: false }).catch(() => undefined);
    const top = found?.results[0];
    links = top && top.score > 0 ? [top.id] : [];
  }
  const id = proposalMemoryId(proposal);
  let saved: SaveResult;
  try {
    saved = await save(roots, { title, body, kind: proposal.kind, scope, tags: proposal.tags, links, sourceHarness: proposal.evidence.harness, id }, rt);
  } catch (err) {
    // an earlier accept saved this very memory and stopped before it recorded the decision (killed,
    // or the decision lock was busy): record it now instead of saving a second copy
    if (
      !isVaultError(err) ||
      err.code !== 'already-exists' ||
      !(scope === 'project' || scope === 'team' || scope === 'user') ||
      !isEarlierAccept(roots, id, scope, proposal.kind, title, body)
    )
      throw err;
    decideProposal(sessionsDir, proposal, { accepted: id }, rt);
    throw new VaultError('already-exists', `proposal ${proposal.id} was already saved as ${id} by an accept that did not finish; it is now marked accepted`, {
      hint: `vault read ${id}${scope === 'project' ? '' : ` --scope ${scope}`}`,
    });
  }
  try {
    decideProposal(sessionsDir, proposal, { accepted: saved.memory.id }, rt);
  } catch (err) {
    if (!isVaultError(err)) throw err;
    throw new VaultError(err.code, `saved ${saved.memory.id} (${saved.path}), but could not mark proposal ${proposal.id} accepted: ${err.message}`, {
      hint: `run \`vault review accept ${proposal.id}\` again to record it (it does not save a second copy)`,
      cause: err,
    });
  }
  return { proposal, saved };
}

/**
 * The id a proposal's memory gets: fixed by the proposal's fingerprint and the day it was
 * proposed, so that an accept interrupted after its save is finished by the next accept (the save
 * then meets its own file) instead of saving a second copy.
 */
export function proposalMemoryId(proposal: Pick<StoredProposal, 'fingerprint' | 'createdAt'>): string {
  const day = /^(\d{4})-(\d{2})-(\d{2})T/.exec(proposal.createdAt);
  const hex = createHash('sha256').update(`ecc-memory-proposal\u0000${proposal.fingerprint}`).digest('hex').slice(0, 20);
  return `mem_${day ? `${day[1]}${day[2]}${day[3]}` : '00000000'}_${hex}`;
}

/** Whether memory `id` of `scope` is what this accept would save (same kind, title and body), so an earlier accept of it. */
function isEarlierAccept(roots: VaultRoots, id: string, scope: Scope, kind: string, title: string, body: string): boolean {
  try {
    const found = readMemory(roots, id, { scopes: [scope] });
    return found.memory.kind === kind && found.memory.title === title && found.memory.body.trim() === body.trim();
  } catch {
    return false;
  }
}

/** Rejects a proposal: its fingerprint is remembered, and it is never proposed again. */
export function reviewReject(sessionsDir: string, proposal: StoredProposal, rt: Runtime): void {
  decideProposal(sessionsDir, proposal, 'rejected', rt);
}
