/**
 * The draft that `vault new` opens in an editor: a short frontmatter with the fields a person
 * chooses (title, kind, scope, tags, links, target harnesses), then the kind's template. Reading
 * it back removes the template's guidance comments and the sections left empty; everything else
 * (ids, timestamps, trust, status) is filled in by the save, which validates the whole memory.
 */
import matter from 'gray-matter';
import type { Kind } from '../document/contract.js';
import { assertYamlLimits, GRAY_MATTER_OPTIONS } from '../document/yaml-engine.js';
import { VaultError, isVaultError } from '../errors.js';
import { collapse, splitSections, type KindTemplate } from './kind-template.js';
import { boundInput, quoteInput } from '../document/echo-input.js';

/** What the draft's frontmatter holds, in its order. */
export const DRAFT_FIELDS = ['title', 'kind', 'scope', 'tags', 'links', 'target_harnesses'] as const;

/** The values a draft starts with. */
export interface DraftValues {
  title: string;
  kind: Kind;
  scope: string;
  tags: readonly string[];
  links: readonly string[];
  targetHarnesses: readonly string[];
}

/** What a person wrote in a draft, ready for the save operation (`save`). */
export interface DraftInput {
  title: string;
  kind: string;
  scope: string;
  tags: string[];
  links: string[];
  targetHarnesses: string[];
  body: string;
}

/** The comment at the top of every draft body; removed on read like template guidance. */
export const DRAFT_INSTRUCTIONS =
  'vault new: write the memory below, then save and close the editor. Comments like this one are removed and sections left empty are dropped. To abort, quit the editor with an error (vim: :cq) or leave every section empty; nothing is saved and the draft is kept.';

/**
 * Renders the draft text: frontmatter (JSON values, which are valid YAML) and the template body.
 */
export function renderDraft(template: KindTemplate, values: DraftValues): string {
  const fm = [
    `title: ${JSON.stringify(values.title)}`,
    `kind: ${JSON.stringify(values.kind)}`,
    `scope: ${JSON.stringify(values.scope)}`,
    `tags: ${JSON.stringify(values.tags)}`,
    `links: ${JSON.stringify(values.links)}`,
    `target_harnesses: ${JSON.stringify(values.targetHarnesses)}`,
  ];
  return `---\n${fm.join('\n')}\n---\n\n<!-- ${DRAFT_INSTRUCTIONS} -->\n${template.text.trimEnd()}\n`;
}

function listOf(field: string, v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v.trim() === '' ? [] : [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String);
  throw new VaultError('invalid-field', `${field}: must be a list of strings`, {
    field,
    rule: 'type array of strings',
    hint: `write ${field}: ["a", "b"] or one "- item" per line`,
  });
}

function stringOf(field: string, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new VaultError('invalid-field', `${field}: must be a string`, { field, rule: 'type string', hint: `write ${field}: "text"` });
}

/**
 * Removes guidance comments (the template's, and {@link DRAFT_INSTRUCTIONS}) and `## ` sections
 * left empty; other comments and text are kept as written.
 *
 * @returns the body, trimmed (may be empty: the save then refuses it)
 */
export function cleanDraftBody(body: string, templates: readonly KindTemplate[]): string {
  const guidance = new Set<string>([collapse(DRAFT_INSTRUCTIONS)]);
  for (const t of templates) {
    for (const g of t.preamble) guidance.add(g);
    for (const s of t.sections) for (const g of s.guidance) guidance.add(g);
  }
  const stripped = body
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]*<!--([\s\S]*?)-->[ \t]*\n?/g, (all, inner: string) => (guidance.has(collapse(inner)) ? '' : all));
  const { lead, sections } = splitSections(stripped);
  const parts = [lead.trim(), ...sections.filter((s) => s.content.trim() !== '').map((s) => `## ${s.heading}\n\n${s.content.trim()}`)];
  return parts
    .filter((p) => p !== '')
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Reads a draft back.
 *
 * @param text the draft file's text
 * @param templates every template whose guidance should be removed (normally all eight kinds)
 * @throws VaultError `missing-frontmatter`, `invalid-frontmatter`, `unknown-field` (a key other
 *   than {@link DRAFT_FIELDS}), `invalid-field` (a wrong type)
 */
export function readDraft(text: string, templates: readonly KindTemplate[]): DraftInput {
  const lf = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!lf.startsWith('---\n')) {
    throw new VaultError('missing-frontmatter', 'the draft must start with --- frontmatter', {
      rule: 'starts with ---',
      line: 1,
      hint: 'keep the --- lines around title, kind, scope, tags, links and target_harnesses',
    });
  }
  let data: Record<string, unknown>;
  let content: string;
  try {
    // gray-matter's block (up to the first "\n---", or all of an unclosed draft) gets the
    // parser's limits before gray-matter's own regexes and the YAML parser see it
    const afterOpen = lf.slice(3);
    const closeAt = afterOpen.indexOf('\n---');
    assertYamlLimits((closeAt === -1 ? afterOpen : afterOpen.slice(0, closeAt)).slice(1));
    const file = matter(lf, GRAY_MATTER_OPTIONS as never);
    data = (file.data ?? {}) as Record<string, unknown>;
    content = file.content;
  } catch (err) {
    if (isVaultError(err)) throw err;
    throw new VaultError('invalid-frontmatter', 'the draft frontmatter could not be parsed', { rule: 'yaml syntax', cause: err });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new VaultError('invalid-frontmatter', 'the draft frontmatter must be key: value lines', { rule: 'type object' });
  }
  for (const key of Object.keys(data)) {
    if (!(DRAFT_FIELDS as readonly string[]).includes(key)) {
      throw new VaultError('unknown-field', `unknown draft field ${quoteInput(key, 64)}`, {
        field: boundInput(key, 64),
        rule: `one of: ${DRAFT_FIELDS.join(', ')}`,
        hint: 'ids, timestamps, trust and status are set by vault; remove that line',
      });
    }
  }
  return {
    title: stringOf('title', data.title).trim(),
    kind: stringOf('kind', data.kind).trim(),
    scope: stringOf('scope', data.scope).trim(),
    tags: listOf('tags', data.tags),
    links: listOf('links', data.links),
    targetHarnesses: listOf('target_harnesses', data.target_harnesses),
    body: cleanDraftBody(content, templates),
  };
}
