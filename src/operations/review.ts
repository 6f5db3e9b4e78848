/**
 * `vault review`: the proposed memories of this worktree's sessions (sessions/proposal-store.ts),
 * and a person's decision on each. Accept goes through the one save operation (save.ts) with the
 * session's harness as the writer and a link to the most related memory of the scope; reject is
 * remembered by fingerprint. Nothing else writes a proposal into the vault.
 */
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { searchMemories } from '../search/query/search-memories.js';
import { decideProposal, listProposals, type StoredProposal } from '../sessions/proposal-store.js';
import { WHY_PLACEHOLDER } from '../sessions/proposals/types.js';
import { identifyWorktree } from '../sessions/snapshots/worktree-identity.js';
import type { VaultRoots } from '../store/roots.js';
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
  const saved = await save(roots, { title, body, kind: proposal.kind, scope, tags: proposal.tags, links, sourceHarness: proposal.evidence.harness }, rt);
  decideProposal(sessionsDir, proposal, { accepted: saved.memory.id }, rt);
  return { proposal, saved };
}

/** Rejects a proposal: its fingerprint is remembered, and it is never proposed again. */
export function reviewReject(sessionsDir: string, proposal: StoredProposal, rt: Runtime): void {
  decideProposal(sessionsDir, proposal, 'rejected', rt);
}
