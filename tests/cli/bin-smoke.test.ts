/**
 * Smoke tests of the real binary (bin/vault.js over dist/). The behaviour cases run in-process
 * (tests/helpers/cli.ts runCli); what only a process shows is checked here: start-up, the bin's
 * dispatch to the lean (search/read) and hook bundles, exit codes as the shell sees them, a
 * reader that goes away (EPIPE) and output only a terminal gets. Other tests that keep the
 * binary because the process is their point: lean-start (lean bundle vs full CLI), hooks/kill
 * (SIGKILL mid-write), search/watch (SIGTERM), the races between processes in save-read,
 * freshness and hook-run, hooks/install (hooks run as the harness runs them), the MCP server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, gitRepo, REPO, runBin, runCli, tempDir } from '../helpers/cli.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** A git repo with one team memory about redis; returns it and an environment for it. */
async function repoWithMemory(): Promise<{ repo: string; env: Record<string, string>; id: string }> {
  const repo = gitRepo();
  const env = cliEnv();
  const r = await runCli(['save', '--scope', 'team', '--title', 'Redis sessions', '--body', 'We keep sessions in redis.', '--json'], { cwd: repo, env });
  expect(r.code, r.stderr).toBe(0);
  return { repo, env, id: (JSON.parse(r.stdout) as { id: string }).id };
}

/** The environment with a private XDG_RUNTIME_DIR (where a server socket may go). */
function chmodTempRuntime(env: Record<string, string>): Record<string, string> {
  const dir = tempDir('vault-run-');
  chmodSync(dir, 0o700);
  return { ...env, XDG_RUNTIME_DIR: dir };
}

/** The modules of dist/ a run loaded, from Node's own module debug log on stderr. */
function loadedModules(args: string[], cwd: string, env: Record<string, string>, input = ''): string[] {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...env, NODE_DEBUG: 'esm,module' }, input, encoding: 'utf8' });
  return [...new Set([...r.stderr.matchAll(/dist\/[\w/.-]+?\.c?js\b|node_modules\/yargs\/[\w.-]+/g)].map((m) => m[0]))];
}

