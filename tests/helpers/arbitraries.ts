/**
 * fast-check arbitraries for ecc.memory.v1 values, shared by the unit property tests.
 * Valid values are built to satisfy the contract directly (not by filtering), so that every run
 * explores the edges: full Unicode titles, maximum lengths, maximum list sizes.
 */
import fc from 'fast-check';
import { ID_PATTERN, KINDS, SCOPES, SLUG_PATTERN, STATUSES, type Frontmatter, type Memory } from '../../src/document/contract.js';

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/** Characters that matter for quoting in YAML/JSON, Markdown and paths. */
export const TRICKY_TITLES = [
  'Use "Redis" sessions',
  'Use “Redis” sessions — it’s «fine»',
  "it's 'single' quoted",
  'C:\\tmp\\new folder\\',
  'a/b/../../etc/passwd',
  'key: value',
  '# not a heading',
  '- not a list item',
  '[not a list]',
  '{not: a map}',
  'yes',
  'no',
  'null',
  '~',
  'true',
  '0x1F',
  '1e3',
  '.inf',
  '2026-07-26T20:00:00.000Z',
  '&anchor *alias !tag',
  '| block > folded',
  '@at `backtick` %percent',
  '🎉 emoji 👩‍👩‍👧 family',
  '中文标题：会话存储',
  '日本語のタイトル',
  'עברית mixed with English',
  'ends with a colon:',
  '---',
  '...',
  '"',
  "'",
  '\\',
  'x'.repeat(200),
  '😀'.repeat(100),
  'zero\u200bwidth and \u200e marks \u061c ok',
  'a\u00a0nbsp inside',
];

/** A trimmed, safe, non-empty title of at most 200 UTF-16 code units. */
export const validTitle: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TRICKY_TITLES),
  fc
    .string({ unit: 'binary', minLength: 1, maxLength: 220 })
    .map(cleanTitle)
    .filter((s) => s.length > 0),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
    .map(cleanTitle)
    .filter((s) => s.length > 0),
);

/** Removes what a title may not contain, trims, and cuts to 200 code units without splitting a pair. */
export function cleanTitle(s: string): string {
  let t = s
    .replace(UNSAFE, ' ')
    .replace(/[\ud800-\udfff]/gu, 'x')
    .trim();
  if (t.length > 200) t = t.slice(0, 200);
  if (/[\ud800-\udbff]$/.test(t)) t = t.slice(0, -1);
  return t.trim();
}

export const slug: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('all', 'claude', 'codex', 'a', '0', 'x.y_z-1', 'a'.repeat(64)),
  fc.stringMatching(SLUG_PATTERN),
);
export const memoryId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('mem_abc', 'mem_20260726_0123456789abcdef0123', `mem_${'a'.repeat(128)}`),
  fc.stringMatching(ID_PATTERN),
);

/** A valid UTC timestamp with milliseconds, from the years 0000 to 9999. */
export const timestamp: fc.Arbitrary<string> = fc
  .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Body text: trimmed, non-empty, only TAB/LF/CR among controls, no bidi formatting characters. */
export const validBody: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
    fc.constantFrom('---', '---\n---', 'a\r\nb', '\tindented', '[[mem_abc|label]]', '```yaml\nkey: value\n---\n```', '# Heading\n\n- item'),
  )
  .map((s) =>
    s
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu, ' ')
      .replace(/[\ud800-\udfff]/gu, 'x')
      .trim(),
  )
  .filter((s) => s.length > 0);

export const validFrontmatter: fc.Arbitrary<Frontmatter> = fc.record({
  schema: fc.constant('ecc.memory.v1'),
  id: memoryId,
  title: validTitle,
  kind: fc.constantFrom(...KINDS),
  scope: fc.constantFrom(...SCOPES),
  trust: fc.constant('unreviewed'),
  status: fc.constantFrom(...STATUSES),
  source_harness: slug,
  target_harnesses: fc.uniqueArray(slug, { minLength: 1, maxLength: 32 }),
  tags: fc.uniqueArray(slug, { maxLength: 32 }),
  links: fc.uniqueArray(memoryId, { maxLength: 64 }),
  created_at: timestamp,
  updated_at: timestamp,
});

export const validMemory: fc.Arbitrary<Memory> = fc.tuple(validFrontmatter, validBody).map(([f, body]) => ({
  schema: 'ecc.memory.v1',
  id: f.id,
  title: f.title,
  kind: f.kind as Memory['kind'],
  scope: f.scope as Memory['scope'],
  trust: 'unreviewed',
  status: f.status as Memory['status'],
  sourceHarness: f.source_harness,
  targetHarnesses: f.target_harnesses,
  tags: f.tags,
  links: f.links,
  createdAt: f.created_at,
  updatedAt: f.updated_at,
  body,
}));
