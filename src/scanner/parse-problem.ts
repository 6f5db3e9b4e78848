/**
 * Turns a document parse failure into a diagnostic that names the line and the rule but never
 * echoes the file's values: values and YAML excerpts are left out (the line number says where to
 * look); an unknown key is named only when it is a plain name (a letter, then up to 39 letters,
 * digits, `_`, `.` or `-`), otherwise by its line; at most 5 are listed, the rest counted. Lines are computed here from the text, independently of the
 * parser, so they are exact for every error kind (1-based, line 1 = the opening `---`); a YAML
 * syntax error keeps the line and code the parser found, and the text is never parsed again.
 */
import type { Diagnostic, DiagnosticCode } from '../diagnostics.js';
import { FIELD_ORDER } from '../document/contract.js';
import { yamlErrorCode } from '../document/yaml-engine.js';
import { addMissingFields } from '../document/validate.js';
import { DOCUMENT_ERROR_CODES, type VaultError } from '../errors.js';
import { UNSAFE_BODY_CHARS, UNSAFE_LINE_CHARS } from '../unicode/unsafe-characters.js';

/** The parts of a {@link Diagnostic} that describe a parse failure; `line` is undefined when it sits on no line. */
export type ParseFailure = Pick<Diagnostic, 'code' | 'message'> & { hint: string | undefined; line: number | undefined };

interface Layout {
  /** text after BOM removal and CRLF normalisation */
  text: string;
  lines: string[];
  /** index (0-based) of the closing `---` line, or -1 */
  closing: number;
}

function layoutOf(bytes: Uint8Array): Layout | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  let closing = -1;
  if (lines[0] === '---') {
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === '---') {
        closing = i;
        break;
      }
    }
  }
  return { text, lines, closing };
}

/** Line (1-based) of the first byte that is not valid UTF-8. */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  let line = 1;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    let need = 0;
    if (b === 0x0a) line++;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return line;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return line;
    }
    i += need + 1;
  }
  return line;
}

/** Line of a top-level frontmatter key, searching the frontmatter block only. */
function keyLine(l: Layout, key: string, occurrence = 1): number | undefined {
  const end = l.closing === -1 ? l.lines.length : l.closing;
  let seen = 0;
  for (let i = 1; i < end; i++) {
    const m = /^["']?([^\s:"']+)["']?\s*:/.exec(l.lines[i]!);
    if (m && m[1] === key && ++seen === occurrence) return i + 1;
  }
  return undefined;
}

/**
 * The YAML parser's first error, as the parser itself reported it. The text is never parsed a
 * second time here: a second parse would need the parser's limits too, and costs as much again.
 */
function yamlError(err: VaultError): { code: string; line: number } | undefined {
  const code = yamlErrorCode(err);
  return code !== undefined && err.line !== undefined ? { code, line: err.line } : undefined;
}

/**
 * The key a line starts with (`key:`, `"key":`), as `/^["']?([^\s:"'#-][^:"']*)["']?\s*:/` reads
 * it, in time linear in the line: that regex backtracks quadratically over a long run of spaces.
 */
