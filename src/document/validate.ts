/**
 * Field-by-field validation of ecc.memory.v1 values, with messages that name the field, the
 * rule and the fix. The same rules are written as JSON Schema in schemas/memory.schema.json;
 * a property test checks that both accept and reject exactly the same frontmatter objects.
 */
import { VaultError } from '../errors.js';
import { redactSecretShapes } from '../secrets/scan-secrets.js';
import { LONE_SURROGATE, UNSAFE_BODY_CHARS, UNSAFE_CHARS } from '../unicode/unsafe-characters.js';
import {
  FIELD_ORDER,
  ID_PATTERN,
  KINDS,
  LIMITS,
  SCHEMA_VERSION,
  SCOPES,
  SLUG_PATTERN,
  STATUSES,
  TIMESTAMP_PATTERN,
  TRUSTS,
  utf8Bytes,
  type Frontmatter,
} from './contract.js';
import { boundInput, quoteInput } from './echo-input.js';

/**
 * Quotes a value for an error message: at most `max` characters, with every credential shape
 * replaced first, so that an error about a bad id or tag never echoes a secret.
 */
export function quoteValue(s: string, max = 64): string {
  return JSON.stringify(redactSecretShapes(s).text.slice(0, max));
}

function fail(field: string, rule: string, message: string, hint: string): never {
  throw new VaultError('invalid-field', `${field}: ${message}`, { field, rule, hint });
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * True when `s` starts with a day of the calendar as `YYYY-MM-DD` (anything may follow): Feb 30
 * and April 31 are not. `Date.parse` rolls such a day over into the next month instead of
 * refusing it, so a filter bound checks this first.
 */
export function startsWithCalendarDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** True when `s` round-trips through `Date#toISOString` (rejects Feb 30, hour 24, ...). */
export function isValidTimestamp(s: string): boolean {
  if (!TIMESTAMP_PATTERN.test(s)) return false;
  const d = new Date(s);
  return !Number.isNaN(d.getTime()) && d.toISOString() === s;
}

function checkString(field: string, v: unknown): string {
  if (typeof v !== 'string') {
    fail(field, 'type string', `must be a string, got ${describe(v)}`, `quote the value, e.g. ${field}: "text"`);
  }
  if (UNSAFE_CHARS.test(v)) {
    fail(
      field,
      'no control or bidirectional formatting characters',
      'contains a control or bidirectional formatting character',
      'remove control characters (U+0000–U+001F, U+007F–U+009F) and bidi overrides (U+202A–U+202E, U+2066–U+2069)',
    );
  }
  return v;
}

function checkEnum(field: string, v: unknown, allowed: readonly string[]): void {
  const s = checkString(field, v);
  if (!allowed.includes(s)) {
    fail(field, `enum ${allowed.join('|')}`, `must be one of: ${allowed.join(', ')} (got ${quoteValue(s, 40)})`, `use one of: ${allowed.join(', ')}`);
  }
}

function checkSlug(field: string, v: unknown): void {
  const s = checkString(field, v);
  if (!SLUG_PATTERN.test(s)) {
    fail(
      field,
      `pattern ${SLUG_PATTERN.source}`,
      `must be a lowercase letters/numbers slug (got ${quoteValue(s, 70)})`,
      'use lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, at most 64 characters',
    );
  }
}

function checkId(field: string, v: unknown): void {
  const s = checkString(field, v);
  if (!ID_PATTERN.test(s)) {
    fail(
      field,
      `pattern ${ID_PATTERN.source}`,
      `memory id must match mem_<lowercase-id> (got ${quoteValue(s, 140)})`,
      'use an id like mem_20260726_0123456789abcdef0123 (lowercase letters, digits, "_" or "-")',
    );
  }
}

function checkList(field: string, v: unknown, min: number, max: number, each: (f: string, x: unknown) => void): void {
  if (!Array.isArray(v)) {
    fail(field, 'type array', `must be a list, got ${describe(v)}`, `write a list, e.g. ${field}: ["a", "b"]`);
  }
  if (v.length > max) fail(field, `maxItems ${max}`, `has too many values (${v.length}, maximum ${max})`, `keep at most ${max} values`);
  if (v.length < min) {
    fail(field, `minItems ${min}`, `must have at least one harness or "all"`, `add a value, e.g. ${field}: ["all"]`);
  }
  for (let i = 0; i < v.length; i++) each(`${field}[${i}]`, v[i]);
  if (new Set(v).size !== v.length) fail(field, 'uniqueItems', 'has duplicate values', 'remove the repeated values');
}

function checkTimestamp(field: string, v: unknown): void {
  const s = checkString(field, v);
  if (!isValidTimestamp(s)) {
    const hint = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(s)
      ? 'this looks like an editor "Date & time" property (no seconds, no zone); write UTC with milliseconds, e.g. 2026-08-01T10:15:00.000Z'
      : 'write UTC ISO-8601 with milliseconds, e.g. 2026-07-26T20:00:00.000Z';
    fail(field, `ISO-8601 timestamp ${TIMESTAMP_PATTERN.source}`, `must be a UTC ISO-8601 timestamp with milliseconds (got ${quoteValue(s, 40)})`, hint);
  }
}

/** The rule a missing field breaks, as the start of its hint. */
const MISSING_FIELDS_RULE = 'all thirteen ecc.memory.v1 fields are required';

/** The fix of missing fields: a line to add for each, with an example value. */
export function addMissingFields(missing: readonly string[]): string {
  return `add ${missing.map((k) => `${k}: ${MISSING_FIELD_EXAMPLE[k as (typeof FIELD_ORDER)[number]] ?? '<a value>'}`).join(', ')}`;
}

/** An example line value for each field, for the fix of a missing one (placeholders in angle brackets). */
const MISSING_FIELD_EXAMPLE: Readonly<Record<(typeof FIELD_ORDER)[number], string>> = {
  schema: `"${SCHEMA_VERSION}"`,
  id: '"<the file name without .md>"',
  title: '"<a short title>"',
  kind: `"<${KINDS.join('|')}>"`,
  scope: '"<the scope folder it is in>"',
  trust: `"${TRUSTS[0]}"`,
  status: '"active"',
  source_harness: '"unknown" (or who wrote it: claude-code, codex, ...)',
  target_harnesses: '["all"]',
  tags: '[]',
  links: '[]',
  created_at: '"<an ISO 8601 UTC time, e.g. 2026-01-31T09:00:00.000Z>"',
  updated_at: '"<the same as created_at, or later>"',
};

/**
 * Checks a parsed frontmatter object against ecc.memory.v1: exactly the thirteen keys, each
 * value's type, pattern, enum, length and count limit.
 *
 * Order of checks follows the reference implementation: object, target_harnesses, schema, then
 * the other fields in frontmatter order. The first failure is thrown; every other unknown, missing
 * or bad field rides along in its `others` (so doctor names them all).
 *
 * @param data the value parsed from the frontmatter block
 * @returns `data` typed as {@link Frontmatter}
 * @throws VaultError `frontmatter-not-object`, `unknown-field`, `missing-field` or `invalid-field`
 *   (with `field` and `rule` set)
 */
export function validateFrontmatter(data: unknown): Frontmatter {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new VaultError('frontmatter-not-object', `frontmatter must be a mapping of keys to values, got ${describe(data)}`, {
      rule: 'type object',
      hint: 'write one "key: value" line per field between the --- lines',
    });
  }
  const obj = data as Record<string, unknown>;
  const problems: VaultError[] = [];
  const check = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      problems.push(err);
    }
  };
  let unknown = 0;
  for (const key of Object.keys(obj)) {
    // at most 20 unknown keys are described (a hostile block may hold thousands)
    if (!(FIELD_ORDER as readonly string[]).includes(key) && ++unknown <= 20) {
      const shown = boundInput(key, 64);
      problems.push(
        new VaultError('unknown-field', `unknown frontmatter field ${quoteInput(key, 64)}`, {
          field: shown,
          rule: 'additionalProperties false',
          hint: `remove it; ecc.memory.v1 allows only: ${FIELD_ORDER.join(', ')}`,
        }),
      );
    }
  }
  const missing = FIELD_ORDER.filter((k) => !Object.hasOwn(obj, k));
  if (missing.length > 0) {
    problems.push(
      new VaultError('missing-field', `frontmatter is missing fields: ${missing.join(', ')}`, {
        field: missing[0],
        rule: 'required',
        hint: `${MISSING_FIELDS_RULE}; ${addMissingFields(missing)}`,
      }),
    );
  }
  const present = (k: string) => Object.hasOwn(obj, k);
  if (present('target_harnesses'))
    check(() => checkList('target_harnesses', obj.target_harnesses, LIMITS.targetHarnessesMin, LIMITS.targetHarnessesMax, checkSlug));
  if (present('schema'))
    check(() => {
      const schema = checkString('schema', obj.schema);
      if (schema !== SCHEMA_VERSION) {
        fail('schema', `const ${SCHEMA_VERSION}`, `unsupported memory schema ${quoteValue(schema, 40)}`, `set schema: "${SCHEMA_VERSION}"`);
      }
    });
  if (present('id')) check(() => checkId('id', obj.id));
  if (present('title')) check(() => checkTitle(obj.title));
  if (present('kind')) check(() => checkEnum('kind', obj.kind, KINDS));
  if (present('scope')) check(() => checkEnum('scope', obj.scope, SCOPES));
  if (present('trust')) check(() => checkEnum('trust', obj.trust, TRUSTS));
  if (present('status')) check(() => checkEnum('status', obj.status, STATUSES));
  if (present('source_harness')) check(() => checkSlug('source_harness', obj.source_harness));
  if (present('tags')) check(() => checkList('tags', obj.tags, 0, LIMITS.tagsMax, checkSlug));
  if (present('links')) check(() => checkList('links', obj.links, 0, LIMITS.linksMax, checkId));
  if (present('created_at')) check(() => checkTimestamp('created_at', obj.created_at));
  if (present('updated_at')) check(() => checkTimestamp('updated_at', obj.updated_at));
  const first = problems[0];
  if (first) {
    throw new VaultError(first.code, first.message, {
      ...(first.field !== undefined ? { field: first.field } : {}),
      ...(first.rule !== undefined ? { rule: first.rule } : {}),
      ...(first.hint !== undefined ? { hint: first.hint } : {}),
      others: problems.slice(1),
    });
  }
  return obj as unknown as Frontmatter;
}

