import { FIELD_ORDER, toFrontmatter, type Memory } from './contract.js';

/**
 * Writes one memory in the canonical, byte-exact ecc.memory.v1 form: `---`, thirteen
 * `key: <JSON>` lines in the fixed order (compact JSON, one space after the colon), `---`, one
 * blank line, the trimmed body, one final newline. LF line endings only.
 *
 * The memory is not validated here; callers validate first ({@link buildMemory} or parse).
 *
 * @param memory a valid memory (body already trimmed)
 * @returns the document text (UTF-8 when written)
 */
export function serializeMemory(memory: Memory): string {
  const fm = toFrontmatter(memory) as unknown as Record<string, unknown>;
  const lines = FIELD_ORDER.map((key) => `${key}: ${JSON.stringify(fm[key])}`);
  return `---\n${lines.join('\n')}\n---\n\n${memory.body.trim()}\n`;
}
