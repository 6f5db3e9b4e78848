/**
 * docs/team-workflow.md's "Retire" example is true as written: the replacement it saves makes
 * `vault doctor` warn that the old memory is probably superseded, and the `vault retire` line
 * after it ends the warning. The commands run through sh with `vault` on PATH (the real binary).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, cliEnv, gitRepo, tempDir } from '../helpers/cli.js';

const PAGE = readFileSync(join(REPO, 'docs', 'team-workflow.md'), 'utf8');
const OLD = 'mem_20260725_01kolder';
const NEW_IN_PAGE = 'mem_20260901_0123456789abcdef0123';

/** The commands of the page's "## Retire" sh block, continuation lines joined, comments dropped. */
function retireCommands(): string[] {
  const section = PAGE.slice(PAGE.indexOf('## Retire'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));
}

describe('docs/team-workflow.md: retire', () => {
  it('the example replacement triggers probably-superseded, and the retire line clears it', () => {
    const repo = gitRepo();
    const bin = tempDir();
    writeFileSync(join(bin, 'vault'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'vault'), 0o755);
    const env = { ...cliEnv(), PATH: `${bin}:${process.env.PATH}` };
    const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { cwd: repo, env, encoding: 'utf8' });
    const warnings = () =>
      (JSON.parse(sh('vault doctor --json').stdout) as { problems: Array<{ code: string; path: string }> }).problems.filter(
        (d) => d.code === 'probably-superseded',
      );
    expect(sh('vault init').status).toBe(0);
    const old = sh(`vault save --scope team --kind decision --title "Store sessions in Redis" --body "One Redis instance holds the sessions." --id ${OLD}`);
    expect(old.status, old.stderr).toBe(0);
    spawnSync('sleep', ['0.01']);
    const [save, retire] = retireCommands();
    expect(save).toMatch(/^vault save .*--link mem_20260725_01kolder/);
    const saved = sh(`${save} --json`);
    expect(saved.status, saved.stderr).toBe(0);
    const newId = (JSON.parse(saved.stdout) as { id: string }).id;
    expect(warnings().map((d) => d.path)).toEqual([`team/decisions/${OLD}.md`]);
    expect(retire).toMatch(/^vault retire mem_20260725_01kolder --superseded-by /);
    const retired = sh(retire!.replace(NEW_IN_PAGE, newId));
    expect(retired.status, retired.stderr).toBe(0);
    expect(warnings()).toEqual([]);
  });
});