/**
 * Title rule: a string, no unsafe characters, no unpaired surrogates, trimmed, 1..200 UTF-16
 * code units (limits from ecc.memory.v1; the surrogate rule is ours: such a title cannot be
 * written as UTF-8).
 *
 * @param v the value as parsed or given
 * @returns the title, unchanged
 * @throws VaultError `invalid-field` with field "title"
 */
export function checkTitle(v: unknown): string {
  const s = checkString('title', v);
  if (s.length === 0 || s.trim().length === 0) fail('title', 'minLength 1', 'must be a non-empty string', 'give the memory a short title');
  if (LONE_SURROGATE.test(s)) {
    fail(
      'title',
      'well-formed Unicode',
      'contains an unpaired surrogate (not a Unicode character)',
      'remove the broken character; the title must be valid Unicode text',
    );
  }
  if (s !== s.trim()) fail('title', 'trimmed', 'must not start or end with whitespace', 'remove the leading/trailing spaces');
  if (s.length > LIMITS.titleMax) {
    fail(
      'title',
      `maxLength ${LIMITS.titleMax}`,
      `is too long (maximum ${LIMITS.titleMax} characters, got ${s.length})`,
      'shorten the title; put details in the body',
    );
  }
  return s;
}

/**
 * Body rule: non-empty after trimming, at most 65,536 UTF-8 bytes, no control characters other
 * than TAB, LF, CR and no bidi formatting characters (limits from ecc.memory.v1), and no unpaired
 * surrogates (ours: they cannot be written as UTF-8, so the file would not read back the same).
 *
 * Unsafe characters are checked before trimming (so a leading U+000B is refused, not trimmed
 * away); the size is measured after trimming.
 *
 * @param raw the body text as given or as found in the file
 * @returns the trimmed body, which is what is stored
 * @throws VaultError `invalid-body` or `body-too-large`
 */
