/**
 * Model test of folder-level freshness: random sequences of changes to a real vault in a real git
 * repository (tests/helpers/freshness-model.ts), and after each step the search and read answers
 * compared with those of a fresh rebuild (a copy of the vault's files with no index).
 *
 * - On the files: identical for every change except an in-place write to a file the search did
 *   not return, which the folder check may see late: after one, the comparison is made with the
 *   full check (`fresh`), as docs/concepts.md promises.
 * - Through the index server (`vault watch`, run in this process): identical after every change,
 *   in-place writes included (the cookie round trip sees every change before the answer).
 */
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadResult } from '../../../src/operations/read.js';
import { askServer, replyResult, searchThroughServer } from '../../../src/search/resident/resident-client.js';
import { runIndexServer } from '../../../src/server/server-main.js';
import { answers, answersOf, applyStep, modelVault, oracle, readView, reads, type Step, step } from '../../helpers/freshness-model.js';

// found by the first test: every memory deleted and committed, so a checkout removes .ecc itself
const CHECKOUT_REMOVES_ECC: Step[] = [
  { t: 'delete', pick: 0 },
  { t: 'delete', pick: 0 },
  { t: 'checkout' },
  { t: 'inPlace', pick: 0, words: [0] },
  { t: 'checkout' },
  { t: 'create', words: [0], kind: 'note' },
];

describe('folder-level freshness (model test against a fresh rebuild)', () => {
  it('answers as a fresh rebuild after every change (in-place writes to unreturned files: after a full check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 9 }), async (steps) => {
        const v = modelVault();
        let lateInPlace = false;
        let n = 0;
        await answers(v.roots, false); // build the index
        for (const s of steps) {
          n++;
          if (await applyStep(v, s, n)) lateInPlace = true;
          const want = await oracle(v.repo, [...v.ids]);
          const quick = await answers(v.roots, false);
          if (!lateInPlace) expect(quick, `after step ${n} (${s.t})`).toEqual(want.search);
          else {
            expect(await answers(v.roots, true), `after step ${n} (${s.t}), --fresh`).toEqual(want.search);
            lateInPlace = false;
          }
          expect(reads(v.roots, [...v.ids]), `reads after step ${n} (${s.t})`).toEqual(want.read);
        }
        rmSync(v.repo, { recursive: true, force: true });
      }),
      {
        numRuns: 6,
        // found by this test: git checkout replaces a file under the same name in a changed folder
        examples: [
          [[{ t: 'inPlace', pick: 0, words: [0] }, { t: 'checkout' }, { t: 'save', words: [0] }, { t: 'checkout' }, { t: 'age' }]],
          [CHECKOUT_REMOVES_ECC],
        ],
      },
    );
  }, 120_000);

  it('answers through the index server as a fresh rebuild after every change, in-place writes included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 9 }), async (steps) => {
        const v = modelVault();
        const who = { uid: v.rt.uid, env: v.rt.env };
        const server = await runIndexServer(v.roots, { scopes: ['team'], debounceMs: 20, who, say: () => {} });
        let served = 0;
        const search = async (q: string) => {
          const r = await searchThroughServer(v.roots, q, { scopes: ['team'], limit: 50 }, who);
          if (!r) throw new Error('the server did not answer a search');
          served++;
          return r;
        };
        const read = async (id: string) => {
          const reply = await askServer(v.roots, { op: 'read', id, scopes: ['team'] }, who);
          if (!reply) throw new Error('the server did not answer a read');
          served++;
          return readView(id, () => replyResult(reply) as ReadResult);
        };
        try {
          let n = 0;
          for (const s of steps) {
            n++;
            await applyStep(v, s, n);
            const want = await oracle(v.repo, [...v.ids]);
            expect(await answersOf(search), `after step ${n} (${s.t})`).toEqual(want.search);
            const got = [];
            for (const id of v.ids) got.push(await read(id));
            expect(got, `reads after step ${n} (${s.t})`).toEqual(want.read);
          }
          expect(served).toBeGreaterThan(steps.length * 4);
        } finally {
          await server.stop();
          rmSync(v.repo, { recursive: true, force: true });
        }
      }),
      {
        numRuns: 8,
        examples: [
          // found by this test: git checkout removed an emptied folder and made it again; the watch on the old one saw nothing more
          [[{ t: 'rename', pick: 0, across: false }, { t: 'checkout' }, { t: 'damage', how: 'garbage' }, { t: 'create', words: [0], kind: 'note' }]],
          [[{ t: 'inPlace', pick: 0, words: [0] }, { t: 'checkout' }, { t: 'save', words: [0] }, { t: 'checkout' }, { t: 'age' }]],
          [[{ t: 'inPlace', pick: 1, words: [7, 2] }, { t: 'damage', how: 'docs' }, { t: 'inPlace', pick: 0, words: [8] }, { t: 'killedWriter' }]],
          [CHECKOUT_REMOVES_ECC],
        ],
      },
    );
  }, 120_000);
});
