/**
 * The first search over a large vault builds the index from every file: after a second (here
 * ECC_PROGRESS_DELAY_MS=0, so the test needs no clock) it draws `indexing <scope> [...] n/total
 * files` on stderr, and only when stderr is a terminal. A fresh index draws nothing.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

const FILES = 1200;

function bigVault(): string {
  const repo = gitRepo();
  const dir = join(repo, '.ecc/memory/team/notes');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const id = `mem_20260725_${String(i).padStart(20, '0')}`;
    writeFileSync(
      join(dir, `${id}.md`),
      `---\nschema: "ecc.memory.v1"\nid: "${id}"\ntitle: "note ${i}"\nkind: "note"\nscope: "team"\ntrust: "unreviewed"\nstatus: "active"\nsource_harness: "claude"\ntarget_harnesses: ["all"]\ntags: []\nlinks: []\ncreated_at: "2026-07-25T09:30:00.000Z"\nupdated_at: "2026-07-25T09:30:00.000Z"\n---\n\nbody ${i} redis\n`,
    );
    // older than the index's racy window, as the files of a real vault are: the next check trusts them
    utimesSync(join(dir, `${id}.md`), new Date('2026-07-25T09:30:00Z'), new Date('2026-07-25T09:30:00Z'));
  }
  return repo;
}

describe('search: index-build progress on a terminal', () => {
  it('draws the progress on stderr when it is a terminal, then nothing once the index is fresh', async () => {
    const repo = bigVault();
    const env = cliEnv({ ECC_PROGRESS_DELAY_MS: '0' });
    const first = await runCli(['search', 'redis', '--json'], { cwd: repo, env, stderrTty: true });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).total).toBe(FILES); // stdout stays clean JSON
    expect(first.stderr).toMatch(/indexing team \[[^\]]*\] \d+\/1200 files/);
    const again = await runCli(['search', 'redis'], { cwd: repo, env, stderrTty: true });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('draws nothing when stderr is not a terminal (a pipe, a log, CI)', async () => {
    const repo = bigVault();
    const r = await runCli(['search', 'redis'], { cwd: repo, env: cliEnv({ ECC_PROGRESS_DELAY_MS: '0' }) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('draws nothing for a build shorter than the delay (default one second)', async () => {
    const repo = gitRepo({ '.ecc/memory/team/notes/.keep': '' });
    const r = await runCli(['search', 'redis'], { cwd: repo, env: cliEnv(), stderrTty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
