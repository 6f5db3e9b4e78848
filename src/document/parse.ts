/**
 * Parses one memory document: bytes in, validated {@link Memory} out, or a {@link VaultError}
 * with a stable code. Never throws anything else, whatever the input (a property test holds it).
 */
import { createRequire } from 'node:module';
import { VaultError, isVaultError } from '../errors.js';
import { fromFrontmatter, LIMITS, type Memory } from './contract.js';
import { serializeMemory } from './serialize.js';
import { checkFrontmatter } from './check-frontmatter.js';
import { UNSAFE_BODY_OR_SURROGATE } from '../unicode/unsafe-characters.js';
import { validateBody } from './validate.js';
import { assertYamlLimits, GRAY_MATTER_OPTIONS, parseCanonicalBlock } from './yaml-engine.js';

type GrayMatter = (input: string, options: unknown) => { data: unknown };
let grayMatter: GrayMatter | undefined;
/** gray-matter (and the js-yaml it requires), loaded on first use of the YAML path. */
function matter(text: string): { data: unknown } {
  grayMatter ??= createRequire(import.meta.url)('gray-matter') as GrayMatter;
  return grayMatter(text, GRAY_MATTER_OPTIONS);
}

/** Why a readable document is not in canonical form. */
export type NonCanonicalReason =
  /** starts with a UTF-8 byte order mark */
  | 'bom'
  /** uses CRLF line endings */
  | 'crlf'
  /** frontmatter is valid YAML but not the canonical `key: <JSON>` lines (e.g. block-style lists) */
  | 'frontmatter-style'
  /** body spacing differs: missing blank line, untrimmed body, missing or extra final newline */
  | 'body-spacing';

/** A parsed memory and how its text differs from the canonical serialization. */
export interface ParsedMemory {
  memory: Memory;
  /**
   * true when the input bytes equal {@link serializeMemory}(memory), with either list spelling
   * (`["a", "b"]` as published, `["a","b"]` as the reference tool writes)
   */
  canonical: boolean;
  /** empty when canonical */
  nonCanonical: NonCanonicalReason[];
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses and validates a memory document.
 *
 * Accepts a UTF-8 BOM and CRLF line endings (marked non-canonical), and YAML frontmatter that is
 * not in canonical form (marked non-canonical); the values must still satisfy ecc.memory.v1.
 * Refuses every frontmatter language but YAML (`---js` and friends never run), YAML anchors,
 * aliases and explicit tags.
 *
 * @param input the file's bytes, or text already decoded
 * @returns the memory and its canonical status
 * @throws VaultError with code `document-too-large` (over 131,072 bytes), `invalid-utf8`,
 *   `missing-frontmatter`, `frontmatter-language`, `unclosed-frontmatter`, `invalid-frontmatter`,
 *   `yaml-alias`, `yaml-tag`, `duplicate-field`, `frontmatter-not-object`, `unknown-field`,
 *   `missing-field`, `invalid-field`, `invalid-body` or `body-too-large` (limits from ecc.memory.v1)
 */
export function parseMemory(input: Uint8Array | string): ParsedMemory {
  try {
    return parseUnchecked(input);
  } catch (err) {
    if (isVaultError(err)) throw err;
    throw new VaultError('invalid-frontmatter', 'frontmatter could not be parsed', { rule: 'yaml syntax', cause: err });
  }
}

function parseUnchecked(input: Uint8Array | string): ParsedMemory {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (size > LIMITS.documentMaxBytes) {
    throw new VaultError('document-too-large', `document is too large (${size} bytes, maximum ${LIMITS.documentMaxBytes})`, {
      rule: `maxBytes ${LIMITS.documentMaxBytes}`,
      hint: 'a memory is at most 128 KiB; split it or link to a document',
    });
  }
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = decoder.decode(input);
    } catch (cause) {
      throw new VaultError('invalid-utf8', 'document must contain valid UTF-8 text', {
        rule: 'utf-8',
        hint: 're-save the file as UTF-8',
        cause,
      });
    }
  }
  const reasons: NonCanonicalReason[] = [];
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    reasons.push('bom');
  }
  if (text.startsWith('---\r\n')) {
    text = text.replace(/\r\n/g, '\n');
    reasons.push('crlf');
  }

  const firstLineEnd = text.indexOf('\n');
  const firstLine = firstLineEnd === -1 ? text : text.slice(0, firstLineEnd);
  if (firstLine !== '---') {
    // `---js`, `--- yaml`, `---coffee`: gray-matter would pick that engine; we refuse them all.
    if (/^---[ \t]*[A-Za-z][\w.+-]*[ \t]*\r?$/.test(firstLine)) {
      throw new VaultError('frontmatter-language', `frontmatter must be YAML; "${firstLine.trimEnd().slice(0, 24)}" names another engine, which is refused`, {
        rule: 'yaml only',
        line: 1,
        hint: 'start the file with a line that is exactly ---',
      });
    }
    const crOnly = /^---\r(?!\n)/.test(firstLine);
    throw new VaultError('missing-frontmatter', 'document must start with --- frontmatter', {
      rule: 'starts with ---',
      line: 1,
      hint: crOnly
        ? 'the file uses old Mac (CR-only) line endings; re-save it with LF (or CRLF) line endings'
        : 'the first line must be exactly ---, followed by the frontmatter and a closing ---',
    });
  }
  const close = /\n---(?:\n|$)/.exec(text.slice(3));
  if (!close) {
    throw new VaultError('unclosed-frontmatter', 'document has no closing frontmatter marker', {
      rule: 'closing ---',
      hint: 'end the frontmatter with a line that is exactly ---',
    });
  }
  const blockEnd = 3 + close.index; // index of the "\n" before the closing ---
  const block = text.slice(4, blockEnd);
  const stray = /(?:^|\n)---/.exec(block);
  if (stray) {
    const line = 2 + block.slice(0, stray.index + (stray[0].startsWith('\n') ? 1 : 0)).split('\n').length - 1;
    throw new VaultError('invalid-frontmatter', `line ${line} starts with --- but is not a frontmatter delimiter`, {
      rule: 'delimiter is exactly ---',
      line,
      hint: 'the closing delimiter must be a line that is exactly ---',
    });
  }
  if (block.trim() === '') {
    throw new VaultError('frontmatter-not-object', 'frontmatter is empty', {
      rule: 'type object',
      line: 2,
      hint: 'write the thirteen ecc.memory.v1 fields between the --- lines',
    });
  }

  // Canonical `key: <JSON>` lines are read with JSON.parse; everything else goes through
  // gray-matter, whose options make our locked-down YAML the only engine that can run. Both
  // see the same block (the split above is gray-matter's: first "\n---" after the opening line).
  let data: unknown = parseCanonicalBlock(block);
  if (data === undefined) {
    assertYamlLimits(block); // before gray-matter, whose comment regex is quadratic in blank lines
    data = matter(text).data;
  }
  const blockLines = block.split('\n');
  let frontmatter;
  try {
    frontmatter = checkFrontmatter(data);
  } catch (err) {
    throw withLine(err, fieldLine(blockLines, err), (o) => fieldLine(blockLines, o));
  }

  // Body = text after the closing marker, minus one leading and one trailing newline.
  let rawBody = text.slice(blockEnd + 4);
  if (rawBody.startsWith('\n')) rawBody = rawBody.slice(1);
  if (rawBody.endsWith('\n')) rawBody = rawBody.slice(0, -1);
  const bodyLine = blockLines.length + 3; // opening ---, the block, closing ---, then the body
  let body: string;
  try {
    body = validateBody(rawBody);
  } catch (err) {
    const bad = UNSAFE_BODY_OR_SURROGATE.exec(rawBody);
    const offset = isVaultError(err) && err.rule !== 'minLength 1' && err.rule?.startsWith('maxBytes') !== true && bad ? bad.index : 0;
    throw withLine(err, bodyLine + countNewlines(rawBody, offset));
  }

  const memory = fromFrontmatter(frontmatter, body);
  const canonicalText = serializeMemory(memory);
  // Lists spelled with a space after the comma (what earlier versions wrote) are canonical too.
  if (canonicalText !== text && serializeMemory(memory, { listSeparator: ', ' }) !== text) {
    const blockOf = (t: string) => t.slice(4, t.indexOf('\n---\n', 3));
    if (blockOf(canonicalText) !== block && blockOf(serializeMemory(memory, { listSeparator: ', ' })) !== block) reasons.push('frontmatter-style');
    else reasons.push('body-spacing');
  }
  return { memory, canonical: reasons.length === 0, nonCanonical: reasons };
}

