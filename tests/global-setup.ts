/**
 * vitest globalSetup: every temp folder of the run sits in one fresh folder made here, so a test
 * never meets another run's leftovers and the run leaves nothing behind. TMPDIR is set before
 * the workers start, so os.tmpdir() in the workers and in every CLI subprocess they spawn (cliEnv
 * copies the environment) answers this folder. It is removed when the run ends.
 *
 * The machine's own git configuration (~/.gitconfig, /etc/gitconfig) is left out too: git run by
 * the tests, and by the CLI in-process (whose git calls inherit the worker's environment), must
 * answer the same on every machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = { TMPDIR: process.env.TMPDIR, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM };
  const dir = mkdtempSync(join(tmpdir(), 'vault-tests-'));
  process.env.TMPDIR = dir;
  process.env.VAULT_TEST_TMPDIR = dir;
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    delete process.env.VAULT_TEST_TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  };
}
