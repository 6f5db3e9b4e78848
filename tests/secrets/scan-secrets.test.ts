/**
 * Secret detection: every built-in credential shape is found, named and redacted; look-alikes are
 * not; findings name the field, never the value; errors that quote a value redact it.
 */
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { quoteValue, validateFrontmatter } from '../../src/document/validate.js';
import { findSecretShapes, redactSecretShapes, scanDocumentForSecrets } from '../../src/secrets/scan-secrets.js';
import { assertMemoryId } from '../../src/store/ids.js';

/** Built at run time so this file does not itself look like a leak. */
const SHAPES: Array<[string, string]> = [
  ['provider API key', ['sk', 'ant', 'api03', 'Q9w8E7r6T5y4U3i2O1p0'].join('-')],
  ['provider API key', ['SK', 'Q9w8E7r6T5y4U3i2O1p0'].join('-')],
  ['Stripe key', ['rk', 'live', 'a1B2c3D4e5F6g7H8i9J0'].join('_')],
  ['npm token', `npm_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa'}`],
  ['Hugging Face token', `hf_${'QwErTyUiOpAsDfGhJkLzXcVbNm1234'}`],
  ['GitHub token', `gho_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`],
  ['GitHub token', `github_pat_${'11ABCDEFG0abcdefghij_KLMNOPQRSTuvwxyz'}`],
  ['Google API key', `AIza${'SyD4x-9Qw_ErTyUiOpAsDfGhJkLzXcVbNm1'}`],
  ['Slack token', ['xoxp', '2048123456', 'AbCdEfGhIj'].join('-')],
  ['AWS access key', `ASIA${'Z3Q7W2X9R4T6Y8U1'}`],
  ['private key', ['-----BEGIN OPENSSH PRIVATE', 'KEY-----'].join(' ')],
  ['private key', ['-----BEGIN PRIVATE', 'KEY-----'].join(' ')],
];

describe('built-in credential shapes', () => {
  it.each(SHAPES)('finds and redacts a %s', (label, value) => {
    expect(findSecretShapes(`before ${value} after`)).toContain(label);
    const red = redactSecretShapes(`before ${value} after`);
    expect(red.redacted).toBeGreaterThan(0);
    expect(red.text).toContain(`[REDACTED ${label}]`);
    expect(red.text).not.toContain(value.slice(8, 20));
  });

  it('does not flag look-alikes', () => {
    for (const text of [
      'task-aaaaaaaaaaaaaaaaaaaaaaaa',
      'sk-short',
      'risk-assessment-document-v2',
      'the npm_token variable',
      'AKIA-not-a-key',
      'hf_small',
      'ghp_ too short',
      'BEGIN PUBLIC KEY',
      'desk-lamp-0123456789abcdefgh'.replace('desk-', 'desk'),
    ]) {
      expect(findSecretShapes(text), text).toEqual([]);
    }
  });
});

describe('scanDocumentForSecrets', () => {
  const memory = {
    schema: 'ecc.memory.v1' as const,
    id: 'mem_abc',
    title: 'Deploy notes',
    kind: 'note' as const,
    scope: 'team' as const,
    trust: 'unreviewed' as const,
    status: 'active' as const,
    sourceHarness: 'claude',
    targetHarnesses: ['all'],
    tags: ['deploy'],
    links: [],
    createdAt: '2026-07-26T20:00:00.000Z',
    updatedAt: '2026-07-26T20:00:00.000Z',
    body: 'clean body',
  };

  it('returns nothing for a clean memory', async () => {
    expect(await scanDocumentForSecrets(serializeMemory(memory))).toEqual([]);
  });

  it('names the field (title, tags, body) and line, never the value', async () => {
    const gh = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
    const provider = `sk-${'abcdefghijklmnopqrstuvwx'}`;
    const text = serializeMemory({ ...memory, title: `token ${gh}`, tags: [provider], body: `line one\nkey: ${gh}` });
    const findings = await scanDocumentForSecrets(text);
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: 'GitHub token', field: 'title', line: 4 }),
        expect.objectContaining({ label: 'provider API key', field: 'tags', line: 11 }),
        expect.objectContaining({ label: 'GitHub token', field: 'body', line: 18 }),
      ]),
    );
    expect(JSON.stringify(findings)).not.toContain(gh);
    expect(JSON.stringify(findings)).not.toContain(provider);
  });

  it('also runs secretlint (a credential shape the built-in list does not know)', async () => {
    const url = ['https://deploy', 'Sup3rS3cretPassw0rd@db.example.com/prod'].join(':');
    const findings = await scanDocumentForSecrets(serializeMemory({ ...memory, body: `connect to ${url}` }));
    expect(findings.some((f) => f.source !== 'pattern' && f.field === 'body')).toBe(true);
    expect(JSON.stringify(findings)).not.toContain('Sup3rS3cretPassw0rd');
  });
});

describe('errors never echo a secret', () => {
  const gh = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
  it('quoteValue redacts before cutting', () => {
    expect(quoteValue(`x ${gh}`, 10)).not.toContain('A1b2');
    expect(quoteValue('plain', 3)).toBe('"pla"');
  });

  it('in id, slug, enum, timestamp and unknown-key errors', () => {
    const base = {
      schema: 'ecc.memory.v1',
      id: 'mem_abc',
      title: 't',
      kind: 'note',
      scope: 'team',
      trust: 'unreviewed',
      status: 'active',
      source_harness: 'x',
      target_harnesses: ['all'],
      tags: [],
      links: [],
      created_at: '2026-07-26T20:00:00.000Z',
      updated_at: '2026-07-26T20:00:00.000Z',
    };
    const patches: Array<Record<string, unknown>> = [
      { id: gh },
      { source_harness: gh },
      { tags: [gh] },
      { links: [gh] },
      { kind: gh },
      { created_at: gh },
      { schema: gh },
      { [gh]: 'x' },
    ];
    for (const patch of patches) {
      let message = '';
      try {
        validateFrontmatter({ ...base, ...patch });
      } catch (err) {
        message = `${(err as Error).message} ${(err as { field?: string }).field ?? ''}`;
      }
      expect(message, JSON.stringify(Object.keys(patch))).not.toBe('');
      expect(message).not.toContain('A1b2C3d4');
    }
    expect(() => assertMemoryId(gh)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('A1b2C3d4') }));
  });
});
