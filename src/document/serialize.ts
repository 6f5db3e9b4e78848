import { FIELD_ORDER, toFrontmatter, type Memory } from './contract.js';

/** How lists are spelled in a frontmatter line. */
export interface SerializeOptions {
  /**
   * `","` (default): `["auth","migration"]`, what the reference tool's `JSON.stringify` writes,
   * so files are byte-identical between tools. `", "`: `["auth", "migration"]`, the spelling
   * earlier versions of this tool wrote. Both are canonical when read ({@link parseMemory}) and
   * `vault fmt` never rewrites one into the other.
   */
  listSeparator?: ', ' | ',';
}

/**
 * Writes one memory in the canonical, byte-exact ecc.memory.v1 form: `---`, thirteen
 * `key: <JSON>` lines in the fixed order (one space after the colon; strings as JSON.stringify
 * writes them; lists as `[]` or `["a","b"]`), `---`, one blank line, the trimmed body, one final
 * newline. LF line endings only.
 *
 * One departure from JSON.stringify: U+2028 and U+2029 (line and paragraph separator) are written
 * as the escapes `\u2028` / `\u2029`. JSON.parse (the reference tool's reader) reads either
 * spelling as the same character, but YAML readers (gray-matter, the `yaml` package, Obsidian)
 * fold a raw one inside a double-quoted scalar into a space; the escape means the same string to
 * every reader.
 *
 * The memory is not validated here; callers validate first ({@link buildMemory} or parse).
 *
 * @param memory a valid memory (body already trimmed)
 * @param options list spelling (see {@link SerializeOptions}); the default is the canonical form
 * @returns the document text (UTF-8 when written)
 */
export function serializeMemory(memory: Memory, options: SerializeOptions = {}): string {
  const sep = options.listSeparator ?? ',';
  const fm = toFrontmatter(memory) as unknown as Record<string, unknown>;
  const lines = FIELD_ORDER.map((key) => {
    const v = fm[key];
    return `${key}: ${Array.isArray(v) ? `[${v.map(jsonValue).join(sep)}]` : jsonValue(v)}`;
  });
  return `---\n${lines.join('\n')}\n---\n\n${memory.body.trim()}\n`;
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** JSON.stringify, with U+2028/U+2029 escaped (see {@link serializeMemory}). */
function jsonValue(v: unknown): string {
  return JSON.stringify(v).replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}
