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
import { capText, oneLine, redact, stripControls } from '../transcripts/text.js';
import { HISTORICAL_MARKER } from './injection-text.js';

/** Default character budget of the digest (ECC_SESSION_START_MEMORY_CHARS). */
export const DEFAULT_MEMORY_CHARS = 3000;
/** Characters of a body shown per entry (cut earlier at a sentence or line end). */
export const LEAD_CHARS = 300;
/** First line of the digest. */
export const DIGEST_MARKER = `${HISTORICAL_MARKER} UNREVIEWED VAULT MEMORIES:`;
/** Last line of the digest. */
export const DIGEST_FOOTER = 'More: `vault search "<words>"` (CLI) or the memory_search tool (MCP); `vault read <id>` or memory_read for a whole memory.';

/** Entries per kind before the rest of the budget is shared out, in this order. */
export const KIND_QUOTAS: ReadonlyArray<readonly [Kind, number]> = [
  ['handoff', 3],
  ['preference', 3],
  ['decision', 3],
  ['runbook', 2],
  ['lesson', 2],
  ['context', 1],
  ['fact', 1],
];
const DIGEST_KINDS: Kind[] = KIND_QUOTAS.map(([k]) => k);
/** Candidates asked of the search per pass. */
const CANDIDATES = 40;

/** One memory of the digest. */
export interface DigestEntry {
  id: string;
  kind: Kind;
  scope: Scope;
  title: string;
  /** the start of the body, cleaned, ≤ {@link LEAD_CHARS} */
  lead: string;
  /** absolute path of its file (for reuse checks) */
  file: string;
}

/** The digest as injected, and which memories it shows. */
export interface MemoryDigest {
  text: string;
  ids: string[];
  /** files of the memories shown, in order */
  files: string[];
}

/** The start of a body: cleaned, then cut at the last sentence or line end within `max` characters. */
export function leadOf(body: string, max = LEAD_CHARS): string {
  const clean = redact(stripControls(body))
    .replace(/^#+\s.*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean.length <= max) return clean;
  const head = clean.slice(0, max);
  const stop = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '), head.lastIndexOf('; '));
  if (stop >= max / 3) return head.slice(0, stop + 1);
  return capText(clean, max);
}

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

/** Neutralises marker lines of ours inside memory text. */
function defuse(text: string): string {
  return text
    .replace(/HISTORICAL REFERENCE/g, 'historical reference')
    .replace(/--- (BEGIN|END) PRIOR-SESSION SUMMARY ---/g, '--- ($1 prior-session summary) ---');
}

/** The lines of one entry. */
export function renderEntry(e: Pick<DigestEntry, 'id' | 'kind' | 'scope' | 'title' | 'lead'>): string {
  const head = `- ${oneLine(e.id, 140)} [${e.scope}/${e.kind}] ${defuse(oneLine(e.title, 200))}`;
  return e.lead ? `${head}\n  ${defuse(e.lead)}` : head;
}

/**
 * Renders the digest within `maxChars` (UTF-16 units, marker and footer included): entries in
 * order, each whole or not at all. '' when no entry fits or there are none.
 */
export function renderDigest(entries: readonly DigestEntry[], maxChars: number): MemoryDigest {
  const head = `${DIGEST_MARKER}\nMemories of this vault that may matter in this worktree. Written by agents and people, never reviewed by the vault: they can be wrong or out of date; check before relying on one.`;
  let used = head.length + 1 + DIGEST_FOOTER.length;
  const lines: string[] = [];
  const ids: string[] = [];
  const files: string[] = [];
  for (const e of entries) {
    const text = renderEntry(e);
    if (used + text.length + 1 > maxChars) continue;
    used += text.length + 1;
    lines.push(text);
    ids.push(e.id);
    files.push(e.file);
  }
  if (!lines.length) return { text: '', ids: [], files: [] };
  return { text: [head, ...lines, DIGEST_FOOTER].join('\n'), ids, files };
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
  if (maxChars <= 0) return { text: '', ids: [], files: [] };
  return renderDigest(await collectDigestEntries(roots, harness, context, who), maxChars);
}
