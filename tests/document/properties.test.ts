/**
 * Property tests of the document module: serialize → parse is the identity for every valid
 * memory, and parse throws nothing but VaultError, whatever the input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../src/document/parse.js';
import { serializeMemory } from '../../src/document/serialize.js';
import { isVaultError, VaultError } from '../../src/errors.js';
import matter from 'gray-matter';
import YAML from 'yaml';
import { GRAY_MATTER_OPTIONS, parseCanonicalBlock } from '../../src/document/yaml-engine.js';
import { TRICKY_TITLES, validMemory } from '../helpers/arbitraries.js';

function parseOrError(input: Uint8Array | string): { ok: true } | { ok: false; code: string } {
  try {
    parseMemory(input);
    return { ok: true };
  } catch (err) {
    if (!isVaultError(err) || !(err instanceof VaultError)) throw new Error(`parse threw a non-VaultError: ${String(err)}`, { cause: err });
    expect(typeof err.code).toBe('string');
    expect(err.message.length).toBeGreaterThan(0);
    return { ok: false, code: err.code };
  }
}

describe('serialize → parse', () => {
  it('is the identity for every valid memory, from text and from UTF-8 bytes, and canonical', () => {
    fc.assert(
      fc.property(validMemory, (m) => {
        const text = serializeMemory(m);
        const fromText = parseMemory(text);
        expect(fromText.memory).toEqual(m);
        expect(fromText.canonical).toBe(true);
        expect(fromText.nonCanonical).toEqual([]);
        const bytes = new TextEncoder().encode(text);
        const fromBytes = parseMemory(bytes);
        expect(fromBytes.memory).toEqual(m);
        expect(serializeMemory(fromBytes.memory)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('the JSON fast path reads canonical frontmatter exactly as YAML 1.2 and gray-matter do', () => {
    fc.assert(
      fc.property(validMemory, fc.constantFrom(', ', ',') as fc.Arbitrary<', ' | ','>, (m, listSeparator) => {
        const text = serializeMemory(m, { listSeparator });
        const block = text.slice(4, text.indexOf('\n---\n', 3));
        const fast = parseCanonicalBlock(block);
        expect(fast).toBeDefined();
        expect(YAML.parse(block, { version: '1.2', schema: 'core' })).toEqual(fast);
        expect(matter(text, GRAY_MATTER_OPTIONS as never).data).toEqual(fast);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every tricky title exactly (quotes, backslashes, YAML words, emoji, CJK)', () => {
    fc.assert(
      fc.property(validMemory, fc.constantFrom(...TRICKY_TITLES), (m, title) => {
        const withTitle = { ...m, title };
        expect(parseMemory(serializeMemory(withTitle)).memory.title).toBe(title);
      }),
      { numRuns: 200 },
    );
  });

  it('writes thirteen key: <JSON> lines in the fixed order, a blank line, the body and one newline', () => {
    fc.assert(
      fc.property(validMemory, (m) => {
        const text = serializeMemory(m);
        const lines = text.split('\n');
        expect(lines[0]).toBe('---');
        expect(lines.slice(1, 14).map((l) => l.slice(0, l.indexOf(':')))).toEqual([
          'schema',
          'id',
          'title',
          'kind',
          'scope',
          'trust',
          'status',
          'source_harness',
          'target_harnesses',
          'tags',
          'links',
          'created_at',
          'updated_at',
        ]);
        expect(lines[14]).toBe('---');
        expect(lines[15]).toBe('');
        expect(text.endsWith(`${m.body}\n`)).toBe(true);
        expect(text.endsWith('\n\n')).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});

/** Near misses: a valid document with one small edit. */
const nearMiss = fc
  .tuple(
    validMemory,
    fc.nat(),
    fc.nat(),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('insert', 'delete', 'replace', 'duplicate-line', 'drop-line', 'swap-lines', 'crlf', 'bom', 'truncate'),
  )
  .map(([m, a, b, s, op]) => {
    const text = serializeMemory(m);
    const i = a % (text.length + 1);
    const lines = text.split('\n');
    const j = a % lines.length;
    const k = b % lines.length;
    switch (op) {
      case 'insert':
        return text.slice(0, i) + s + text.slice(i);
      case 'delete':
        return text.slice(0, i) + text.slice(i + 1 + (b % 4));
      case 'replace':
        return text.slice(0, i) + s + text.slice(i + s.length);
      case 'duplicate-line':
        return [...lines.slice(0, j + 1), lines[j], ...lines.slice(j + 1)].join('\n');
      case 'drop-line':
        return [...lines.slice(0, j), ...lines.slice(j + 1)].join('\n');
      case 'swap-lines': {
        const out = [...lines];
        [out[j], out[k]] = [out[k]!, out[j]!];
        return out.join('\n');
      }
      case 'crlf':
        return text.replace(/\n/g, '\r\n');
      case 'bom':
        return `\ufeff${text}`;
      default:
        return text.slice(0, i);
    }
  });

describe('parse never throws anything but VaultError', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (s) => void parseOrError(s)),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }).map((s) => `---\n${s}\n---\n\nbody\n`),
        (s) => void parseOrError(s),
      ),
      { numRuns: 1000 },
    );
  });

  it('on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (b) => void parseOrError(b)),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), validMemory, fc.nat(), (noise, m, at) => {
        const bytes = new TextEncoder().encode(serializeMemory(m));
        const i = at % (bytes.length + 1);
        void parseOrError(new Uint8Array([...bytes.subarray(0, i), ...noise, ...bytes.subarray(i)]));
      }),
      { numRuns: 500 },
    );
  });

  it('on YAML-looking frontmatter built from YAML-significant tokens', () => {
    const token = fc.constantFrom(
      'a',
      'title',
      'tags',
      ':',
      ': ',
      '- ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '&x',
      '*x',
      '!!str',
      '!!js/function',
      '!!binary',
      '? ',
      '|',
      '>',
      '#',
      '"',
      "'",
      '\n',
      '\n  ',
      '\t',
      '%YAML 1.1',
      '---',
      '...',
      '<<',
      'null',
      '~',
      '2026-01-01',
      '\\',
      '\u0000',
      '\ud800',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (ts) => void parseOrError(`---\n${ts.join('')}\n---\n\nbody\n`)),
      { numRuns: 1500 },
    );
  });

  it('on near misses of valid documents (and when they still parse, they parse to valid memories)', () => {
    fc.assert(
      fc.property(nearMiss, (text) => {
        const r = parseOrError(text);
        if (r.ok) {
          const p = parseMemory(text);
          // whatever was accepted re-serializes to a document that parses to the same values
          expect(parseMemory(serializeMemory(p.memory)).memory).toEqual(p.memory);
          if (p.canonical) expect(serializeMemory(p.memory)).toBe(text);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
