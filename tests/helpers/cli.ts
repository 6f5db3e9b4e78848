/**
 * Test helpers: temp trees from object literals, git repos, and the CLI run in-process
 * ({@link runCli}) or as the real binary ({@link runBin}, bin/vault.js over dist/), with HOME and
 * every root pointed at temp folders. The only imports of src/ for running the CLI are here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import type { CliIo } from '../../src/cli/command-context.js';
import type { PayloadRead } from '../../src/hooks/run-hook.js';
import { nodeRuntime } from '../../src/io/runtime.js';

export const REPO = resolve(__dirname, '..', '..');
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

/** Environment for a CLI run: HOME, the cache folder (the lean CLI's code cache) and roots in temp folders, no inherited vault variables. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = tempDir('vault-home-');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('ECC_') && !k.startsWith('VAULT_') && !k.startsWith('CLAUDE')) env[k] = v;
  }
  env.HOME = home;
  env.XDG_CACHE_HOME = join(home, '.cache');
  env.ECC_MEMORY_USER_ROOT = join(home, '.ecc', 'memory');
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Options of {@link runCli} and {@link runBin}. */
export interface RunOptions {
  cwd: string;
  /** the whole environment of the run (default: a fresh {@link cliEnv}) */
  env?: Record<string, string>;
  /** standard input (default: empty, closed) */
  input?: string | Buffer;
  /** subprocess only: SIGKILL after this many ms (default 30 s) */
  timeoutMs?: number;
  /** in-process only: tell the CLI that stdout is a terminal (colour, progress) */
  tty?: boolean;
  /** in-process only: tell the CLI that stderr is a terminal (search's index-build progress) */
  stderrTty?: boolean;
  /** in-process only: stdin and stdout are a terminal, and these are the keys pressed, in order (then Ctrl-C) */
  keys?: string[];
}

/**
 * Runs `vault <args>` in-process through the CLI's `main(argv, io)`, with its own cwd,
 * environment and stdin, capturing stdout, stderr and the exit code. Nothing process-wide is
 * changed (no chdir, no process.env), so runs may overlap. `vault hook ...` goes to the hook
 * runner as bin/vault.js sends it (without yargs), with the payload given as stdin. The real
 * binary (start-up, the lean and hook bundles, signals, races between processes) is what
 * {@link runBin} runs.
 */
export async function runCli(args: string[], opts: RunOptions): Promise<RunResult> {
  const env = opts.env ?? cliEnv();
  const input = opts.input === undefined ? Buffer.alloc(0) : Buffer.from(opts.input);
  const runtime = nodeRuntime({ cwd: opts.cwd, env, home: env.HOME ?? env.USERPROFILE ?? homedir() });
  let stdout = '';
  let stderr = '';
  if (args[0] === 'hook' && !args.includes('--help') && !args.includes('-h')) {
    // bin/vault.js → runHookProcess: `hook <event> [--harness H]`, always exit 0, never stderr
    let event: string | undefined;
    let harness: string | undefined;
    for (let i = 1; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--harness') harness = args[++i];
      else if (a.startsWith('--harness=')) harness = a.slice('--harness='.length);
      else if (!a.startsWith('-') && event === undefined) event = a;
    }
    const readPayload = async (maxBytes: number): Promise<PayloadRead> =>
      input.length > maxBytes
        ? { bytes: Buffer.alloc(0), tooLarge: true, timedOut: false, tty: false }
        : { bytes: input, tooLarge: false, timedOut: false, tty: false };
    // loaded on first use, as the bin loads it: a test file that never runs a hook does not pay for it
    const { runHook } = await import('../../src/hooks/run-hook.js');
    try {
      await runHook(event ?? '', harness, { readPayload, stdout: (t) => (stdout += t), runtime });
    } catch {
      /* never fails the agent, as in the binary */
    }
    return { code: 0, stdout, stderr };
  }
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    readStdin: async (maxBytes) => input.subarray(0, maxBytes),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.stderrTty ?? false,
    ...(opts.keys ? { readKey: async () => opts.keys!.shift() ?? '\u0003' } : {}),
    runtime,
  };
  const { main } = await import('../../src/cli/main.js');
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** Runs `vault <args>` as a real subprocess (bin/vault.js over dist/) in `cwd`. */
export function runBin(args: string[], opts: RunOptions): Promise<RunResult> {
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
