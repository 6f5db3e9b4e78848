/**
 * schemas/memory.schema.json (through the generated ajv standalone validator) and the hand-written
 * rules in src/document/validate.ts must accept and reject exactly the same frontmatter objects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIELD_ORDER, type Frontmatter } from '../../src/document/contract.js';
import { validateFrontmatter } from '../../src/document/validate.js';
import { isVaultError } from '../../src/errors.js';
import { checkFrontmatter, schemaAccepts } from '../../src/document/check-frontmatter.js';
import { REPO } from '../helpers/cli.js';
import { memoryId, slug, validFrontmatter } from '../helpers/arbitraries.js';

function handAccepts(data: unknown): boolean {
  try {
    validateFrontmatter(data);
    return true;
  } catch (err) {
    if (!isVaultError(err)) throw err;
    return false;
  }
}

function agree(data: unknown): void {
  const schema = schemaAccepts(data).ok;
  const hand = handAccepts(data);
  if (schema !== hand) {
    throw new Error(`schema ${schema ? 'accepts' : 'rejects'} but code ${hand ? 'accepts' : 'rejects'}: ${JSON.stringify(data)}`);
  }
  // The gate used by the parser agrees with both.
  let gate = true;
  try {
    checkFrontmatter(data);
  } catch (err) {
    if (!isVaultError(err)) throw err;
    gate = false;
  }
  expect(gate).toBe(schema);
}

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant([]),
  fc.constant({}),
  fc.constant(['all']),
  fc.constant({ a: 'b' }),
  fc.string(),
  fc.constant(''),
);

const badSlug = fc.constantFrom('', 'A', 'Claude', '-x', '.x', '_x', 'a b', 'a/b', 'a:b', 'é', 'a'.repeat(65), 'x\u0000', 'a\u202e', ' a', 'a ', '#tag', 'ａ');
const badId = fc.constantFrom(
  '',
  'mem_',
  'mem_ab',
  'mem_Abc',
  'MEM_abc',
  'mem_-abc',
  'mem_.abc',
  'mem_a/b/c',
  'mem_../x',
  'mem_a.bc',
  `mem_${'a'.repeat(129)}`,
  'note_abc',
  ' mem_abc',
  'mem_abc ',
  'mem_abc\n',
);
const badTimestamp = fc.constantFrom(
  '2026-02-30T00:00:00.000Z',
  '2025-02-29T00:00:00.000Z',
  '1900-02-29T00:00:00.000Z',
  '2100-02-29T12:00:00.000Z',
  '2026-04-31T00:00:00.000Z',
  '2026-13-01T00:00:00.000Z',
  '2026-00-10T00:00:00.000Z',
  '2026-01-00T00:00:00.000Z',
  '2026-01-01T24:00:00.000Z',
  '2026-01-01T23:60:00.000Z',
  '2026-01-01T23:59:60.000Z',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.00Z',
  '2026-01-01T00:00:00.0000Z',
  '2026-01-01T00:00:00.000z',
  '2026-01-01t00:00:00.000Z',
  '2026-01-01 00:00:00.000Z',
  '2026-01-01T00:00:00.000+00:00',
  '2026-08-01T10:15',
  '+002026-01-01T00:00:00.000Z',
  '２０２６-01-01T00:00:00.000Z',
  '2026-01-01T00:00:00.000Z\n',
);
const goodTimestamp = fc.constantFrom(
  '2024-02-29T00:00:00.000Z',
  '2000-02-29T23:59:59.999Z',
  '1600-02-29T00:00:00.000Z',
  '0000-02-29T00:00:00.000Z',
  '2026-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999Z',
  '2026-04-30T00:00:00.000Z',
);

/** Characters a title or tag may not contain, and some it may. */
const edgeChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x202a, max: 0x202e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x2066, max: 0x2069 }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u200e', '\u200f', '\u061c', '\u2028', '\u2029', '\ufeff', '\u00a0', '\u3000', '\u200b', '\ud800', '\udfff', '\ud83d', '😀', ' ', '\t'),
);

type Mutation = (f: Record<string, unknown>) => fc.Arbitrary<Record<string, unknown>>;
const set = (f: Record<string, unknown>, key: string, value: unknown) => ({ ...f, [key]: value });
const fieldName = fc.constantFrom(...FIELD_ORDER);

