// diffFiles merges three lists in walk order instead of building a table of every path; here it
// must agree with the plain table-based answer for random generations, overlays and file listings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GenerationDocs, compareWalkOrder, toColumns } from '../../../src/search/index/generation-docs.js';
import type { StatFile } from '../../../src/search/index/index-build.js';
import type { DocRecord, InvalidRecord, OverlayEntry } from '../../../src/search/index/index-format.js';
import { diffFiles } from '../../../src/search/index/index-freshness.js';

const name = fc.constantFrom('a', 'b', 'a.md', 'b-c.md', 'Z.md', 'é.md', 'a-b', 'x_1.md');
const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((segs) => ['notes', ...segs].join('/'));
const fingerprint = fc.record({ size: fc.integer({ min: 1, max: 3 }), mtime: fc.integer({ min: 1, max: 3 }) });

function doc(p: string, fp: { size: number; mtime: number }): DocRecord {
  return {
    scope: 'team',
    path: p,
    id: 'mem_x',
    kind: 'note',
    status: 'active',
    tags: [],
    targets: [],
    source: 'test',
    links: [],
    updated: 0,
    len: [0, 0, 0, 0, 0],
    ...fp,
  };
}
function invalid(p: string, fp: { size: number; mtime: number }): InvalidRecord {
  return { path: p, code: 'unreadable', severity: 'error', message: 'x', hint: 'h', ...fp };
}

describe('diffFiles', () => {
  it('agrees with a table of every path', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(path, fingerprint, fc.boolean()), { selector: ([p]) => p, maxLength: 12 }),
        fc.uniqueArray(fc.tuple(path, fc.constantFrom('doc', 'invalid', 'deleted'), fingerprint), { selector: ([p]) => p, maxLength: 5 }),
        fc.uniqueArray(fc.tuple(path, fingerprint), { selector: ([p]) => p, maxLength: 12 }),
        (gen, over, listed) => {
          const sorted = [...gen].sort(([a], [b]) => compareWalkOrder(a, b));
          const docs = sorted.filter(([, , isDoc]) => isDoc).map(([p, fp]) => doc(p, fp));
          const bad = sorted.filter(([, , isDoc]) => !isDoc).map(([p, fp]) => invalid(p, fp));
          const base = new GenerationDocs('team', 'g', toColumns(docs, bad), [], 0);
          const overlay: Record<string, OverlayEntry> = {};
          for (const [p, what, fp] of over)
            overlay[p] =
              what === 'deleted' ? { deleted: true } : what === 'doc' ? { doc: { ...doc(p, fp), terms: Buffer.alloc(0) } } : { invalid: invalid(p, fp) };
          const files: StatFile[] = [...listed]
            .sort(([a], [b]) => compareWalkOrder(a, b))
            .map(([p, fp]) => ({
              file: { scope: 'team', path: `team/${p}`, absPath: `/v/team/${p}`, segments: p.split('/') },
              rel: p,
              size: fp.size,
              mtime: fp.mtime,
            }));

          // the plain answer
          const table = new Map<string, { size: number; mtime: number }>();
          for (const d of [...docs, ...bad]) table.set(d.path, d);
          const current = (p: string) => {
            const e = overlay[p];
            if (e) return 'doc' in e ? e.doc : 'invalid' in e ? e.invalid : undefined;
            return table.get(p);
          };
          const expectChanged = files.filter((f) => {
            const c = current(f.rel);
            return !(c && c.size === f.size && c.mtime === f.mtime);
          });
          const listedPaths = new Set(files.map((f) => f.rel));
          const indexed = new Set([...table.keys(), ...Object.keys(overlay)].filter((p) => current(p) !== undefined || (table.has(p) && !(p in overlay))));
          const expectRemoved = [...indexed].filter((p) => !listedPaths.has(p));

          const got = diffFiles(base, overlay, files);
          expect(got.changed.map((f) => f.rel)).toEqual(expectChanged.map((f) => f.rel));
          expect(got.known).toEqual(expectChanged.map((f) => current(f.rel) !== undefined));
          expect([...got.removed].sort()).toEqual(expectRemoved.sort());
          for (const d of [...docs, ...bad]) expect(got.inBase.has(d.path)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('compareWalkOrder', () => {
  /** The walk's order as its definition says: folder by folder, names in code-unit order, a path that is a prefix first. */
  const bySegments = (a: string, b: string): number => {
    const as = a.split('/');
    const bs = b.split('/');
    for (let i = 0; i < Math.min(as.length, bs.length); i++) if (as[i] !== bs[i]) return as[i]! < bs[i]! ? -1 : 1;
    return as.length - bs.length;
  };
  it('has the sign of comparing the split names, for any paths (names with characters below and above "/")', () => {
    const unit = fc.constantFrom('/', '.', '-', '0', 'a', 'A', '_', '~', 'é', '\u{1f600}', ' ', '\u0000');
    const anyPath = fc.array(unit, { maxLength: 8 }).map((u) => u.join(''));
    fc.assert(
      fc.property(anyPath, anyPath, (a, b) => {
        expect(Math.sign(compareWalkOrder(a, b))).toBe(Math.sign(bySegments(a, b)));
      }),
      { numRuns: 5000 },
    );
  });
});
