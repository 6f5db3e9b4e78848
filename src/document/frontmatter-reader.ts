/**
 * The frontmatter fast reader: values of `key: <JSON value>` lines (the form the serializer
 * writes) picked out of a document's head with one native search each, without the YAML parser
 * and without splitting the text into lines. Nothing here validates: callers check what they
 * read (the scanner's fast path checks every value and then that the canonical serialization
 * reproduces the file byte for byte; session start lists only well-formed active memories; a
 * save compares the values it reads back with the ones it wrote).
 *
 * A value is the rest of the first line starting with `<key>:`, trimmed as String#trim trims. A
 * plain JSON string (no escapes, no characters JSON needs escaped) is taken without JSON.parse:
 * session start reads the heads of hundreds of files and pays for every allocation.
 */
import { FIELD_ORDER, type FieldName } from './contract.js';

/** `\n<key>:` for every field: the line a value is found on. */
const NEEDLES = new Map<string, string>(FIELD_ORDER.map((k) => [k, `\n${k}:`]));
/** What a JSON string needs decoding for: escapes, or characters JSON does not allow raw. */
const NOT_PLAIN = /["\\\u0000-\u001f]/;

/** White space as String.prototype.trim sees it (a value line holds no line break). */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The range of the value on the first `<key>:` line of `head`, trimmed.
 *
 * @param head the document's text up to its closing `---` (it starts with the opening `---`)
 */
function valueRange(head: string, key: string): [number, number] | undefined {
  const needle = NEEDLES.get(key) ?? `\n${key}:`;
  const at = head.indexOf(needle);
  if (at === -1) return undefined;
  let s = at + needle.length;
  let e = head.indexOf('\n', s);
  if (e === -1) e = head.length;
  while (s < e && isSpace(head.charCodeAt(s))) s++;
  while (e > s && isSpace(head.charCodeAt(e - 1))) e--;
  return [s, e];
}

/**
 * The raw text of a frontmatter value (not decoded), e.g. `["auth","db"]`.
 *
 * @param head the document's text up to its closing `---`
 * @param key a frontmatter key
 * @returns the trimmed value text, or undefined when no line starts with `<key>:`
 */
export function rawFrontmatterValue(head: string, key: string): string | undefined {
  const r = valueRange(head, key);
  return r && head.slice(r[0], r[1]);
}

/**
 * A frontmatter value written as a JSON string (`"..."`), decoded.
 *
 * @returns the string, or undefined when the line is missing or its value is not a JSON string
 */
export function frontmatterString(head: string, key: string): string | undefined {
  const r = valueRange(head, key);
  if (!r || r[1] - r[0] < 2 || head.charCodeAt(r[0]) !== 34 || head.charCodeAt(r[1] - 1) !== 34) return undefined;
  const inner = head.slice(r[0] + 1, r[1] - 1);
  if (!NOT_PLAIN.test(inner)) return inner; // the JSON string's text is its value
  try {
    const v: unknown = JSON.parse(head.slice(r[0], r[1]));
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A frontmatter value decoded as JSON (a string, a list, a number, ...).
 *
 * @returns the value, or undefined when the line is missing or its value is not JSON
 */
export function frontmatterValue(head: string, key: string): unknown {
  const s = frontmatterString(head, key);
  if (s !== undefined) return s;
  const raw = rawFrontmatterValue(head, key);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The thirteen values of a document's frontmatter, each read as {@link frontmatterValue}, in
 * {@link FIELD_ORDER}.
 *
 * @param head the document's text up to its closing `---`
 * @returns key → value, or undefined when a key has no line or its value is not JSON
 */
export function readFrontmatterValues(head: string): Record<FieldName, unknown> | undefined {
  const out = {} as Record<FieldName, unknown>;
  for (const key of FIELD_ORDER) {
    const v = frontmatterValue(head, key);
    if (v === undefined) return undefined;
    out[key] = v;
  }
  return out;
}

/**
 * Where the frontmatter of a document in canonical layout ends and its body begins: the text
 * must open with `---\n`, and the closing `---` line must be followed by a blank line.
 *
 * @returns `head` (the text before the closing `\n---`) and `body` (after the blank line, without
 *   the final newline), or undefined when the text is not laid out that way
 */
export function splitCanonical(text: string): { head: string; body: string } | undefined {
  if (!text.startsWith('---\n')) return undefined;
  const end = text.indexOf('\n---\n', 3);
  if (end === -1 || text.charCodeAt(end + 5) !== 10) return undefined;
  const body = text.slice(end + 6);
  return { head: text.slice(0, end), body: body.endsWith('\n') ? body.slice(0, -1) : body };
}