export function validateBody(raw: string): string {
  if (typeof raw !== 'string') {
    throw new VaultError('invalid-body', 'body: must be a string', { field: 'body', rule: 'type string', hint: 'give the body as text' });
  }
  if (UNSAFE_BODY_CHARS.test(raw)) {
    throw new VaultError('invalid-body', 'body: contains a control or bidirectional formatting character', {
      field: 'body',
      rule: 'no control or bidirectional formatting characters',
      hint: 'only TAB, LF and CR are allowed among control characters; remove bidi overrides (U+202A–U+202E, U+2066–U+2069)',
    });
  }
  if (LONE_SURROGATE.test(raw)) {
    throw new VaultError('invalid-body', 'body: contains an unpaired surrogate (not a Unicode character)', {
      field: 'body',
      rule: 'well-formed Unicode',
      hint: 'remove the broken character; the body must be text that can be written as UTF-8',
    });
  }
  const body = raw.trim();
  if (body.length === 0) {
    throw new VaultError('invalid-body', 'body: must contain non-whitespace content', {
      field: 'body',
      rule: 'minLength 1',
      hint: 'write what should be remembered in the body',
    });
  }
  const bytes = utf8Bytes(body);
  if (bytes > LIMITS.bodyMaxBytes) {
    throw new VaultError('body-too-large', `body: is too large (${bytes} bytes, maximum ${LIMITS.bodyMaxBytes} bytes of UTF-8)`, {
      field: 'body',
      rule: `maxBytes ${LIMITS.bodyMaxBytes}`,
      hint: 'split the memory into smaller ones, or link to a document in the repository',
    });
  }
  return body;
}

/**
 * Why Obsidian would not treat `tag` as the same tag, or undefined when it would: it ignores a
 * purely numeric tag (`2024`) and ends a tag at a dot (`node.js` → `node`). The one rule behind
 * doctor's `obsidian-tag` warning and the warning at save.
 * Source: Obsidian help, "Tag format" (at least one non-numeric character; letters, digits,
 * `_`, `-`, `/` only).
 */
export function obsidianTagProblem(tag: string): string | undefined {
  if (/^[0-9]+$/.test(tag)) return 'is purely numeric';
  if (tag.includes('.')) return 'contains a dot, where Obsidian ends a tag';
  return undefined;
}

/** How to fix a tag {@link obsidianTagProblem} reports. */
export const OBSIDIAN_TAG_FIX = 'add a letter (e.g. y2024 instead of 2024) or use "-" instead of "."';