function keyAtLineStart(line: string): string | undefined {
  const m = /^["']?[^\s:"'#-][^:"']*/.exec(line);
  if (!m) return undefined;
  let i = m[0].length;
  if (line[i] === '"' || line[i] === "'") i++;
  while (i < line.length && /\s/.test(line[i]!)) i++;
  return line[i] === ':' ? m[0].replace(/^["']/, '') : undefined;
}

function firstBodyLine(l: Layout): number | undefined {
  if (l.closing === -1) return undefined;
  for (let i = l.closing + 1; i < l.lines.length; i++) if (l.lines[i]!.trim() !== '') return i + 1;
  return l.closing + 2 <= l.lines.length ? l.closing + 2 : l.closing + 1;
}

/** Plain words for the YAML parser's error codes (its own messages quote the source, so they are not used). */
const YAML_REASONS: Record<string, string> = {
  MISSING_CHAR: 'a closing quote or bracket is missing',
  BAD_INDENT: 'the indentation is inconsistent',
  BLOCK_AS_IMPLICIT_KEY: 'a key is not followed by ": "',
  MULTILINE_IMPLICIT_KEY: 'a key spans more than one line',
  UNEXPECTED_TOKEN: 'a character is out of place (quote values that start with a special character)',
  BAD_SCALAR_START: 'a value starts with a character that must be quoted',
  IMPOSSIBLE: 'the text cannot be read as YAML',
  KEY_OVER_1024_CHARS: 'a key is longer than 1024 characters',
  MULTIPLE_DOCS: 'there is more than one YAML document',
  BAD_DIRECTIVE: 'a line starts with % (a YAML directive)',
  MISSING_ANCHOR: 'an alias names an anchor that does not exist',
};

function isKnownField(f: string | undefined): f is string {
  return f !== undefined && ((FIELD_ORDER as readonly string[]).includes(f) || f === 'body');
}

/** A key safe to show in a message: a plain name (a longer or odd key may hold pasted data). */
const SHOWABLE_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

/** Most unknown keys named in one message (the rest are counted). */
const MAX_KEYS_NAMED = 5;

/** The top-level frontmatter keys that are not ecc.memory.v1 fields: each line and, when showable, its name. */
function unknownKeys(l: Layout): Array<{ line: number; name: string | undefined }> {
  const out: Array<{ line: number; name: string | undefined }> = [];
  const end = l.closing === -1 ? l.lines.length : l.closing;
  for (let i = 1; i < end; i++) {
    const key = keyAtLineStart(l.lines[i]!)?.trim();
    if (key !== undefined && !(FIELD_ORDER as readonly string[]).includes(key)) out.push({ line: i + 1, name: SHOWABLE_KEY.test(key) ? key : undefined });
  }
  return out;
}

/** Most further problems named in one diagnostic. */
const MAX_OTHERS = 12;
/** Length up to which further problems are named (characters). */
const MAX_MESSAGE_CHARS = 290;
/** Length up to which the fixes of further problems are given (characters). */
const MAX_HINT_CHARS = 600;

/**
 * Describes why a document failed to parse, without quoting its values: every unknown field
 * (by name when it is a plain name, by line otherwise) and every bad field the validator found
 * (its `others`), in one message; the line is the first problem's.
 *
 * @param bytes the file's bytes (used only to compute the line)
 * @param err the error thrown by parseMemory (a document error code; any other is `invalid-document`)
 */
export function describeParseError(bytes: Uint8Array, err: VaultError): ParseFailure {
  const out = describeOne(bytes, err);
  const others = err.others.filter((o) => o.code !== 'unknown-field').slice(0, MAX_OTHERS);
  if (others.length === 0) return out;
  // Each further field by name and line (the first problem has the full wording), while the
  // message stays within two terminal lines; the rest are counted.
  const invalid: string[] = [];
  let missing: string | undefined;
  let length = out.message.length + 20;
  let left = 0;
  // the fix of each further field named, while the hint stays within MAX_HINT_CHARS
  const fixes: string[] = [];
  let hintLength = (out.hint ?? '').length + 10;
  for (const o of others) {
    const d = describeOne(bytes, o);
    const name = o.field?.replace(/\[\d+\]$/, '');
    const item =
      o.code === 'missing-field'
        ? o.message.replace(/^frontmatter is missing fields: /, '')
        : `${isKnownField(name) ? name : 'a value'}${d.line !== undefined ? ` (line ${d.line})` : ''}`;
    if (length + item.length > MAX_MESSAGE_CHARS) {
      left++;
      continue;
    }
    length += item.length + 2;
    if (o.code === 'missing-field') missing = item;
    else invalid.push(item);
    // a missing field's fix is the line to add (its rule is the first problem's kind of wording)
    const fix =
      o.code === 'missing-field'
        ? addMissingFields(item.split(', '))
        : d.hint === undefined
          ? undefined
          : `${isKnownField(name) ? name : 'a value'}: ${d.hint}`;
    if (fix !== undefined && hintLength + fix.length <= MAX_HINT_CHARS) {
      fixes.push(fix);
      hintLength += fix.length + 2;
    }
  }
  const parts = [...(invalid.length ? [`invalid ${invalid.join(', ')}`] : []), ...(missing ? [`missing ${missing}`] : []), ...(left ? [`${left} more`] : [])];
  out.message = `${out.message}; also ${parts.join('; ')}`;
  const tail = [...(fixes.length > 0 ? [`then ${fixes.join('; ')}`] : []), ...(fixes.length < others.length ? ['then fix the other fields named'] : [])];
  out.hint = [out.hint ?? 'fix the field', ...tail].join('; ');
  return out;
}

function describeOne(bytes: Uint8Array, err: VaultError): ParseFailure {
  const code: DiagnosticCode = (DOCUMENT_ERROR_CODES as readonly string[]).includes(err.code) ? (err.code as DiagnosticCode) : 'invalid-document';
  const rawField = err.field?.replace(/\[\d+\]$/, '');
  const field = isKnownField(rawField) ? rawField : undefined;
  const out: ParseFailure = { code, message: err.message, hint: err.hint, line: err.line };
  if (code === 'invalid-utf8') {
    out.line = firstInvalidUtf8Line(bytes);
    out.message = 'document is not valid UTF-8 text (binary or wrongly encoded file)';
    return out;
  }
  if (code === 'document-too-large') {
    out.line = undefined;
    return out; // message holds sizes only
  }
  const l = layoutOf(bytes);
  if (!l) return out;
  switch (code) {
    case 'missing-frontmatter':
      out.line = 1;
      out.message = l.text.length === 0 ? 'document is empty; a memory starts with --- frontmatter' : 'document must start with --- frontmatter';
      break;
    case 'frontmatter-language':
      out.line = 1;
      out.message = 'frontmatter must be YAML; line 1 names another frontmatter language, which is refused';
      break;
    case 'unclosed-frontmatter':
      out.line = 1;
      out.message = 'frontmatter has no closing --- line (truncated or unterminated frontmatter)';
      break;
    case 'invalid-frontmatter':
    case 'duplicate-field': {
      const y = yamlError(err);
      if (err.rule === 'yaml limits') {
        // the parser's own words: which limit, in numbers only, and the line where it was hit
      } else if (y?.code === 'TAB_AS_INDENT') {
        out.line = y.line;
        out.message = `a tab is used for indentation on line ${y.line}; YAML indents with spaces`;
        out.hint = 'replace the tab with spaces';
      } else if (y?.code === 'DUPLICATE_KEY' || code === 'duplicate-field') {
        out.code = 'duplicate-field';
        out.line = y?.line ?? err.line;
        out.message = `a frontmatter field is repeated on line ${out.line ?? '?'}`;
        out.hint = 'keep one line per field';
      } else if (err.rule === 'delimiter is exactly ---') {
        out.message = `line ${err.line} starts with --- but is not a frontmatter delimiter`;
      } else if (y) {
        out.line = y.line;
        out.message = `frontmatter is not valid YAML at line ${y.line}: ${YAML_REASONS[y.code] ?? y.code.toLowerCase().replace(/_/g, ' ')}`;
      } else {
        out.message = 'frontmatter is not valid YAML';
      }
      break;
    }
    case 'yaml-alias':
    case 'yaml-tag':
      out.message =
        code === 'yaml-alias'
          ? `frontmatter uses a YAML anchor or alias${err.line ? ` (line ${err.line})` : ''}`
          : `frontmatter uses an explicit YAML tag${err.line ? ` (line ${err.line})` : ''}`;
      break;
    case 'frontmatter-not-object': {
      out.line = 2;
      for (let i = 1; i < (l.closing === -1 ? l.lines.length : l.closing); i++) {
        if (l.lines[i]!.trim() !== '') {
          out.line = i + 1;
          break;
        }
      }
      out.message = err.message.replace(/, got .*$/, '') + (/, got (a list|a string|a number|a boolean|null)$/.exec(err.message)?.[0] ?? '');
      break;
    }
    case 'unknown-field': {
      // Every top-level key that is not a field name, by line; by name when it is a plain name.
      const keys = unknownKeys(l);
      out.line = keys[0]?.line;
      const named = keys.slice(0, MAX_KEYS_NAMED).map((k) => (k.name !== undefined ? `${JSON.stringify(k.name)} (line ${k.line})` : `a key on line ${k.line}`));
      if (keys.length > MAX_KEYS_NAMED) named.push(`${keys.length - MAX_KEYS_NAMED} more`);
      out.message =
        keys.length === 0
          ? 'unknown frontmatter field; ecc.memory.v1 allows only its thirteen fields'
          : `unknown frontmatter field${keys.length > 1 ? 's' : ''} ${named.join(', ')}; ecc.memory.v1 allows only its thirteen fields`;
      out.hint = `remove ${keys.length > 1 ? 'them' : 'it'} (editors such as Obsidian add aliases, cssclasses, ...); allowed: ${FIELD_ORDER.join(', ')}`;
      break;
    }
    case 'missing-field':
      out.line = l.closing === -1 ? undefined : l.closing + 1;
      break;
    case 'invalid-field': {
      if (field) out.line = keyLine(l, field) ?? out.line;
      out.message = err.message
        .replace(/\s*\(got [\s\S]*\)$/, '')
        .replace(/unsupported memory schema [\s\S]*$/, 'unsupported memory schema (expected "ecc.memory.v1")');
      if (!field) out.message = 'a frontmatter value breaks a rule of ecc.memory.v1';
      if (field && out.line && UNSAFE_LINE_CHARS.test(l.lines[out.line - 1]!))
        out.message = `${field}: contains a control or bidirectional formatting character`;
      break;
    }
    case 'invalid-body':
    case 'body-too-large': {
      out.line = firstBodyLine(l);
      if (l.closing !== -1) {
        for (let i = l.closing + 1; i < l.lines.length; i++) {
          if (UNSAFE_BODY_CHARS.test(l.lines[i]!)) {
            out.line = i + 1;
            break;
          }
        }
      }
      break;
    }
    default:
      out.message = 'document is invalid';
  }
  return out;
}