describe('the vault binary', () => {
  it('starts: --version, no arguments (help), --help, exit 0', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const flag of ['--version', '-v', '-V']) {
      // the shim answers without yargs; the yargs path prints the same bytes
      expect(await runBin([flag], { cwd: repo, env })).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
      expect(await runBin([flag], { cwd: repo, env: { ...env, ECC_VAULT_CLI: 'full' } })).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
    for (const args of [[], ['--help']]) {
      const r = await runBin(args, { cwd: repo, env });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^vault <command> \[options\]/);
      expect(r.stdout).toContain('Exit codes:');
      expect(r.stderr).toBe('');
    }
  });

  it('exit codes reach the shell: usage 2, invalid input 3, not found 4, findings 1', async () => {
    const { repo, env } = await repoWithMemory();
    const usage = await runBin(['bogus'], { cwd: repo, env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^error: .*\nhint: run `vault --help`/);
    expect((await runBin(['save', '--title', 't', '--body', 'b', '--kind', 'nope'], { cwd: repo, env })).code).toBe(2);
    expect((await runBin(['save', '--title', ' ', '--body', 'b'], { cwd: repo, env })).code).toBe(3);
    const missing = await runBin(['read', 'mem_20260101_missing01'], { cwd: repo, env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).not.toMatch(/\n\s+at /); // one line and a hint, never a stack trace
    expect((await runBin(['doctor'], { cwd: repo, env })).code).toBe(0);
    const shell = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" read mem_20260101_missing01; echo "exit=$?"`], { cwd: repo, env, encoding: 'utf8' });
    expect(shell.stdout).toBe('exit=4\n');
  });

  it('dispatches search, read and save to the lean bundle, hook to the hook bundle, the rest to the full CLI', async () => {
    const { repo, env, id } = await repoWithMemory();
    for (const args of [
      ['search', 'redis'],
      ['read', id, '--json'],
      ['save', '--title', 'Lean save', '--body', 'saved without yargs'],
    ]) {
      // the loader runs the bundle through vm.Script (with its code cache), not require
      const loaded = loadedModules(args, repo, env);
      expect(loaded, args.join(' ')).toContain('dist/cli/lean-loader.cjs');
      expect(
        loaded.filter((m) => m.includes('yargs') || m === 'dist/cli/run-cli.js' || m === 'dist/cli/main.js'),
        args.join(' '),
      ).toEqual([]);
    }
    const hook = loadedModules(['hook', 'stop'], repo, env, '{}');
    // the hook bundle, run with the code cache of the lean loader, and nothing else of ours
    expect(hook).toContain('dist/hooks/hook-bundle.cjs');
    expect(hook.filter((m) => m !== 'dist/hooks/hook-bundle.cjs' && m !== 'dist/cli/lean-loader.cjs')).toEqual([]);
    const full = loadedModules(['doctor'], repo, env);
    expect(full).toContain('dist/cli/run-cli.js');
    expect(full.some((m) => m.includes('yargs'))).toBe(true);
    // an argument form the lean parser does not take goes to the full CLI, and so does ECC_VAULT_CLI=full
    expect(loadedModules(['search', '--bogus', 'redis'], repo, env)).toContain('dist/cli/run-cli.js');
    expect(loadedModules(['search', 'redis'], repo, { ...env, ECC_VAULT_CLI: 'full' })).not.toContain('dist/cli/lean-loader.cjs');
    // `vault hook` always exits 0 and prints nothing for a payload it cannot use
    expect(await runBin(['hook', 'stop'], { cwd: repo, env, input: 'not json' })).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('vault watch --detach/--status/--stop run without yargs and answer exactly as the full CLI; other watch forms go to the full CLI', async () => {
    const { repo, env } = await repoWithMemory();
    const run = chmodTempRuntime(env);
    const full = { ...run, ECC_VAULT_CLI: 'full' };
    const forms = [
      ['watch', '--status'],
      ['watch', '--status', '--json'],
      ['watch', '--stop'],
      ['watch', '--stop', '--json', '--scope', 'team'],
      // not plain: the full CLI answers either way
      ['watch', '--status', '--detach'],
      ['watch', '--status', '--json', 'true'],
      ['watch', '--scope', 'team', 'project', '--status'],
      ['watch', '--status', '--scope', 'global'],
      ['watch', '--stauts'],
    ];
    for (const args of forms) {
      const lean = await runBin(args, { cwd: repo, env: run });
      const yargs = await runBin(args, { cwd: repo, env: full });
      expect({ code: lean.code, stdout: lean.stdout, stderr: lean.stderr }, args.join(' ')).toEqual({
        code: yargs.code,
        stdout: yargs.stdout,
        stderr: yargs.stderr,
      });
    }
    // outside a vault: the same refusal
    const bare = tempDir('vault-bare-');
    const a = await runBin(['watch', '--status'], { cwd: bare, env: run });
    const b = await runBin(['watch', '--status'], { cwd: bare, env: full });
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: b.code, stderr: b.stderr });
    // a plain form loads no yargs: one bundle of ours, not the module graph
    const control = loadedModules(['watch', '--status'], repo, run);
    expect(control.some((m) => m.includes('yargs'))).toBe(false);
    expect(control).toContain('dist/cli/watch-bundle.cjs');
    expect(control).not.toContain('dist/cli/watch-server.js');
    expect(loadedModules(['watch', '--stauts'], repo, run).some((m) => m.includes('yargs'))).toBe(true);
  });

  it('a reader that goes away (EPIPE) ends the command quietly, without a stack trace', async () => {
    const { repo, env, id } = await repoWithMemory();
    for (const args of [['--help'], ['read', id], ['search', 'redis'], ['doctor', '--json']]) {
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.destroy(); // the reader is gone before the first write
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(r, args.join(' ')).toEqual({ code: 0, stderr: '' });
    }
  });

  it('colours search results only on a terminal (and never with NO_COLOR)', async () => {
    const { repo, env } = await repoWithMemory();
    const { NO_COLOR: _, ...colourEnv } = env;
    const onTty = spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" search redis`, '/dev/null'], { cwd: repo, env: colourEnv, encoding: 'utf8' });
    expect(onTty.status).toBe(0);
    expect(onTty.stdout).toContain('\u001b[1mRedis sessions\u001b[22m');
    const piped = await runBin(['search', 'redis'], { cwd: repo, env: colourEnv });
    expect(piped.stdout).toContain('1. Redis sessions\n');
    expect(piped.stdout).not.toContain('\u001b');
    const noColour = spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" search redis`, '/dev/null'], { cwd: repo, env, encoding: 'utf8' });
    expect(noColour.stdout).toContain('1. Redis sessions');
    expect(noColour.stdout).not.toContain('\u001b[');
    // in-process, the same when the io says stdout is a terminal
    expect((await runCli(['search', 'redis'], { cwd: repo, env: colourEnv, tty: true })).stdout).toContain('\u001b[1mRedis sessions\u001b[22m');
  });
});
