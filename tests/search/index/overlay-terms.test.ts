/**
 * The encoded terms of an overlay document (the state file): the outer shape is checked on load, each
 * line where it is read. Through the CLI: planted-overlay-terms.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IndexUnusable,
  MAX_OVERLAY_TERMS,
  encodeOverlayTerms,
  isOverlayTerms,
  overlayHasTerm,
  overlayTermsStartingWith,
  overlayTermsText,
} from '../../../src/search/index/index-format.js';

const term = fc.stringMatching(/^[a-z0-9_.\u00e9\u6570]{1,12}$/);
const freqs = fc.array(fc.integer({ min: 0, max: 999_999 }), { minLength: 5, maxLength: 5 });

describe('overlay terms', () => {
  it('reads back, per prefix, exactly the terms encoded (in order, with their frequencies)', () => {
    fc.assert(
      fc.property(fc.dictionary(term, freqs, { minKeys: 1, maxKeys: 30 }), fc.stringMatching(/^[a-z0-9_.]{1,2}$/), (terms, prefix) => {
        const encoded = encodeOverlayTerms(terms);
        expect(isOverlayTerms(encoded)).toBe(true);
        const want = Object.entries(terms).filter(([t]) => t.startsWith(prefix));
        expect([...overlayTermsStartingWith(overlayTermsText(encoded), prefix)]).toEqual(want);
      }),
    );
  });

  it('refuses on load what is no encoding at all; a bad line or too many lines fail where they are read', () => {
    const bytes = (text: string) => Buffer.from(text, 'utf8');
    for (const v of [3, null, '\nwidget\t1,0,0,0,1', bytes(''), bytes('widget\t1,0,0,0,1'), bytes('\n'.repeat(MAX_OVERLAY_TERMS * 300))])
      expect(isOverlayTerms(v), String(v).slice(0, 20)).toBe(false);
    for (const text of [
      '\nwidget\t1,0,0,0',
      `\nwidget\t${'9'.repeat(30)},0,0,0,1`,
      '\nwidget\t1,0,0,0,1\nwi\tx',
      `\nw${'i'.repeat(70)}\t1,0,0,0,1`,
      '\nwid\u0000get\t1,0,0,0,1',
      '\nwidget\r\t1,0,0,0,1',
    ]) {
      const bad = bytes(text);
      expect(isOverlayTerms(bad)).toBe(true); // the outer shape holds
      expect(() => [...overlayTermsStartingWith(overlayTermsText(bad), 'wi')], text.slice(0, 30)).toThrow(IndexUnusable);
      expect([...overlayTermsStartingWith(overlayTermsText(bad), 'zz')]).toEqual([]); // lines of other prefixes are not read
    }
    let many = '';
    for (let i = 0; i <= MAX_OVERLAY_TERMS; i++) many += `\nwi${i}\t1,0,0,0,1`;
    expect(() => [...overlayTermsStartingWith(many, 'wi')]).toThrow(IndexUnusable);
  });

  it('reads terms back from bytes it did not encode itself (as read from the state file), in any script', () => {
    fc.assert(
      fc.property(fc.dictionary(term, freqs, { minKeys: 1, maxKeys: 30 }), fc.stringMatching(/^[a-z0-9_.\u00e9\u6570]{1,2}$/), (terms, prefix) => {
        // a copy: no text remembered from the encoding
        const read = Buffer.from(Uint8Array.prototype.slice.call(encodeOverlayTerms(terms)));
        const want = Object.entries(terms).filter(([t]) => t.startsWith(prefix));
        const text = overlayTermsText(read);
        expect([...overlayTermsStartingWith(text, prefix)]).toEqual(want);
        for (const t of Object.keys(terms)) expect(overlayHasTerm(text, t)).toBe(true);
        expect(overlayHasTerm(text, `${prefix}zz9`)).toBe(Object.hasOwn(terms, `${prefix}zz9`));
      }),
    );
  });
});
