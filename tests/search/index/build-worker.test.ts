/**
 * A full build of at least PARALLEL_MIN_FILES files shares chunks of them with a real worker
 * thread (the compiled build, dist/: build-worker.js runs only from there): its documents table
 * and bucket files must be byte for byte those of the same build read in one thread (the
 * TypeScript sources here, which start no worker), invalid files included.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../../src/io/runtime.js';
import * as oneThread from '../../../src/search/index/index-build.js';
import { BUCKET_COUNT } from '../../../src/search/index/index-format.js';
import { listScopeFiles } from '../../../src/search/index/index-freshness.js';
import { resolveRoots } from '../../../src/store/roots.js';
import { REPO, gitRepo } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';

const WORDS = ['kettle', 'teapot', 'samovar', 'deploy', 'rollback', 'schema', 'migration', 'cache', '会话', 'café', 'v2.1', 'src/a.ts', '42', '007'];

describe('a large build with its worker thread', () => {
  it.skipIf(availableParallelism() < 2)('writes the documents table and buckets of a build in one thread', { timeout: 120_000 }, async () => {
    const withWorker = (await import(join(REPO, 'dist', 'search', 'index', 'index-build.js'))) as typeof oneThread;
    const n = oneThread.PARALLEL_MIN_FILES + 300;
    const repo = gitRepo();
    const ms = Array.from({ length: n }, (_, i) =>
      memory({
        scope: 'team',
        kind: i % 3 === 0 ? 'decision' : 'note',
        title: `Note ${i} about ${WORDS[i % WORDS.length]}`,
        tags: i % 5 === 0 ? ['ops'] : [],
        body: Array.from({ length: 20 + (i % 13) }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' '),
      }),
    );
    putMemories(repo, ...ms);
    // invalid files spread over the chunks: remembered as diagnostics, in walk order
    for (let i = 17; i < n; i += 611) writeFileSync(memoryPath(repo, ms[i]!), 'no frontmatter here\n');
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: { HOME: join(repo, 'home') }, home: join(repo, 'home') }));
    const { files } = listScopeFiles(roots, 'team');
    expect(files.length).toBe(n);
    const progress: number[] = [];
    const parallel = withWorker.buildGeneration(
      roots,
      'team',
      files,
      () => 0,
      (done) => progress.push(done),
    );
    const single = oneThread.buildGeneration(roots, 'team', files, () => 0);
    expect(parallel.invalid.length).toBeGreaterThan(0);
    expect(parallel.invalid).toEqual(single.invalid);
    expect(parallel.table.count).toBe(single.table.count);
    const sizes = new Array<number>(BUCKET_COUNT).fill(0);
    for (let b = 0; b < BUCKET_COUNT; b++) expect(parallel.bucket(b).equals(single.bucket(b))).toBe(true);
    expect(parallel.table.encode('team', 'g1', sizes, parallel.invalid).equals(single.table.encode('team', 'g1', sizes, single.invalid))).toBe(true);
    expect(progress.at(-1)).toBe(n);
  });
});
