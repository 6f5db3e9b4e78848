/**
 * vitest globalSetup: every temp folder of the run sits in one fresh folder made here, so a test
 * never meets another run's leftovers and the run leaves nothing behind. TMPDIR is set before
 * the workers start, so os.tmpdir() in the workers and in every CLI subprocess they spawn (cliEnv
 * copies the environment) answers this folder. It is removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'vault-tests-'));
  process.env.TMPDIR = dir;
  process.env.VAULT_TEST_TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
