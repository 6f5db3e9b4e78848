/**
 * A save puts its one new file straight into the index overlay (no second walk of its folder)
 * while the overlay is below the compaction threshold of the generation it opened (256 + 1 per 50
 * memories, the point where the next search rebuilds); beyond it the save leaves the file to the
 * next search.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../../src/document/serialize.js';
import { nodeRuntime } from '../../../src/io/runtime.js';
import { addWrittenFile } from '../../../src/search/index/index-overlay.js';
import { openIndexes } from '../../../src/search/query/search-memories.js';
import { resolveRoots } from '../../../src/store/roots.js';
import { gitRepo } from '../../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../../helpers/search.js';
import { editStateLine, STATE_FILE, stateLine } from '../../helpers/state-file.js';

describe('a save added to the overlay directly', () => {
  it('up to the compaction threshold of the opened generation, not a fixed 256', () => {
    const repo = gitRepo();
    const home = join(repo, 'home');
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: { HOME: home, ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory') }, home }));
    const ms = Array.from({ length: 500 }, (_, i) => memory({ kind: 'note', title: `Note ${i}`, body: `body ${i}` }));
    putMemories(repo, ...ms);
    const statePath = join(repo, '.git', 'ecc-memory-index', 'team', STATE_FILE);
    const attempt = (planted: number) => {
      // the generation of 500 memories, opened in this process as a save's similar check does
      openIndexes(roots, ['team'], true);
      editStateLine(statePath, (state) => {
        for (let i = 0; i < planted; i++) state.overlay[`notes/gone-${i}.md`] = { deleted: true };
      });
      const m = memory({ kind: 'note', title: `New ${planted}`, body: 'new' });
      writeFileSync(memoryPath(repo, m), serializeMemory(m));
      const added = addWrittenFile(roots, 'team', `notes/${m.id}.md`);
      const after = stateLine(statePath) as { overlay: Record<string, unknown> };
      return { added, inOverlay: `notes/${m.id}.md` in after.overlay };
    };
    // threshold at 500 memories: 256 + 10 = 266
    expect(attempt(260)).toEqual({ added: true, inOverlay: true });
    expect(attempt(266)).toEqual({ added: false, inOverlay: false });
  });
});
