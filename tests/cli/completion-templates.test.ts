/**
 * `vault completion bash|zsh|fish` and `vault templates [KIND]` as a user meets them: the bash
 * script is sourced into a real bash and asked to complete words; the zsh and fish scripts are
 * checked by their shells when those are installed, and against the registry's commands always.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/document/contract.js';
import { REPO, gitRepo, runCli, tempDir } from '../helpers/cli.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** The commands `vault --help` lists (the registry as the user sees it). */
async function helpCommands(cwd: string): Promise<string[]> {
  const r = await runCli(['--help'], { cwd });
  return [...r.stdout.matchAll(/^ {2}vault ([a-z-]+)/gm)].map((m) => m[1]!);
}

describe('vault completion', () => {
  it('bash: completes commands, flags, choices and positional words from the registry', async () => {
    const cwd = gitRepo();
    const r = await runCli(['completion', 'bash'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const script = join(tempDir(), 'vault.bash');
    writeFileSync(script, r.stdout);
    const complete = (line: string): string[] => {
      const words = line.split(' ');
      const arr = words.map((w) => `'${w}'`).join(' ');
      const out = spawnSync(
        'bash',
        ['--norc', '-c', `source '${script}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _vault_completion; printf '%s\\n' "\${COMPREPLY[@]}"`],
        {
          encoding: 'utf8',
        },
      );
      expect(out.status, out.stderr).toBe(0);
      return out.stdout.split('\n').filter(Boolean).sort();
    };
    expect(complete('vault ').sort()).toEqual((await helpCommands(cwd)).sort());
    expect(complete('vault se')).toEqual(['search', 'sessions']);
    expect(complete('vault --root v sea')).toEqual(['search']);
    expect(complete('vault save --ki')).toEqual(['--kind']);
    expect(complete('vault save --kind ')).toEqual([...KINDS].sort());
    expect(complete('vault search --status ')).toEqual(['active', 'rejected', 'superseded']);
    expect(complete('vault hooks ')).toEqual(['install', 'uninstall']);
    expect(complete('vault hooks install --harness ')).toEqual(['claude-code', 'codex', 'cursor', 'gemini-cli']);
    expect(complete('vault completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(complete('vault templates d')).toEqual(['decision']);
    expect(complete('vault save --title ')).toEqual([]); // free text: the shell's default (files)
    expect(complete('vault read --')).toEqual(['--help', '--json', '--root', '--scope', '--user-root']);
  });

  it('zsh and fish: every command and flag of the registry, and valid syntax where the shell exists', async () => {
    const cwd = gitRepo();
    const names = await helpCommands(cwd);
    for (const shell of ['zsh', 'fish'] as const) {
      const r = await runCli(['completion', shell], { cwd });
      expect(r.code, r.stderr).toBe(0);
      for (const name of names) expect(r.stdout, `${shell}: ${name}`).toMatch(new RegExp(`\\b${name}\\b`));
      expect(r.stdout).toContain(shell === 'zsh' ? '--dry-run' : '-l dry-run');
      expect(r.stdout).toContain(shell === 'zsh' ? 'compdef _vault vault memory-vault' : "-l kind -x -a 'context decision");
      if (has(shell)) {
        const file = join(tempDir(), `vault.${shell}`);
        writeFileSync(file, r.stdout);
        const check = spawnSync(shell, shell === 'zsh' ? ['-n', file] : ['--no-execute', file], { encoding: 'utf8' });
        expect(check.status, check.stderr).toBe(0);
      }
    }
  });

  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh'], { cwd: gitRepo() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown shell "tcsh"\nhint: shell is one of: bash, zsh, fish; run `vault completion --help`/);
  });
});

describe('vault templates', () => {
  it('lists every kind with its sections, and prints one template as shipped', async () => {
    const cwd = gitRepo();
    const list = await runCli(['templates'], { cwd });
    expect(list.code, list.stderr).toBe(0);
    for (const kind of KINDS) expect(list.stdout).toMatch(new RegExp(`^${kind} +\\S`, 'm'));
    expect(list.stdout).toMatch(/^decision +Context · Options · Decision · Consequences$/m);
    const one = await runCli(['templates', 'runbook'], { cwd });
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(readFileSync(join(REPO, 'templates', 'runbook.md'), 'utf8'));
    const json = await runCli(['templates', 'fact', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'fact', sections: ['Fact', 'Source', 'Applies to'] });
    const all = JSON.parse((await runCli(['templates', '--json'], { cwd })).stdout) as { kind: string; purpose: string }[];
    expect(all.map((t) => t.kind)).toEqual([...KINDS]);
    expect(all.every((t) => t.purpose.length > 0)).toBe(true);
  });

  it('an unknown kind is a usage error naming the choices', async () => {
    const r = await runCli(['templates', 'recipe'], { cwd: gitRepo() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown kind "recipe"\nhint: kind is one of: context, decision,/);
  });
});
