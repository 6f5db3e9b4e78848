/**
 * The index server's engine after a watcher named the changed memory files (markFileChanged):
 * the scope is opened again with the folder check plus those files' own check, not a walk of the
 * whole scope, and still answers as a fresh rebuild: a write in place, a new file, a removed one.
 */
import { readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { ResidentEngine } from '../../src/search/resident/resident-engine.js';
import { resolveRoots } from '../../src/store/roots.js';
import { gitRepo } from '../helpers/cli.js';
import { memory, memoryPath, putMemories } from '../helpers/search.js';

describe('ResidentEngine.markFileChanged', () => {
  it('sees a write in place, a new file and a removed one through the folder check plus the named files', async () => {
    const repo = gitRepo();
    const a = memory({ scope: 'team', title: 'Alpha note', body: 'About kettles.' });
    const b = memory({ scope: 'team', title: 'Beta note', body: 'About teapots.' });
    putMemories(repo, a, b);
    const notes = join(repo, '.ecc', 'memory', 'team', 'notes');
    const old = new Date(Date.now() - 3600_000);
    utimesSync(notes, old, old);
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: { HOME: join(repo, 'home') }, home: join(repo, 'home') }));
    const engine = new ResidentEngine(roots);
    const ids = async (q: string) => (await engine.search(q, { scopes: ['team'] })).results.map((r) => r.id).sort();
    expect(await ids('kettles')).toEqual([a.id]);

    // in place: the folder does not change, only the named file tells
    const pa = memoryPath(repo, a);
    writeFileSync(pa, readFileSync(pa, 'utf8').replace('About kettles.', 'About samovars.'));
    engine.markFileChanged('team', `team/notes/${a.id}.md`);
    const d = engine.refresh(['team']);
    expect(d.index[0]).toMatchObject({ action: 'refreshed', changed: 1, added: 0, removed: 0 });
    expect(await ids('samovars')).toEqual([a.id]);
    expect(await ids('kettles')).toEqual([]);

    // a new file and a removed one
    const c = memory({ scope: 'team', title: 'Gamma note', body: 'About samovars too.' });
    writeFileSync(memoryPath(repo, c), serializeMemory(c));
    unlinkSync(memoryPath(repo, b));
    engine.markFileChanged('team', `team/notes/${c.id}.md`);
    engine.markFileChanged('team', `team/notes/${b.id}.md`);
    expect(engine.pending()).toEqual(['team']);
    expect(await ids('samovars')).toEqual([a.id, c.id].sort());
    expect(await ids('teapots')).toEqual([]);
  });

  it('a scope never opened, or marked changed, is checked in full', () => {
    const repo = gitRepo();
    putMemories(repo, memory({ scope: 'team' }));
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: { HOME: join(repo, 'home') }, home: join(repo, 'home') }));
    const engine = new ResidentEngine(roots);
    engine.markFileChanged('team', 'team/notes/x.md');
    expect(engine.pending()).toEqual(['team']);
    engine.markChanged(['team']);
    engine.markFileChanged('team', 'team/notes/x.md');
    expect(engine.pending()).toEqual(['team']);
  });
});
