/**
 * CI runs `vault doctor --strict` on this repository's own vault (.ecc/memory): the team memories
 * written about this project with the tool must stay clean. (No search index exists in CI, so the
 * index check is skipped; in a fresh clone the project scope holds only its .gitignore.)
 */
import { describe, expect, it } from 'vitest';
import { cliEnv, REPO, runCli } from '../helpers/cli.js';

describe("this repository's own vault", () => {
  it('passes vault doctor --strict', async () => {
    const r = await runCli(['doctor', '--strict', '--no-index-check'], { cwd: REPO, env: cliEnv() });
    expect(r.stdout + r.stderr).toMatch(/^no problems \(\d+ memory files? checked, \d+ valid\)\n$/);
    expect(r.code).toBe(0);
  });
});
