import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { irregularBase } from '../../../src/search/analysis/english-lemmas.js';

describe('irregular verb forms (generated from english-verbs-irregular)', () => {
  it('the committed file is the one the package gives', async () => {
    const { generateIrregularFormsSource } = (await import('../../../scripts/gen-irregular-forms.mjs')) as { generateIrregularFormsSource: () => string };
    const committed = readFileSync(new URL('../../../src/search/analysis/irregular-forms.generated.ts', import.meta.url), 'utf8');
    expect(committed, 'run: node scripts/gen-irregular-forms.mjs').toBe(generateIrregularFormsSource());
  });

  it('maps every form of the package to its first base, and nothing else', async () => {
    const { irregularPairs } = (await import('../../../scripts/gen-irregular-forms.mjs')) as { irregularPairs: () => Array<[string, string]> };
    const pairs = irregularPairs();
    expect(pairs.length).toBeGreaterThan(500);
    for (const [form, base] of pairs) expect(irregularBase(form), form).toBe(base);
    expect(irregularBase('went')).toBe('go');
    expect(irregularBase('found')).toBe('find');
    expect(irregularBase('walked')).toBeUndefined();
    expect(irregularBase('go')).toBeUndefined();
  });
});
