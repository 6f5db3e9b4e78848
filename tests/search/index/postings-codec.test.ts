/**
 * The bucket codec: postings of any size round-trip through encodeBucket and BucketReader
 * (varints of one to five bytes included), and damaged postings bytes make the reader throw
 * IndexUnusable and nothing else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIELDS, IndexUnusable } from '../../../src/search/index/index-format.js';
import { BucketReader, encodeBucket } from '../../../src/search/index/postings.js';

const F = FIELDS.length;

/** One term's postings as encodeBucket takes them (doc, field, frequency triples, documents increasing) and as the reader gives them back. */
const termPostings = fc
  .uniqueArray(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 3_000_000 })), { minLength: 1, maxLength: 40 })
  .chain((docs) =>
    fc.tuple(
      fc.constant([...docs].sort((a, b) => a - b)),
      fc.array(
        fc.tuple(
          fc.uniqueArray(fc.integer({ min: 0, max: F - 1 }), { minLength: 1, maxLength: F }),
          fc.array(fc.oneof(fc.integer({ min: 1, max: 127 }), fc.integer({ min: 128, max: 2 ** 31 - 1 })), { minLength: F, maxLength: F }),
        ),
        { minLength: docs.length, maxLength: docs.length },
      ),
    ),
  );

function flat([docs, fields]: [number[], Array<[number[], number[]]>]): number[] {
  const out: number[] = [];
  docs.forEach((d, i) => {
    const [fs, freqs] = fields[i]!;
    for (const f of [...fs].sort((a, b) => a - b)) out.push(d, f, freqs[f]!);
  });
  return out;
}

function expected([docs, fields]: [number[], Array<[number[], number[]]>]) {
  return Array.from({ length: F }, (_, f) => {
    const ds: number[] = [];
    const fr: number[] = [];
    docs.forEach((d, i) => {
      if (fields[i]![0].includes(f)) {
        ds.push(d);
        fr.push(fields[i]![1][f]!);
      }
    });
    return ds.length ? { docs: Int32Array.from(ds), freqs: Int32Array.from(fr) } : undefined;
  });
}

describe('bucket postings codec', () => {
  it('decodes what it encoded, for postings of any size', () => {
    fc.assert(
      fc.property(fc.array(termPostings, { minLength: 1, maxLength: 4 }), (terms) => {
        const bucket = encodeBucket(new Map(terms.map((t, i) => [`term${i}`, flat(t)])));
        const reader = new BucketReader(bucket, 3_000_001);
        terms.forEach((t, i) => {
          expect(reader.postings(i)).toEqual(expected(t));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('damaged postings bytes throw IndexUnusable, never another error', () => {
    fc.assert(
      fc.property(termPostings, fc.nat(), fc.integer({ min: 0, max: 255 }), (t, at, byte) => {
        const bucket = encodeBucket(new Map([['term', flat(t)]]));
        const h = bucket.readUInt32LE(0);
        const body = 4 + h;
        const damaged = Buffer.from(bucket);
        damaged[body + (at % (bucket.length - body))] = byte;
        try {
          new BucketReader(damaged, 3_000_001).postings(0);
        } catch (err) {
          expect(err).toBeInstanceOf(IndexUnusable);
        }
      }),
      { numRuns: 300 },
    );
  });
});
