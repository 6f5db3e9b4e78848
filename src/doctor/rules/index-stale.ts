/**
 * Rule: the search index exists and matches the files. The Markdown files are the source of
 * truth and search rebuilds or refreshes the index by itself, so this is a warning: it says the
 * next search will pay for a rebuild or refresh, or that the index is unusable and was ignored.
 *
 * The index belongs to the search module; this rule asks `indexStatus(roots, scopes)` from
 * src/search/index/index-status.ts, loaded lazily (doctor without the index check never loads search).
 * Skipped with `--changed`/`--staged` (a pull request has no index) and `--no-index-check`.
 */
import type { ScopeIndexStatus } from '../../search/index/index-status.js';
import type { DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';

/** Warnings for a missing, unusable or stale search index, per scope. */
export async function checkIndexFreshness(ctx: DoctorContext): Promise<Diagnostic[]> {
  if (!ctx.checkIndex || ctx.selection) return [];
  const { indexStatus } = await import('../../search/index/index-status.js');
  let scopes: ScopeIndexStatus[];
  try {
    scopes = indexStatus(ctx.roots, ctx.scopes).scopes;
  } catch {
    return [
      diagnostic('warning', 'index-stale', `${ctx.scopes[0] ?? 'team'}/`, undefined, 'the search index could not be inspected', 'run `vault index --rebuild`'),
    ];
  }
  const out: Diagnostic[] = [];
  const hasMemories = new Set(ctx.scan.entries.map((e) => e.scope));
  for (const s of scopes) {
    const path = `${s.scope}/`;
    if (!s.exists) {
      if (!hasMemories.has(s.scope)) continue; // nothing to index
      out.push(
        s.reason && s.reason !== 'missing'
          ? diagnostic(
              'warning',
              'index-stale',
              path,
              undefined,
              `the ${s.scope} search index is unusable (${s.reason}); the next search rebuilds it`,
              'run `vault index --rebuild` (or any `vault search`)',
            )
          : diagnostic(
              'warning',
              'index-missing',
              path,
              undefined,
              `the ${s.scope} search index has not been built yet; the next search builds it`,
              'run `vault index` (or any `vault search`)',
            ),
      );
      continue;
    }
    if (!s.stale) continue;
    const parts = [s.added ? `${s.added} added` : '', s.changed ? `${s.changed} changed` : '', s.removed ? `${s.removed} removed` : ''].filter(Boolean);
    out.push(
      diagnostic(
        'warning',
        'index-stale',
        path,
        undefined,
        `the ${s.scope} search index is out of date${parts.length ? ` (${parts.join(', ')} since the last refresh)` : ''}; the next search refreshes it`,
        'run `vault index` (or any `vault search`); `vault watch` keeps it current',
      ),
    );
  }
  return out;
}
