/**
 * Kind templates: the body skeleton of each kind of memory (`templates/<kind>.md`), parsed into
 * named sections. A template is plain Markdown: an optional guidance comment first, then one
 * `## Heading` per section, each followed by a guidance comment (`<!-- ... -->`). Guidance is
 * for the writer and never ends up in a saved memory.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { KINDS, type Kind } from '../document/contract.js';
import { VaultError } from '../errors.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { quoteInput } from '../document/echo-input.js';

/** One `## Heading` section of a template. */
export interface TemplateSection {
  /** the heading text, e.g. "When to use" */
  name: string;
  /** guidance comments under the heading, inner text trimmed */
  guidance: string[];
}

/** A parsed kind template. */
export interface KindTemplate {
  kind: Kind;
  /** guidance comments before the first section (what the kind is for) */
  preamble: string[];
  sections: TemplateSection[];
  /** the template file's text (LF line endings) */
  text: string;
}

/** Largest template file read, in bytes: templates are a few hundred bytes; anything bigger is a mistake. */
const TEMPLATE_MAX_BYTES = 64 * 1024;

const COMMENT = /<!--([\s\S]*?)-->/g;

/** The `templates/` folder shipped with the package (two levels above this module in src/ and dist/). */
export function defaultTemplatesDir(): string {
  return fileURLToPath(new URL('../../templates/', import.meta.url));
}

/** Normalizes a section name for matching: case-insensitive, any run of non-letters/digits is one space. */
export function normalizeSectionName(name: string): string {
  return name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Inner texts of the HTML comments in `text`, trimmed, whitespace collapsed. */
export function commentTexts(text: string): string[] {
  return [...text.matchAll(COMMENT)].map((m) => collapse(m[1]!));
}

/** Collapses runs of whitespace to one space and trims. */
export function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Splits Markdown into a lead part and `## ` sections, ignoring headings inside fenced code blocks.
 *
 * @returns the text before the first level-2 heading and each section's heading and content
 */
export function splitSections(markdown: string): { lead: string; sections: { heading: string; content: string }[] } {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const lead: string[] = [];
  const sections: { heading: string; lines: string[] }[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!.repeat(f[1]!.length);
      else if (f[1]!.startsWith(fence)) fence = undefined;
    }
    const h = fence === undefined && !f ? /^##\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (h) sections.push({ heading: h[1]!, lines: [] });
    else if (sections.length) sections[sections.length - 1]!.lines.push(line);
    else lead.push(line);
  }
  return { lead: lead.join('\n'), sections: sections.map((s) => ({ heading: s.heading, content: s.lines.join('\n') })) };
}

/**
 * Parses a template's text.
 *
 * @param kind the kind it is for
 * @param text Markdown (CRLF accepted)
 * @throws VaultError `invalid-input` when it has no `## ` section or repeats a section name
 */
export function parseTemplate(kind: Kind, text: string): KindTemplate {
  const lf = text.replace(/\r\n?/g, '\n');
  const { lead, sections } = splitSections(lf);
  const seen = new Set<string>();
  const out: TemplateSection[] = [];
  for (const s of sections) {
    const key = normalizeSectionName(s.heading);
    if (seen.has(key)) {
      throw new VaultError('invalid-input', `template ${kind}.md repeats the section "${s.heading}"`, {
        field: 'template',
        rule: 'unique section names',
        hint: `keep one "## ${s.heading}" in templates/${kind}.md`,
      });
    }
    seen.add(key);
    out.push({ name: s.heading, guidance: commentTexts(s.content) });
  }
  if (out.length === 0) {
    throw new VaultError('invalid-input', `template ${kind}.md has no "## " section`, {
      field: 'template',
      rule: 'at least one section',
      hint: 'give the template one "## Heading" per section',
    });
  }
  return { kind, preamble: commentTexts(lead), sections: out, text: lf };
}

/**
 * Loads the template of a kind from `templates/<kind>.md`.
 *
 * @param kind one of the eight kinds (checked: it becomes part of a path)
 * @param dir folder holding the templates (default: the package's `templates/`)
 * @throws VaultError `invalid-input` for an unknown kind or a malformed template, `io-error`
 *   when the file is missing, a symlink, not a regular file, larger than 64 KiB or not UTF-8
 */
export function loadTemplate(kind: string, dir: string = defaultTemplatesDir()): KindTemplate {
  if (!(KINDS as readonly string[]).includes(kind)) {
    throw new VaultError('invalid-input', `kind: must be one of: ${KINDS.join(', ')} (got ${quoteInput(String(kind), 40)})`, {
      field: 'kind',
      rule: `enum ${KINDS.join('|')}`,
      hint: `use one of: ${KINDS.join(', ')}`,
    });
  }
  const file = join(dir, `${kind}.md`);
  const read = readFileSafe(file, TEMPLATE_MAX_BYTES);
  if (!read.ok) {
    throw new VaultError('io-error', `cannot read the ${kind} template ${file} (${read.code})`, {
      field: 'template',
      hint: `reinstall the package, or restore templates/${kind}.md`,
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    throw new VaultError('io-error', `the ${kind} template ${file} is not valid UTF-8`, { field: 'template', hint: 're-save it as UTF-8' });
  }
  return parseTemplate(kind as Kind, text);
}

/** Loads the templates of all eight kinds (for removing guidance from a draft whose kind was changed). */
export function loadAllTemplates(dir: string = defaultTemplatesDir()): KindTemplate[] {
  return KINDS.map((k) => loadTemplate(k, dir));
}
