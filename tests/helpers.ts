/**
 * Test helpers: temp trees from object literals, git repos, and the CLI run as a real
 * subprocess (bin/vault.js over dist/) with HOME and every root pointed at temp folders.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';

export const REPO = resolve(__dirname, '..');
export const BIN = join(REPO, 'bin', 'vault.js');
/** In-repo fixtures (tests/fixtures); the default suite needs nothing outside the repository. */
export const FIXTURES = join(REPO, 'tests', 'fixtures');

/**
 * The bytes of one of our memory fixtures (tests/fixtures/memories/README.md): `reference/<id>.md`
 * as the reference tool writes it, `obsidian/<id>.md` as Obsidian's Properties panel leaves it.
 */
export function memoryFixture(rel: string): Buffer {
  return readFileSync(join(FIXTURES, 'memories', rel));
}

const made: string[] = [];
afterEach(() => {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test. */
export function tempDir(prefix = 'vault-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Writes `files` (relative path → content) under a new temp folder and returns it. */
export function fixture(files: Record<string, string | Buffer> = {}): string {
  const root = tempDir();
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return root;
}

/** Runs git in `cwd`; throws on failure. */
export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A temp folder initialised as a git repository (with an initial commit). */
export function gitRepo(files: Record<string, string | Buffer> = {}): string {
  const root = fixture(files);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'commit', '-q', '--allow-empty', '-m', 'init');
  return root;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment for a CLI subprocess: HOME and roots in temp folders, no inherited vault variables. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = tempDir('vault-home-');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('ECC_') && !k.startsWith('VAULT_') && !k.startsWith('CLAUDE')) env[k] = v;
  }
  env.HOME = home;
  env.ECC_MEMORY_USER_ROOT = join(home, '.ecc', 'memory');
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs `vault <args>` as a subprocess in `cwd`. */
export function runCli(args: string[], opts: { cwd: string; env?: Record<string, string>; input?: string | Buffer; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: opts.env ?? cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}
