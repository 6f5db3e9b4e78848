/**
 * The text `vault search` and `vault read` print for an answer, as functions of the answer alone:
 * the CLI prints it (cli/commands/search-run.ts, read-run.ts), and the index server renders the
 * same bytes for a request that asks for them (resident-protocol.ts, `render`), so a served
 * answer costs the CLI no more than writing them (cli/served-main.ts).
 */
import { doctorCommandFor, toFrontmatter, type Memory } from '../../document/contract.js';
import { quoteInput } from '../../document/echo-input.js';
import { sanitizeTerminalText as clean } from '../../unicode/terminal-text.js';
import { tokenizeQuery } from '../analysis/tokenizer.js';
import { markTerms } from '../query/excerpt.js';
import type { SearchResponse } from '../query/search-memories.js';

/** The marks of a colour terminal (the adapters pass picocolors' functions); undefined: plain text. */
export interface TextColors {
  bold(text: string): string;
  dim(text: string): string;
  yellow(text: string): string;
}

/** A value as `--json` prints it: 2-space JSON and a newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * What `vault search` prints on stdout without `--json`: numbered hits (title, a meta line, the
 * path, the excerpt with the query's terms marked on a colour terminal), then the count line.
 *
 * @param query the query as the CLI joined it (the words, one space apart)
 */
export function searchText(query: string, response: SearchResponse, colors: TextColors | undefined): string {
  const pc = colors;
  const terms = tokenizeQuery(query);
  const lines: string[] = [];
  response.results.forEach((h, i) => {
    const title = clean(h.title);
    const excerpt = clean(h.excerpt);
    lines.push(`${i + 1}. ${pc ? pc.bold(title) : title}`);
    const meta = [
      h.id,
      h.kind,
      h.scope,
      h.status !== 'active' ? h.status : '',
      h.updatedAt.slice(0, 10),
      query.trim() ? `score ${h.score}` : '',
      h.tags.length ? h.tags.map((t) => `#${t}`).join(' ') : '',
    ]
      .filter(Boolean)
      .join(' · ');
    lines.push(`   ${pc ? pc.dim(clean(meta)) : clean(meta)}`);
    lines.push(`   ${clean(h.path)}`);
    lines.push(`   ${pc ? markTerms(excerpt, terms, (w) => pc.bold(pc.yellow(w))) : excerpt}`);
  });
  const shown = response.results.length;
  // a credential pasted as a query is not echoed back (terminal logs, CI output)
  const echo = shown === 0 && query.trim() ? quoteInput(/^".*"$/s.test(query.trim()) ? query.trim().slice(1, -1) : query) : '';
  lines.push(
    shown === 0
      ? query.trim()
        ? `no memories match ${echo}`
        : 'no memories'
      : `${shown} of ${response.total} ${response.total === 1 ? 'memory' : 'memories'}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The warnings `vault search` prints on stderr without `--json` about its answer: invalid files
 * not searched, symbolic links skipped, a vault not read completely (each with the doctor
 * command for the searched scopes); an empty string when there are none.
 */
export function searchWarnings(response: SearchResponse): string {
  const d = response.diagnostics;
  const doctor = doctorCommandFor(d.index.map((i) => i.scope));
  let out = '';
  if (d.invalidFiles.length)
    out += `warning: ${d.invalidFiles.length} invalid file(s) not searched (first: ${clean(d.invalidFiles[0]!.path)}: ${clean(d.invalidFiles[0]!.message)}); run \`${doctor}\`\n`;
  if (d.skippedSymlinks.length) out += `warning: ${d.skippedSymlinks.length} symbolic link(s) skipped\n`;
  if (!d.complete) out += `warning: the vault could not be read completely: ${clean(d.incompleteReasons.join('; '))}; run \`${doctor}\`\n`;
  return out;
}

/** The part of a read's result (operations/read.ts `ReadResult`) that `vault read` prints. */
export interface ReadView {
  memory: Memory;
  /** vault-relative path */
  path: string;
  canonical: boolean;
  backlinks: readonly { id: string; title: string; kind: string; status: string }[];
}

/**
 * What `vault read --json` prints (before {@link jsonText}): the frontmatter's snake_case keys,
 * `body`, `path`, `canonical`, `backlinks`, then the deprecated camelCase aliases
 * `sourceHarness`, `targetHarnesses`, `createdAt`, `updatedAt` (docs/cli.md, "read --json").
 */
export function readJson(r: ReadView): Record<string, unknown> {
  const m = r.memory;
  return {
    ...toFrontmatter(m),
    body: m.body,
    path: r.path,
    canonical: r.canonical,
    backlinks: r.backlinks,
    sourceHarness: m.sourceHarness,
    targetHarnesses: m.targetHarnesses,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/**
 * What `vault read` prints without `--json`: a header (title; id, kind, scope, status, trust;
 * path; tags; links; harnesses and dates), the body, and the memories linking to it, each line
 * with terminal control and bidi characters removed.
 */
export function readText(r: ReadView): string {
  const m = r.memory;
  const lines = [m.title, `${m.id} · ${m.kind} · ${m.scope} · ${m.status} · ${m.trust}`, `path: ${r.path}`];
  if (m.tags.length) lines.push(`tags: ${m.tags.join(', ')}`);
  if (m.links.length) lines.push(`links: ${m.links.join(', ')}`);
  lines.push(`from ${m.sourceHarness} for ${m.targetHarnesses.join(', ')} · created ${m.createdAt} · updated ${m.updatedAt}`, '', m.body);
  if (r.backlinks.length) {
    lines.push('', 'linked from:');
    for (const b of r.backlinks) lines.push(`  ${b.id}  ${b.title} (${b.kind}, ${b.status})`);
  }
  return lines.map((l) => `${clean(l)}\n`).join('');
}
