/**
 * A process that searches many times (the index server) keeps the memories it parsed with the
 * bytes they came from (search-memories.ts: parsedOf): a file rewritten in place is parsed again,
 * never answered from the old parse, whatever its size.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../../src/document/serialize.js';
import { nodeRuntime } from '../../../src/io/runtime.js';
import { searchMemories } from '../../../src/search/query/search-memories.js';
import { resolveRoots } from '../../../src/store/roots.js';
import { cliEnv, gitRepo } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';

describe('parsed memories kept between searches of one process', () => {
  it('answer a rewritten file from its new bytes (same size or not)', async () => {
    const repo = gitRepo();
    const m = memory({ kind: 'decision', title: 'Queue retention alpha', body: 'Messages are kept seven days.' });
    putMemories(repo, m);
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: cliEnv() }));
    const title = async () => (await searchMemories(roots, 'queue retention', { fresh: true })).results.map((h) => h.title);
    expect(await title()).toEqual(['Queue retention alpha']);
    expect(await title()).toEqual(['Queue retention alpha']); // kept: the same answer
    writeFileSync(memoryPath(repo, m), serializeMemory({ ...m, title: 'Queue retention bravo' })); // same size
    expect(await title()).toEqual(['Queue retention bravo']);
    writeFileSync(memoryPath(repo, m), serializeMemory({ ...m, title: 'Queue retention of the billing queue', tags: ['billing'] }));
    const hits = (await searchMemories(roots, 'queue retention', { fresh: true })).results;
    expect(hits.map((h) => [h.title, h.tags])).toEqual([['Queue retention of the billing queue', ['billing']]]);
    hits[0]!.tags.push('mutated'); // a caller's change to a hit never reaches the kept memory
    expect((await searchMemories(roots, 'queue retention', { fresh: true })).results[0]!.tags).toEqual(['billing']);
  });
});