const mutations: Mutation[] = [
  (f) => fc.tuple(fieldName, wrongType).map(([k, v]) => set(f, k, v)),
  (f) => fieldName.map((k) => Object.fromEntries(Object.entries(f).filter(([key]) => key !== k))),
  (f) =>
    fc.tuple(fc.constantFrom('extra', 'body', 'Title', 'created', 'trust_level', '__proto__', 'constructor', 'toString', ''), fc.string()).map(([k, v]) => {
      const o: Record<string, unknown> = { ...f };
      Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true, writable: true });
      return o;
    }),
  (f) => fc.constantFrom('ecc.memory.v2', 'ECC.MEMORY.V1', ' ecc.memory.v1', '').map((v) => set(f, 'schema', v)),
  (f) => badId.map((v) => set(f, 'id', v)),
  (f) =>
    fc
      .tuple(fc.constantFrom('kind', 'scope', 'status', 'trust'), fc.constantFrom('', 'Note', 'notes', 'reviewed', 'trusted', 'global', 'deleted', 'note '))
      .map(([k, v]) => set(f, k, v)),
  (f) => badSlug.map((v) => set(f, 'source_harness', v)),
  // titles: lengths in UTF-16 code units, not code points
  (f) =>
    fc
      .constantFrom(
        'x'.repeat(200),
        'x'.repeat(201),
        '😀'.repeat(100),
        '😀'.repeat(101),
        '😀'.repeat(150),
        `${'x'.repeat(199)}😀`,
        `${'x'.repeat(198)}😀`,
        '中'.repeat(200),
        '中'.repeat(201),
        '',
        ' ',
        'a'.repeat(10_000),
      )
      .map((v) => set(f, 'title', v)),
  // titles: an edge character at the start, in the middle, or at the end
  (f) =>
    fc
      .tuple(edgeChar, fc.constantFrom('start', 'middle', 'end', 'alone'))
      .map(([c, where]) => set(f, 'title', where === 'start' ? `${c}title` : where === 'end' ? `title${c}` : where === 'alone' ? c : `ti${c}tle`)),
  (f) => fc.tuple(edgeChar, fc.constantFrom('tags', 'target_harnesses')).map(([c, k]) => set(f, k, [`a${c}`])),
  // lists: bad items, duplicates, counts around the limits
  (f) => fc.tuple(fc.constantFrom('tags', 'target_harnesses'), badSlug).map(([k, v]) => set(f, k, [v])),
  (f) => badId.map((v) => set(f, 'links', [v])),
  (f) =>
    fc.tuple(fc.constantFrom('tags', 'target_harnesses', 'links'), fc.integer({ min: 0, max: 3 })).map(([k, extra]) => {
      const list = f[k] as string[];
      const item = k === 'links' ? 'mem_dup' : 'dup';
      return set(f, k, [...list.slice(0, extra), item, item]);
    }),
  (f) =>
    fc.tuple(fc.constantFrom('tags', 'target_harnesses'), fc.integer({ min: 30, max: 34 })).map(([k, n]) =>
      set(
        f,
        k,
        Array.from({ length: n }, (_, i) => `s${i}`),
      ),
    ),
  (f) =>
    fc.integer({ min: 62, max: 66 }).map((n) =>
      set(
        f,
        'links',
        Array.from({ length: n }, (_, i) => `mem_link${i}`),
      ),
    ),
  (f) => fc.constant(set(f, 'target_harnesses', [])),
  (f) => fc.tuple(fc.constantFrom('tags', 'links', 'target_harnesses'), wrongType).map(([k, v]) => set(f, k, [v])),
  (f) => fc.tuple(fc.constantFrom('created_at', 'updated_at'), fc.oneof(badTimestamp, goodTimestamp)).map(([k, v]) => set(f, k, v)),
];

const mutated = validFrontmatter.chain((f) =>
  fc.integer({ min: 0, max: mutations.length - 1 }).chain((i) => mutations[i]!(f as unknown as Record<string, unknown>)),
);

