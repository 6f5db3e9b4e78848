/**
 * One table of parse cases: each input, and the VaultError code (with field and line where they
 * apply) or the non-canonical reasons it must produce. Fixtures: tests/fixtures/memories.
 */
import { describe, expect, it } from 'vitest';
import { parseMemory, type NonCanonicalReason } from '../../src/document/parse.js';
import { serializeMemory } from '../../src/document/serialize.js';
import { isVaultError } from '../../src/errors.js';
import { memoryFixture } from '../helpers/cli.js';

const FIELDS: Record<string, string> = {
  schema: '"ecc.memory.v1"',
  id: '"mem_20260725_01kolder"',
  title: '"Drop stateless JWT for server sessions"',
  kind: '"decision"',
  scope: '"project"',
  trust: '"unreviewed"',
  status: '"active"',
  source_harness: '"claude"',
  target_harnesses: '["all"]',
  tags: '["auth"]',
  links: '[]',
  created_at: '"2026-07-25T09:30:00.000Z"',
  updated_at: '"2026-07-25T09:30:00.000Z"',
};

/** A canonical document with some frontmatter lines replaced (`null` drops the line). */
function doc(patch: Record<string, string | null> = {}, body = 'We use server sessions.', extraLines: string[] = []): string {
  const lines = Object.entries({ ...FIELDS, ...patch })
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}: ${v}`);
  return `---\n${[...lines, ...extraLines].join('\n')}\n---\n\n${body}\n`;
}

const VALID = doc();
const fixture = memoryFixture;
const DECISION = 'mem_20260903_a41c7e9b2d05f3816c4e';
const HANDOFF = 'mem_20260904_5be28d1f0a7c93e4b6d1';

interface Case {
  name: string;
  input: string | Uint8Array;
  /** expected error, or undefined when the document must parse */
  error?: { code: string; field?: string; line?: number; message?: RegExp; hint?: RegExp };
  /** when it parses: the expected non-canonical reasons ([] = canonical) */
  nonCanonical?: NonCanonicalReason[];
  check?: (m: ReturnType<typeof parseMemory>) => void;
}

const cases: Case[] = [
  { name: 'canonical document', input: VALID, nonCanonical: [] },
  { name: 'empty file', input: '', error: { code: 'missing-frontmatter', line: 1 } },
  { name: 'only whitespace', input: '\n\n  \n', error: { code: 'missing-frontmatter', line: 1 } },
  { name: 'no frontmatter', input: '# Title\n\nbody\n', error: { code: 'missing-frontmatter', line: 1 } },
  { name: 'frontmatter only (no body)', input: VALID.replace('\nWe use server sessions.\n', ''), error: { code: 'invalid-body', field: 'body', line: 16 } },
  { name: 'frontmatter only, no final newline', input: VALID.slice(0, VALID.indexOf('\n---\n') + 4), error: { code: 'invalid-body', field: 'body' } },
  { name: 'whitespace-only body', input: doc({}, ' \t\n  '), error: { code: 'invalid-body', field: 'body', message: /non-whitespace/ } },
  { name: 'empty frontmatter', input: '---\n---\n\nbody\n', error: { code: 'frontmatter-not-object' } },
  { name: 'unclosed frontmatter', input: VALID.replace('\n---\n\n', '\n\n'), error: { code: 'unclosed-frontmatter' } },
  { name: '---NOT-A-DELIMITER does not close', input: VALID.replace('\n---\n\n', '\n---NOT-A-DELIMITER\n\n'), error: { code: 'unclosed-frontmatter' } },
  { name: '---NOT-A-DELIMITER before the real delimiter', input: doc({}, 'b', ['---NOT-A-DELIMITER']), error: { code: 'invalid-frontmatter', line: 15 } },
  { name: '"--- " (trailing space) does not close', input: VALID.replace('\n---\n\n', '\n--- \n\n'), error: { code: 'unclosed-frontmatter' } },
  { name: 'closing delimiter at end of file', input: VALID.slice(0, VALID.indexOf('\n---\n') + 4), error: { code: 'invalid-body' } },
  // encodings and line endings
  {
    name: 'invalid UTF-8',
    input: Buffer.concat([Buffer.from(VALID.replace('sessions.', '')), Buffer.from([0xc3, 0x28, 0x0a])]),
    error: { code: 'invalid-utf8' },
  },
  { name: 'overlong UTF-8', input: Buffer.concat([Buffer.from('---\n'), Buffer.from([0xc0, 0xaf])]), error: { code: 'invalid-utf8' } },
  { name: 'UTF-8 encoded surrogate', input: Buffer.concat([Buffer.from(VALID), Buffer.from([0xed, 0xa0, 0x80])]), error: { code: 'invalid-utf8' } },
  { name: 'UTF-16 file', input: Buffer.from(`\ufeff${VALID}`, 'utf16le'), error: { code: 'invalid-utf8' } },
  { name: 'BOM (bytes): readable, not canonical', input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]), nonCanonical: ['bom'] },
  { name: 'BOM (text): readable, not canonical', input: `\ufeff${VALID}`, nonCanonical: ['bom'] },
  { name: 'CRLF: readable, not canonical', input: VALID.replace(/\n/g, '\r\n'), nonCanonical: ['crlf'] },
  { name: 'BOM and CRLF', input: `\ufeff${VALID.replace(/\n/g, '\r\n')}`, nonCanonical: ['bom', 'crlf'] },
  { name: 'CR-only line endings', input: VALID.replace(/\n/g, '\r'), error: { code: 'missing-frontmatter', hint: /CR-only/ } },
  {
    name: 'CRLF inside the body of an LF document is kept',
    input: doc({}, 'line one\r\nline two'),
    nonCanonical: [],
    check: (p) => expect(p.memory.body).toBe('line one\r\nline two'),
  },
  // keys
  { name: 'missing key', input: doc({ status: null }), error: { code: 'missing-field', field: 'status', message: /missing fields: status/ } },
  { name: 'several missing keys', input: doc({ tags: null, links: null }), error: { code: 'missing-field', field: 'tags', message: /tags, links/ } },
  { name: 'extra key', input: doc({}, 'b', ['body: "x"']), error: { code: 'unknown-field', field: 'body', line: 15 } },
  { name: 'camelCase key', input: doc({ source_harness: null }, 'b', ['sourceHarness: "claude"']), error: { code: 'unknown-field', field: 'sourceHarness' } },
  { name: '__proto__ key', input: doc({}, 'b', ['__proto__: {"trust": "reviewed"}']), error: { code: 'unknown-field', field: '__proto__' } },
  { name: 'repeated key (canonical lines)', input: doc({}, 'b', ['title: "again"']), error: { code: 'duplicate-field', field: 'title', line: 15 } },
  { name: 'repeated key (YAML lines)', input: doc({}, 'b', ['title: again', 'x:']), error: { code: 'duplicate-field', field: 'title', line: 15 } },
  { name: 'a key that is a list', input: doc({}, 'b', ['? [a, b]', ': c']), error: { code: 'invalid-frontmatter', line: 15 } },
  { name: 'an empty key', input: doc({}, 'b', [': c']), error: { code: 'invalid-frontmatter', line: 15 } },
  { name: 'frontmatter is a list', input: '---\n- a\n- b\n---\n\nbody\n', error: { code: 'frontmatter-not-object' } },
  { name: 'frontmatter is a scalar', input: '---\njust text\n---\n\nbody\n', error: { code: 'frontmatter-not-object' } },
  { name: 'frontmatter holds only comments', input: '---\n# nothing\n---\n\nbody\n', error: { code: 'missing-field' } },
  { name: 'YAML syntax error', input: doc({ title: '"unclosed' }), error: { code: 'invalid-frontmatter' } },
  { name: 'tab indentation', input: doc({}, 'b', ['\tx: 1']), error: { code: 'invalid-frontmatter', line: 15 } },
  // wrong types and values
  {
    name: 'title is a number',
    input: doc({ title: '42' }),
    error: { code: 'invalid-field', field: 'title', line: 4, message: /must be a string, got a number/ },
  },
  { name: 'title is null', input: doc({ title: 'null' }), error: { code: 'invalid-field', field: 'title', line: 4 } },
  { name: 'title is a list', input: doc({ title: '["a"]' }), error: { code: 'invalid-field', field: 'title' } },
  { name: 'tags is a string', input: doc({ tags: '"auth"' }), error: { code: 'invalid-field', field: 'tags', line: 11 } },
  { name: 'tags hold a number', input: doc({ tags: '[1]' }), error: { code: 'invalid-field', field: 'tags[0]', line: 11 } },
  { name: 'trust promoted', input: doc({ trust: '"reviewed"' }), error: { code: 'invalid-field', field: 'trust', line: 7 } },
  { name: 'unknown schema', input: doc({ schema: '"ecc.memory.v2"' }), error: { code: 'invalid-field', field: 'schema', line: 2 } },
  { name: 'bad id', input: doc({ id: '"mem_../../etc"' }), error: { code: 'invalid-field', field: 'id', line: 3 } },
  {
    name: 'empty target_harnesses',
    input: doc({ target_harnesses: '[]' }),
    error: { code: 'invalid-field', field: 'target_harnesses', message: /at least one harness/ },
  },
  { name: 'duplicate tags', input: doc({ tags: '["a","a"]' }), error: { code: 'invalid-field', field: 'tags', message: /duplicate/ } },
  { name: 'untrimmed title', input: doc({ title: '" padded "' }), error: { code: 'invalid-field', field: 'title', message: /whitespace/ } },
  {
    name: 'title of 201 characters',
    input: doc({ title: JSON.stringify('x'.repeat(201)) }),
    error: { code: 'invalid-field', field: 'title', message: /too long/ },
  },
  { name: 'title of 101 emoji (202 UTF-16 units)', input: doc({ title: JSON.stringify('😀'.repeat(101)) }), error: { code: 'invalid-field', field: 'title' } },
  { name: 'title of 100 emoji (200 UTF-16 units)', input: doc({ title: JSON.stringify('😀'.repeat(100)) }), nonCanonical: [] },
  { name: 'Feb 30', input: doc({ created_at: '"2026-02-30T00:00:00.000Z"' }), error: { code: 'invalid-field', field: 'created_at', line: 13 } },
  {
    name: 'Feb 29 in a non-leap year',
    input: doc({ updated_at: '"2025-02-29T00:00:00.000Z"' }),
    error: { code: 'invalid-field', field: 'updated_at', line: 14 },
  },
  { name: 'hour 24', input: doc({ created_at: '"2026-01-01T24:00:00.000Z"' }), error: { code: 'invalid-field', field: 'created_at' } },
  // control and bidi characters
  {
    name: 'C0 control in title (JSON escape)',
    input: doc({ title: '"a\\u0007b"' }),
    error: { code: 'invalid-field', field: 'title', line: 4, message: /control or bidirectional/ },
  },
  { name: 'C1 control in title', input: doc({ title: '"a\u0085b"' }), error: { code: 'invalid-field', field: 'title' } },
  { name: 'RLO in title', input: doc({ title: '"abc\u202edef"' }), error: { code: 'invalid-field', field: 'title' } },
  { name: 'isolate in title', input: doc({ title: '"abc\u2066def"' }), error: { code: 'invalid-field', field: 'title' } },
  { name: 'LRM in title is allowed', input: doc({ title: '"abc\u200edef"' }), nonCanonical: [] },
  {
    name: 'unpaired surrogate in title (JSON escape)',
    input: doc({ title: '"a\\ud800b"' }),
    error: { code: 'invalid-field', field: 'title', message: /unpaired surrogate/ },
  },
  { name: 'bidi in a tag', input: doc({ tags: '["a\u202eb"]' }), error: { code: 'invalid-field', field: 'tags[0]', line: 11 } },
  { name: 'NUL in body', input: doc({}, 'a\u0000b'), error: { code: 'invalid-body', field: 'body', line: 17 } },
  { name: 'ESC in body, third line', input: doc({}, 'one\ntwo\nthree \u001b[31m'), error: { code: 'invalid-body', field: 'body', line: 19 } },
  { name: 'RLO in body', input: doc({}, 'a\u202eb'), error: { code: 'invalid-body', field: 'body' } },
  { name: 'vertical tab at the start of the body is refused, not trimmed', input: doc({}, '\u000bbody'), error: { code: 'invalid-body' } },
  { name: 'TAB, LF, CR in body are allowed', input: doc({}, 'a\tb\nc\r\nd'), nonCanonical: [] },
  // sizes
  { name: 'body of 65,536 bytes', input: doc({}, 'x'.repeat(65_536)), nonCanonical: [] },
  { name: 'body of 65,537 bytes', input: doc({}, 'x'.repeat(65_537)), error: { code: 'body-too-large', field: 'body', message: /65537 bytes, maximum 65536/ } },
  { name: 'body of 65,536 bytes in 3-byte characters + 1', input: doc({}, `${'中'.repeat(21_845)}x`), nonCanonical: [] },
  { name: 'body of 21,846 3-byte characters (65,538 bytes)', input: doc({}, '中'.repeat(21_846)), error: { code: 'body-too-large' } },
  { name: 'document of 131,073 bytes', input: doc({}, 'x'.repeat(131_073)), error: { code: 'document-too-large', message: /maximum 131072/ } },
  { name: 'document of 131,073 bytes of noise', input: new Uint8Array(131_073).fill(0xff), error: { code: 'document-too-large' } },
  // engines, anchors, tags
  { name: '---js', input: `---js\nrequire('fs').writeFileSync('/tmp/pwned', 'x')\n---\n\nbody\n`, error: { code: 'frontmatter-language', line: 1 } },
  { name: '---javascript', input: `---javascript\n({title: 'x'})\n---\n\nbody\n`, error: { code: 'frontmatter-language' } },
  { name: '---coffee', input: `---coffee\ntitle: 'x'\n---\n\nbody\n`, error: { code: 'frontmatter-language' } },
  { name: '--- yaml', input: VALID.replace(/^---/, '--- yaml'), error: { code: 'frontmatter-language' } },
  { name: '---json', input: `---json\n{"title": "x"}\n---\n\nbody\n`, error: { code: 'frontmatter-language' } },
  { name: '---js with CRLF', input: `---js\r\n({})\r\n---\r\n\r\nbody\r\n`, error: { code: 'frontmatter-language' } },
  { name: '---- (four dashes)', input: VALID.replace(/^---/, '----'), error: { code: 'missing-frontmatter' } },
  { name: 'YAML anchor and alias', input: doc({ tags: '&t ["a"]', links: null }, 'b', ['links: *t']), error: { code: 'yaml-alias', line: 11 } },
  { name: 'YAML merge key', input: doc({}, 'b', ['<<: {x: 1}']), error: { code: 'unknown-field', field: '<<' } },
  { name: '!!js/function tag', input: doc({ title: '!!js/function "function () { return 1 }"' }), error: { code: 'yaml-tag', line: 4 } },
  { name: '!!binary tag', input: doc({ title: '!!binary aGVsbG8=' }), error: { code: 'yaml-tag', line: 4 } },
  { name: '!!timestamp tag', input: doc({ created_at: '!!timestamp 2026-07-25T09:30:00.000Z' }), error: { code: 'yaml-tag', line: 13 } },
  { name: '!!str tag (explicit tags are refused, even harmless ones)', input: doc({ title: '!!str hello' }), error: { code: 'yaml-tag' } },
  {
    name: 'plain YAML timestamps stay strings',
    input: doc({ created_at: '2026-07-25T09:30:00.000Z', updated_at: '2026-07-25T09:30:00.000Z' }),
    nonCanonical: ['frontmatter-style'],
    check: (p) => expect(p.memory.createdAt).toBe('2026-07-25T09:30:00.000Z'),
  },
  { name: 'YAML words stay strings', input: doc({ title: 'yes', tags: '[no, null, on, "true"]' }), error: { code: 'invalid-field', field: 'tags[1]' } },
  {
    name: 'unquoted yes is the string "yes"',
    input: doc({ title: 'yes' }),
    nonCanonical: ['frontmatter-style'],
    check: (p) => expect(p.memory.title).toBe('yes'),
  },
  // non-canonical but valid
  { name: 'block-style lists', input: doc({ tags: '\n  - auth', target_harnesses: '\n  - all' }), nonCanonical: ['frontmatter-style'] },
  { name: 'unquoted strings', input: doc({ title: 'Drop stateless JWT for server sessions', kind: 'decision' }), nonCanonical: ['frontmatter-style'] },
  {
    name: 'keys in another order',
    input: VALID.replace('kind: "decision"\nscope: "project"', 'scope: "project"\nkind: "decision"'),
    nonCanonical: ['frontmatter-style'],
  },
  { name: 'a comment line', input: doc({}, 'We use server sessions.', ['# reviewed by Ann']), nonCanonical: ['frontmatter-style'] },
  { name: 'no blank line before the body', input: VALID.replace('---\n\nWe', '---\nWe'), nonCanonical: ['body-spacing'] },
  { name: 'untrimmed body', input: VALID.replace('sessions.\n', 'sessions.   \n\n\n'), nonCanonical: ['body-spacing'] },
  { name: 'no final newline', input: VALID.slice(0, -1), nonCanonical: ['body-spacing'] },
  { name: 'lists spelled ["a", "b"] (as earlier versions wrote) are canonical', input: doc({ tags: '["auth", "x"]' }), nonCanonical: [] },
  { name: 'lists spelled ["a","b"] (as the reference tool writes) are canonical', input: doc({ tags: '["auth","x"]' }), nonCanonical: [] },
  { name: 'lists spelled [ "a" ] are not', input: doc({ tags: '[ "auth" ]' }), nonCanonical: ['frontmatter-style'] },
  { name: 'compact lists and a missing blank line', input: doc({ tags: '["auth","x"]' }).replace('---\n\nWe', '---\nWe'), nonCanonical: ['body-spacing'] },
  // reference fixtures
  { name: 'reference fixture: decision', input: fixture(`reference/${DECISION}.md`), nonCanonical: [] },
  { name: 'reference fixture: handoff', input: fixture(`reference/${HANDOFF}.md`), nonCanonical: [] },
  {
    name: 'obsidian fixture: block-style properties',
    input: fixture(`obsidian/${HANDOFF}.md`),
    nonCanonical: ['frontmatter-style'],
    check: (p) =>
      expect(p.memory).toMatchObject({
        scope: 'team',
        status: 'superseded',
        targetHarnesses: ['claude'],
        tags: ['queue', 'reliability'],
        links: [DECISION],
      }),
  },
  {
    name: 'obsidian fixture: "Date & time" property',
    input: fixture('obsidian/mem_20260911_replaytime.md'),
    error: { code: 'invalid-field', field: 'created_at', line: 14, message: /"2026-09-11T09:40"/, hint: /Date & time/ },
  },
];

describe('parse cases', () => {
  for (const c of cases) {
    it(c.name, () => {
      if (c.error) {
        let caught: unknown;
        try {
          parseMemory(c.input);
        } catch (err) {
          caught = err;
        }
        expect(isVaultError(caught), `expected VaultError ${c.error.code}, got ${String(caught)}`).toBe(true);
        const e = caught as import('../../src/errors.js').VaultError;
        expect(e.code).toBe(c.error.code);
        if (c.error.field !== undefined) expect(e.field).toBe(c.error.field);
        if (c.error.line !== undefined) expect(e.line).toBe(c.error.line);
        if (c.error.message) expect(e.message).toMatch(c.error.message);
        if (c.error.hint) expect(e.hint).toMatch(c.error.hint);
        expect(e.message).not.toMatch(/\n/);
        expect(e.hint ?? 'a hint').not.toBe('');
        return;
      }
      const p = parseMemory(c.input);
      expect(p.nonCanonical).toEqual(c.nonCanonical);
      expect(p.canonical).toBe(c.nonCanonical!.length === 0);
      c.check?.(p);
    });
  }

  it('refuses a billion-laughs document fast', () => {
    const lines = ['---', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = 'abcdefghij';
    for (let i = 1; i < names.length; i++)
      lines.push(
        `${names[i]}: &${names[i]} [${Array(9)
          .fill(`*${names[i - 1]}`)
          .join(',')}]`,
      );
    const input = `${lines.join('\n')}\n---\n\nbody\n`;
    const started = performance.now();
    expect(() => parseMemory(input)).toThrow(expect.objectContaining({ code: 'yaml-alias' }));
    // a generous bound: expanding the aliases would take minutes and gigabytes
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuses frontmatter built to make the YAML path slow, quickly, and still reads an edited file with comments', () => {
    const hostile: Array<[string, string]> = [
      ['120,000 blank lines (gray-matter comment regex is quadratic)', `---\n${'\n'.repeat(120_000)}a: 1\n---\n\nb\n`],
      ['30,000 blank lines (under the byte limit)', `---\n${'\n'.repeat(30_000)}a: 1\n---\n\nb\n`],
      ['12,000 keys (YAML unique-key check is quadratic)', `---\n${Array.from({ length: 12_000 }, (_, i) => `k${i}: 1`).join('\n')}\n---\n\nb\n`],
      ['a flow map of 3,000 keys on one line', `---\na: {${Array.from({ length: 3_000 }, (_, i) => `k${i}: 1`).join(', ')}}\n---\n\nb\n`],
      ['lists nested 120,000 deep', `---\na: ${'['.repeat(120_000)}\n---\n\nb\n`],
      ['lists nested 1,000 deep after an apostrophe', `---\ntitle: it's\nx: ${'['.repeat(1_000)}\n---\n\nb\n`],
      ['maps nested 5,000 deep', `---\na: ${'{a: '.repeat(5_000)}\n---\n\nb\n`],
    ];
    for (const [name, input] of hostile) {
      const started = performance.now();
      expect(() => parseMemory(input), name).toThrow(expect.objectContaining({ code: 'invalid-frontmatter', rule: 'yaml limits' }));
      expect(performance.now() - started, name).toBeLessThan(2_000); // each took 0.3 to 22 s before the limits
    }
    const edited = doc({ title: '"[[[[[[[[[[[[ brackets in a quoted title ]]"', tags: '\n  - auth # the only tag, {[{[{[{[{[{[' });
    expect(parseMemory(edited).nonCanonical).toEqual(['frontmatter-style']);
  });

  it('the reference fixtures parse to the same values and re-serialize byte-identical', () => {
    for (const id of [DECISION, HANDOFF]) {
      const bytes = fixture(`reference/${id}.md`);
      const p = parseMemory(bytes);
      expect(p.canonical).toBe(true);
      expect(Buffer.from(serializeMemory(p.memory), 'utf8').equals(bytes)).toBe(true);
    }
    // the reference's own spelling of lists: JSON.stringify, no space after the comma
    expect(fixture(`reference/${HANDOFF}.md`).toString('utf8')).toContain('\ntags: ["queue","reliability"]\n');
    const handoff = parseMemory(fixture(`reference/${HANDOFF}.md`)).memory;
    expect(handoff).toEqual({
      schema: 'ecc.memory.v1',
      id: HANDOFF,
      title: 'Dead-letter queue hand-off',
      kind: 'handoff',
      scope: 'project',
      trust: 'unreviewed',
      status: 'active',
      sourceHarness: 'codex',
      targetHarnesses: ['claude'],
      tags: ['queue', 'reliability'],
      links: [DECISION],
      createdAt: '2026-09-04T16:05:09.871Z',
      updatedAt: '2026-09-04T16:05:09.871Z',
      body: 'The worker moves a job to the dead-letter queue after its fifth failed attempt. Left to do: an alert when the queue holds more than 100 jobs, and a replay command.',
    });
    const decision = parseMemory(fixture(`reference/${DECISION}.md`)).memory;
    expect(decision).toMatchObject({ id: DECISION, kind: 'decision', sourceHarness: 'claude', tags: ['queue'], links: [] });
    expect(decision.body).toBe(
      'Failed jobs are retried every 30 seconds, at most five times.\nExponential backoff was tried and dropped: the upstream rate limit resets every minute, so longer waits only delayed work.',
    );
  });

  it('the Obsidian block-style fixture has the same values as the reference handoff, except what the person changed', () => {
    const ref = parseMemory(fixture(`reference/${HANDOFF}.md`)).memory;
    const obs = parseMemory(fixture(`obsidian/${HANDOFF}.md`)).memory;
    expect({ ...obs, scope: ref.scope, status: ref.status, body: ref.body }).toEqual(ref);
  });
});