function countNewlines(s: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

/** The 1-based document line of the field a frontmatter error names (`tags[3]` → the tags line). */
function fieldLine(blockLines: readonly string[], err: unknown): number | undefined {
  if (!isVaultError(err) || err.line !== undefined || !err.field) return undefined;
  const key = err.field.replace(/\[\d+\]$/, '');
  const i = blockLines.findIndex((l) => keyOfLine(l) === key);
  return i === -1 ? undefined : i + 2;
}

/**
 * The key a frontmatter line starts with (`key:`, `"key":`), as `/^(["']?)([^"':]*)\1\s*:/`
 * reads it, in time linear in the line: that regex backtracks quadratically over a run of spaces
 * (a 32 KiB line of spaces took 1.3 s).
 */
function keyOfLine(l: string): string | undefined {
  const quote = l[0] === '"' || l[0] === "'" ? l[0] : '';
  let i = quote.length;
  while (i < l.length && l[i] !== '"' && l[i] !== "'" && l[i] !== ':') i++;
  const key = l.slice(quote.length, i);
  if (quote) {
    if (l[i] !== quote) return undefined;
    i++;
  }
  while (i < l.length && /\s/.test(l[i]!)) i++;
  return l[i] === ':' ? key : undefined;
}

/**
 * The same error with `line` set (VaultError fields are read-only), and with `lineOf` the lines
 * of its further problems (`others`) too.
 */
function withLine(err: unknown, line: number | undefined, lineOf?: (other: VaultError) => number | undefined): unknown {
  if (!isVaultError(err)) return err;
  const others = lineOf ? err.others.map((o) => withLine(o, lineOf(o)) as VaultError) : err.others;
  if ((line === undefined || err.line !== undefined) && others === err.others) return err;
  return new VaultError(err.code, err.message, {
    ...(err.field !== undefined ? { field: err.field } : {}),
    ...(err.rule !== undefined ? { rule: err.rule } : {}),
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
    ...((err.line ?? line) !== undefined ? { line: err.line ?? line } : {}),
    ...(err.cause !== undefined ? { cause: err.cause } : {}),
    ...(others.length ? { others } : {}),
  });
}