describe('schema ↔ code agreement', () => {
  it('both accept every valid frontmatter object', () => {
    fc.assert(
      fc.property(validFrontmatter, (f) => {
        expect(schemaAccepts(f).ok).toBe(true);
        expect(handAccepts(f)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('both accept and reject the same mutations of valid objects', () => {
    fc.assert(
      fc.property(mutated, (f) => agree(f)),
      { numRuns: 3000 },
    );
  });

  it('both agree on arbitrary values and arbitrary objects', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => agree(v)),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(validFrontmatter, fc.dictionary(fc.constantFrom(...FIELD_ORDER), fc.anything()), (f, patch) => agree({ ...f, ...patch })),
      { numRuns: 500 },
    );
  });

  it('agrees on the hand-picked edges', () => {
    const base: Frontmatter = {
      schema: 'ecc.memory.v1',
      id: 'mem_abc',
      title: 'T',
      kind: 'note',
      scope: 'team',
      trust: 'unreviewed',
      status: 'active',
      source_harness: 'claude',
      target_harnesses: ['all'],
      tags: [],
      links: [],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const cases: Array<[Partial<Record<string, unknown>>, boolean]> = [
      [{}, true],
      [{ title: 'x'.repeat(200) }, true],
      [{ title: 'x'.repeat(201) }, false],
      [{ title: '😀'.repeat(100) }, true], // 200 UTF-16 code units
      [{ title: '😀'.repeat(101) }, false], // 101 code points, 202 code units
      [{ title: '😀'.repeat(150) }, false], // 150 code points, 300 code units: counting code points would accept
      [{ title: ' T' }, false],
      [{ title: 'T\u3000' }, false],
      [{ title: '\ufeffT' }, false],
      [{ title: 'T\u00a0' }, false],
      [{ title: 'a\u200eb' }, true],
      [{ title: 'a\u061cb' }, true],
      [{ title: 'a\u202eb' }, false],
      [{ title: 'a\u2069b' }, false],
      [{ title: 'a\u0085b' }, false],
      [{ title: 'a\u007fb' }, false],
      [{ title: 'a\ud800b' }, false],
      [{ title: 'a\udc00' }, false],
      [{ title: '\ud83d\ude00' }, true],
      [{ tags: ['a'.repeat(64)] }, true],
      [{ tags: ['a'.repeat(65)] }, false],
      [{ tags: Array.from({ length: 32 }, (_, i) => `t${i}`) }, true],
      [{ tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, false],
      [{ links: Array.from({ length: 64 }, (_, i) => `mem_l${i}x`) }, true],
      [{ links: Array.from({ length: 65 }, (_, i) => `mem_l${i}x`) }, false],
      [{ target_harnesses: [] }, false],
      [{ target_harnesses: ['all', 'all'] }, false],
      [{ id: `mem_${'a'.repeat(128)}` }, true],
      [{ id: `mem_${'a'.repeat(129)}` }, false],
      [{ id: 'mem_abc' }, true],
      [{ id: 'mem_ab' }, false],
      [{ created_at: '2024-02-29T00:00:00.000Z' }, true],
      [{ created_at: '2025-02-29T00:00:00.000Z' }, false],
      [{ created_at: '2026-02-30T00:00:00.000Z' }, false],
      [{ created_at: '1900-02-29T00:00:00.000Z' }, false],
      [{ created_at: '2000-02-29T00:00:00.000Z' }, true],
      [{ created_at: '2026-01-01T24:00:00.000Z' }, false],
      [{ updated_at: '2026-08-01T10:15' }, false],
      [{ trust: 'reviewed' }, false],
    ];
    for (const [patch, expected] of cases) {
      const data = { ...base, ...patch };
      expect({ patch, schema: schemaAccepts(data).ok }).toEqual({ patch, schema: expected });
      expect({ patch, hand: handAccepts(data) }).toEqual({ patch, hand: expected });
    }
  });

  it('slugs and ids from the grammars are accepted by both', () => {
    fc.assert(
      fc.property(slug, memoryId, (s, id) => {
        expect(handAccepts({ ...validSample(), source_harness: s, id })).toBe(true);
        expect(schemaAccepts({ ...validSample(), source_harness: s, id }).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

function validSample(): Frontmatter {
  return fc.sample(validFrontmatter, { numRuns: 1, seed: 1 })[0]!;
}

describe('the schema file and its generated validator', () => {
  it('the committed validator equals a fresh generation from schemas/memory.schema.json', async () => {
    // @ts-expect-error -- a plain .mjs script without type declarations
    const { generateValidatorSource } = (await import('../../scripts/gen-schema-validator.mjs')) as { generateValidatorSource: () => string };
    const committed = readFileSync(join(REPO, 'src/schema/memory-validator.generated.ts'), 'utf8');
    expect(committed, 'run: node scripts/gen-schema-validator.mjs').toBe(generateValidatorSource());
  });

  it('compiles with ajv in strict mode (with the default and with UTF-16 lengths)', () => {
    const schema = JSON.parse(readFileSync(join(REPO, 'schemas/memory.schema.json'), 'utf8'));
    expect(() => new Ajv({ strict: true, allErrors: true }).compile(schema)).not.toThrow();
    const warn = console.warn;
    console.warn = () => {};
    try {
      expect(() => new Ajv({ strict: true, unicode: false }).compile(schema)).not.toThrow();
    } finally {
      console.warn = warn;
    }
  });

  it('names exactly the contract fields, all required, no others', () => {
    const schema = JSON.parse(readFileSync(join(REPO, 'schemas/memory.schema.json'), 'utf8'));
    expect(schema.required).toEqual([...FIELD_ORDER]);
    expect(Object.keys(schema.properties)).toEqual([...FIELD_ORDER]);
    expect(schema.additionalProperties).toBe(false);
  });
});
