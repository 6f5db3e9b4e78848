/**
 * The scanner's fast path for documents that are already byte-exact canonical (what `vault save`
 * and `vault fmt` write, i.e. almost every file in a vault): thirteen `key: <JSON>` lines are read
 * with JSON.parse instead of the YAML parser. The values then pass exactly the checks
 * {@link parseMemory} applies (schema gate, body rules), and the result is accepted only when the
 * canonical serialization of those values reproduces the input byte for byte. Anything else
 * goes through {@link parseMemory} unchanged, so the answer is always the same as parseMemory's.
 */
import { FIELD_ORDER, fromFrontmatter, LIMITS } from '../document/contract.js';
import { parseMemory, type ParsedMemory } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { validateBody } from '../document/validate.js';
import { schemaAccepts } from '../document/check-frontmatter.js';
import type { Frontmatter } from '../document/contract.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Lines of a canonical document: `---`, 13 fields, `---`, blank, body... */
const HEADER_LINES = FIELD_ORDER.length + 3;

/**
 * The fast path on text already decoded (strict UTF-8, BOM kept): the memory when the text is
 * byte-exact canonical, else undefined (the caller then uses {@link parseMemory}).
 */
export function parseCanonicalText(text: string): ParsedMemory | undefined {
  if (!text.startsWith('---\n') || text.length > LIMITS.documentMaxBytes) return undefined;
  // The header: the first HEADER_LINES lines, found without splitting the body.
  const lines: string[] = [];
  let at = 0;
  for (let i = 0; i < HEADER_LINES; i++) {
    const nl = text.indexOf('\n', at);
    if (nl === -1) return undefined;
    lines.push(text.slice(at, nl));
    at = nl + 1;
  }
  if (lines[FIELD_ORDER.length + 1] !== '---' || lines[FIELD_ORDER.length + 2] !== '') return undefined;
  const data: Record<string, unknown> = {};
  for (let i = 0; i < FIELD_ORDER.length; i++) {
    const key = FIELD_ORDER[i]!;
    const line = lines[i + 1]!;
    if (!line.startsWith(`${key}: `)) return undefined;
    try {
      data[key] = JSON.parse(line.slice(key.length + 2));
    } catch {
      return undefined;
    }
  }
  if (!schemaAccepts(data).ok) return undefined;
  let body: string;
  try {
    let raw = text.slice(at);
    if (raw.endsWith('\n')) raw = raw.slice(0, -1);
    body = validateBody(raw);
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
