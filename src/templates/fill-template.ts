/**
 * Filling a kind template from values given on the command line (`vault save --template
 * --section "Context=..."`): each named section gets its text, sections without a value are
 * left out, guidance never reaches the memory.
 */
import { VaultError } from '../errors.js';
import { normalizeSectionName, type KindTemplate, type TemplateSection } from './kind-template.js';
import { quoteInput } from '../document/echo-input.js';

/** A section value as given by a person: the section's name and its Markdown text. */
export interface SectionValue {
  name: string;
  text: string;
}

/**
 * Parses `Name=text` pairs (the value of a repeatable `--section` flag). The first `=` splits;
 * the text may contain more `=`.
 *
 * @throws VaultError `usage` when a value has no `=` or an empty name
 */
export function parseSectionValues(values: readonly string[]): SectionValue[] {
  return values.map((raw) => {
    const v = String(raw);
    const at = v.indexOf('=');
    const name = at === -1 ? '' : v.slice(0, at).trim();
    if (at === -1 || name === '') {
      throw new VaultError('usage', `--section must look like Name=text (got ${quoteInput(v, 40)})`, {
        field: 'section',
        rule: 'Name=text',
        hint: 'e.g. --section "Context=Sessions expire too early" --section "Decision=We will use Redis"',
      });
    }
    return { name, text: v.slice(at + 1) };
  });
}

/** Finds a section of `template` by a name given by a person (case and punctuation ignored: "when-to-use" is "When to use"). */
export function findSection(template: KindTemplate, name: string): TemplateSection | undefined {
  const key = normalizeSectionName(name);
  return template.sections.find((s) => normalizeSectionName(s.name) === key);
}

/**
 * Renders a memory body from a template and section values.
 *
 * Sections appear in the template's order as `## Name` followed by their text; a section given
 * more than once gets its texts on consecutive lines (one list item or step per flag); sections
 * without a value are omitted.
 *
 * @returns the body (trimmed; validated later with the other fields)
 * @throws VaultError `invalid-input` (field `section`) for a name that is not a section of the
 *   template, an empty text, or no value at all
 */
export function fillTemplate(template: KindTemplate, values: readonly SectionValue[]): string {
  const names = template.sections.map((s) => s.name).join(', ');
  if (values.length === 0) {
    throw new VaultError('invalid-input', `--template needs at least one --section; the ${template.kind} template has: ${names}`, {
      field: 'section',
      rule: 'at least one section',
      hint: `e.g. --section "${template.sections[0]!.name}=..."`,
    });
  }
  const texts = new Map<TemplateSection, string[]>();
  for (const v of values) {
    const section = findSection(template, v.name);
    if (!section) {
      throw new VaultError('invalid-input', `section: "${v.name.slice(0, 60)}" is not a section of the ${template.kind} template`, {
        field: 'section',
        rule: `one of: ${names}`,
        hint: `use one of: ${names}`,
      });
    }
    const text = v.text.replace(/\r\n?/g, '\n').trim();
    if (text === '') {
      throw new VaultError('invalid-input', `section: "${section.name}" is empty`, {
        field: 'section',
        rule: 'non-empty text',
        hint: `give it some text, or leave --section "${section.name}=..." out`,
      });
    }
    texts.set(section, [...(texts.get(section) ?? []), text]);
  }
  return template.sections
    .filter((s) => texts.has(s))
    .map((s) => `## ${s.name}\n\n${texts.get(s)!.join('\n')}`)
    .join('\n\n');
}
