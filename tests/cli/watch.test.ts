import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { BIN, cliEnv, gitRepo, runBin } from '../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../helpers/search.js';
import { indexStatus } from '../../src/search/index/index-status.js';
import { resolveRoots } from '../../src/store/roots.js';
import { nodeRuntime } from '../../src/io/runtime.js';

describe('vault watch', () => {
  it('keeps the index fresh while files change and prints one line per change', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const a = memory({ title: 'Watched', body: 'original words' });
    putMemories(repo, a);
    const child = spawn(process.execPath, [BIN, 'watch', '--scope', 'team', '--debounce', '100'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    const waitFor = async (re: RegExp, ms = 15_000) => {
      const until = Date.now() + ms;
      while (!re.test(out)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${re}; output:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor(/watching team/);
      const b = memory({ title: 'Added while watching', body: 'fresh words' });
      putMemories(repo, b);
      await waitFor(new RegExp(`added\\s+team/notes/${b.id}\\.md`));
      writeFileSync(memoryPath(repo, a), serializeMemory({ ...a, body: 'edited words' }));
      await waitFor(new RegExp(`changed\\s+team/notes/${a.id}\\.md`));
      rmSync(memoryPath(repo, b));
      await waitFor(new RegExp(`removed\\s+team/notes/${b.id}\\.md`));
      // the watcher refreshed the index: nothing is stale (read-only check), and search agrees
      const status = indexStatus(resolveRoots(nodeRuntime({ cwd: repo, env })), ['team']);
      expect(status).toMatchObject({ exists: true, stale: false, documents: 1 });
      const r = JSON.parse((await runBin(['search', 'edited', '--scope', 'team', '--json'], { cwd: repo, env })).stdout);
      expect(r.results.map((h: { id: string }) => h.id)).toEqual([a.id]);
      expect(
        out
          .trim()
          .split('\n')
          .filter((l) => /^(added|changed|removed)/.test(l)),
      ).toHaveLength(3);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
    }
  });
});
