/**
 * The memory digest: the memories most worth knowing in a worktree, as the text session start
 * injects after the snapshot summary, and the MCP `memory_digest` prompt and `memory://digest`
 * resource return (one builder, so they are the same text).
 *
 * Ranking: a context query (branch name, the last snapshot's goal and files, the paths changed
 * on the branch; digestContext in digest-cache.ts) through the search layer (the vault's index
 * server when one runs, else searchMemories on the files with ECC_INDEX_FULL_CHECK_S as in the
 * CLI), then newest first to fill. Active memories targeted at the
 * harness (aliases resolved) only. Order and quotas: hand-offs for this harness first, then
 * {@link KIND_QUOTAS} in order (preferences, decisions, runbooks, lessons, then context and
 * facts); what is left of the budget goes to further memories in the same order.
 *
 * Each entry: id, kind, title and the first ~300 characters of the body cut at a sentence or line
 * end, invisible and control characters stripped and credential shapes redacted. Capped by its own
 * character budget (ECC_SESSION_START_MEMORY_CHARS, default 3,000), ends with how to search for
 * more. The whole digest is marked as unreviewed historical reference.
 */
import { join } from 'node:path';
import { LIMITS, type Kind, type Scope } from '../../document/contract.js';
import { parseMemory } from '../../document/parse.js';
import { readScopeFile } from '../../store/read-scope-file.js';
import { scopeRoot, type VaultRoots } from '../../store/roots.js';
import type { SearchHit } from '../../search/query/search-memories.js';
import { type ClientIdentity, HOOK_REPLY_TIMEOUT_MS, searchServedOrOnDisk } from '../../search/resident/resident-client.js';
import { DEFAULT_MEMORY_CHARS, DIGEST_KINDS, KIND_QUOTAS, leadOf, renderDigest, type DigestEntry, type MemoryDigest } from './digest-render.js';

export { DEFAULT_MEMORY_CHARS, DIGEST_FOOTER, DIGEST_MARKER, KIND_QUOTAS, LEAD_CHARS, leadOf, renderDigest, renderEntry } from './digest-render.js';
export type { DigestEntry, MemoryDigest } from './digest-render.js';

/** Candidates asked of the search per pass. */
const CANDIDATES = 40;

function entryOf(roots: VaultRoots, hit: SearchHit): DigestEntry | undefined {
  const rel = hit.path.slice(hit.scope.length + 1);
  const file = join(scopeRoot(roots, hit.scope), ...rel.split('/'));
  const r = readScopeFile(roots, hit.scope, rel, LIMITS.documentMaxBytes);
  if (!r.ok) return undefined;
  try {
    const m = parseMemory(r.bytes).memory;
    if (m.id !== hit.id || m.status !== 'active') return undefined;
    return { id: m.id, kind: m.kind, scope: hit.scope, title: m.title, lead: leadOf(m.body), file };
  } catch {
    return undefined;
  }
}

/**
 * The memories a digest may show, best first within each kind: those matching the context, then
 * the newest. Reads each chosen file once (the truth) for its body.
 *
 * @param harness the harness it is for (`target_harnesses`, aliases resolved)
 * @param context the context query (digestContext); empty: newest first
 * @param who the process (user id, environment): the index server is asked first (at most
 *   {@link HOOK_REPLY_TIMEOUT_MS}), ECC_INDEX_FULL_CHECK_S applies
 * @throws VaultError only for a bug in the options; a broken vault gives fewer entries
 */
export async function collectDigestEntries(roots: VaultRoots, harness: string, context: string, who: ClientIdentity): Promise<DigestEntry[]> {
  // no phrase boost: the context query is no phrase a memory holds, and the boost would read 3 × CANDIDATES files
  const options = { scopes: ['project', 'team'] as Scope[], kinds: DIGEST_KINDS, targetHarness: harness, limit: CANDIDATES, feedback: false, phrase: false };
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const add = (list: readonly SearchHit[]) => {
    for (const h of list) if (!seen.has(h.id)) seen.add(h.id) && hits.push(h);
  };
  const search = (q: string) => searchServedOrOnDisk(roots, q, options, who, HOOK_REPLY_TIMEOUT_MS);
  if (context.trim()) add((await search(context)).results);
  add((await search('')).results);
  const byKind = new Map<Kind, SearchHit[]>();
  for (const h of hits) {
    const list = byKind.get(h.kind) ?? [];
    list.push(h);
    byKind.set(h.kind, list);
  }
  // quotas first, in kind order, then the rest in the same order
  const chosen: SearchHit[] = [];
  for (const [kind, quota] of KIND_QUOTAS) chosen.push(...(byKind.get(kind) ?? []).slice(0, quota));
  for (const [kind, quota] of KIND_QUOTAS) chosen.push(...(byKind.get(kind) ?? []).slice(quota));
  const out: DigestEntry[] = [];
  for (const h of chosen) {
    if (out.length >= 30) break;
    const e = entryOf(roots, h);
    if (e) out.push(e);
  }
  return out;
}

/**
 * Builds the digest for a harness and a context query.
 *
 * @param maxChars character budget (default {@link DEFAULT_MEMORY_CHARS})
 * @param who the process asking (see {@link collectDigestEntries})
 */
export async function buildMemoryDigest(
  roots: VaultRoots,
  harness: string,
  context: string,
  who: ClientIdentity,
  maxChars = DEFAULT_MEMORY_CHARS,
): Promise<MemoryDigest> {
  if (maxChars <= 0) return { text: '', ids: [], files: [], entries: [] };
  return renderDigest(await collectDigestEntries(roots, harness, context, who), maxChars);
}
