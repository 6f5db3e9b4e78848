/**
 * The "Related:" line of wikilinks that `vault save --wikilinks` appends to a body, so that
 * Obsidian's graph and backlinks panel show the links that the frontmatter `links` list holds
 * (Obsidian does not treat frontmatter ids as links; files are named `<id>.md`, so `[[id]]` resolves).
 */
import { WIKILINK_PATTERN } from '../document/contract.js';

/**
 * Appends `Related: [[a]], [[b]]` for each id not already wikilinked in the body.
 *
 * @param body the body text
 * @param ids memory ids (already validated by the caller or by the frontmatter rules)
 * @returns the body, unchanged when every id is already linked from it
 */
export function appendRelatedLine(body: string, ids: readonly string[]): string {
  const present = new Set([...body.matchAll(WIKILINK_PATTERN)].map((m) => m[1]!));
  const missing = [...new Set(ids)].filter((id) => !present.has(id));
  if (missing.length === 0) return body;
  return `${body.trimEnd()}\n\nRelated: ${missing.map((id) => `[[${id}]]`).join(', ')}`;
}
