/**
 * The scanner's fast path for documents that are already byte-exact canonical (what `vault save`
 * and `vault fmt` write, i.e. almost every file in a vault): the thirteen `key: <JSON>` values are
 * read by the frontmatter fast reader (document/frontmatter-reader.ts, the one session start uses
 * too) instead of the YAML parser. The values then pass exactly the checks {@link parseMemory}
 * applies (schema gate, body rules), and the result is accepted only when the canonical
 * serialization of those values reproduces the input byte for byte. Anything else goes through
 * {@link parseMemory} unchanged, so the answer is always the same as parseMemory's.
 */
import { fromFrontmatter, LIMITS } from '../document/contract.js';
import { readFrontmatterValues, splitCanonical } from '../document/frontmatter-reader.js';
import { parseMemory, type ParsedMemory } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { validateBody } from '../document/validate.js';
import { schemaAccepts } from '../document/check-frontmatter.js';
import type { Frontmatter } from '../document/contract.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The fast path on text already decoded (strict UTF-8, BOM kept): the memory when the text is
 * byte-exact canonical, else undefined (the caller then uses {@link parseMemory}).
 */
export function parseCanonicalText(text: string): ParsedMemory | undefined {
  if (text.length > LIMITS.documentMaxBytes) return undefined;
  const parts = splitCanonical(text);
  const data = parts && readFrontmatterValues(parts.head);
  if (!parts || !data || !schemaAccepts(data).ok) return undefined;
  let body: string;
  try {
    body = validateBody(parts.body);
  } catch {
    return undefined;
  }
  const memory = fromFrontmatter(data as unknown as Frontmatter, body);
  // Both list spellings are canonical (`["a", "b"]` published, `["a","b"]` from the reference tool).
  if (serializeMemory(memory) !== text && serializeMemory(memory, { listSeparator: ', ' }) !== text) return undefined;
  return { memory, canonical: true, nonCanonical: [] };
}

/**
 * Parses a memory document, taking a fast path when it is byte-exact canonical.
 *
 * @param bytes the file's bytes
 * @returns the same as {@link parseMemory}
 * @throws VaultError exactly as {@link parseMemory} does
 */
export function parseMemoryFast(bytes: Uint8Array): ParsedMemory {
  if (bytes.byteLength > LIMITS.documentMaxBytes || bytes[0] !== 0x2d) return parseMemory(bytes);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return parseMemory(bytes);
  }
  return parseCanonicalText(text) ?? parseMemory(bytes);
}
