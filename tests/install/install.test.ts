/**
 * The package installs the way its users install it, and the installed program works. Nothing is
 * stubbed: real npm, a real tarball, a real git repository, into temp folders (`--prefix`).
 *
 * - `npm pack` in a copy of this working tree (its tracked and untracked, not ignored files: no
 *   dist/ and no node_modules/, like a fresh clone, so `prepare` fetches esbuild into a temporary
 *   folder and builds dist/), then a global install of the tarball and a project install of it (a project's
 *   own package.json above the hoisted dependencies must not change `vault --version`).
 * - A global install from a `git+file://` URL of a temp repository holding the same files, with
 *   `--install-links` as the docs say: npm clones it, runs `prepare` in the clone, packs and
 *   installs it. This is also how the pre-commit framework installs a `language: node` hook.
 *
 * Each installed `vault` / `memory-vault` then runs `--version`, `init`, a templated `save`,
 * `search`, a hook and `doctor` in a temp git repository.
 *
 * npm uses the machine's npm cache (warm after `npm ci`) with --prefer-offline; the dependencies
 * come from the npm registry when the cache lacks them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, REPO } from '../helpers/cli.js';

const VERSION: string = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * The environment for npm: this process's, without the variables an outer `npm test` exports
 * (npm_config_*, npm_package_*, ...: they would configure the inner npm) and without vault's own.
 * The npm cache stays the one the outer npm used, so installs reuse what `npm ci` fetched.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const cache = process.env.npm_config_cache;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|NPM_|INIT_CWD$|ECC_|VAULT_)/.test(k)) continue;
    env[k] = v;
  }
  if (cache) env.npm_config_cache = cache;
  env.npm_config_update_notifier = 'false';
  return env;
}

const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

async function npm(args: string[], cwd: string, timeoutMs = 180_000): Promise<Run> {
  const r = await exec('npm', [...args, ...NPM_FLAGS], { cwd, env: npmEnv(), timeoutMs });
  if (r.code !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

let work: string;
let source: string;
let tarball: string;
let tarEntries: string[];
let withoutDevDependencies: Run;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vault-install-'));
  source = join(work, 'source');
  // The working tree as git sees it (tracked and untracked files, nothing ignored: no dist/, no
  // node_modules/), so uncommitted work is what gets installed.
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const rel of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(REPO, rel);
    if (!existsSync(from) || lstatSync(from).isSymbolicLink()) continue; // deleted in the working tree
    mkdirSync(dirname(join(source, rel)), { recursive: true });
    copyFileSync(from, join(source, rel));
  }
  git(source, 'init', '-q', '-b', 'main');
  git(source, 'add', '-A');
  git(source, 'commit', '-q', '-m', 'the working tree under test');
  expect(existsSync(join(source, 'dist'))).toBe(false);
  // a fresh clone, as a user packs it: no node_modules, so `prepare` fetches the locked esbuild
  // into a temporary folder before it builds dist/, and leaves no node_modules behind
  expect(existsSync(join(source, 'node_modules'))).toBe(false);
  // outside npm pack and a global install, prepare installs nothing and says what to run
  withoutDevDependencies = await exec(process.execPath, ['scripts/prepare.mjs'], { cwd: source, env: npmEnv() });
  await npm(['pack', '--pack-destination', work], source);
  const tgz = readdirSync(work).filter((n) => n.endsWith('.tgz'));
  expect(tgz).toEqual([`ecc-memory-vault-${VERSION}.tgz`]);
  tarball = join(work, tgz[0]!);
  expect(existsSync(join(source, 'node_modules'))).toBe(false);
  expect(existsSync(join(source, 'dist', 'cli', 'run-cli.js'))).toBe(true);
  const listing = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  expect(listing.status, listing.stderr).toBe(0);
  tarEntries = listing.stdout.split('\n').filter(Boolean);
}, 240_000);

// three installed packages of ~5,000 files each: removing them took 40 s on the loaded 2-core machine
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 180_000);

/** Runs the installed program through its bin link (shebang and all), as a user's shell would. */
async function checkInstalled(binDir: string): Promise<void> {
  const vault = join(binDir, 'vault');
  const repo = gitRepo();
  const env = cliEnv();
  const run = (args: string[], input?: string) => exec(vault, args, { cwd: repo, env, ...(input === undefined ? {} : { input }), timeoutMs: 30_000 });

  const version = await run(['--version']);
  expect(version.stdout.trim(), version.stderr).toBe(VERSION);
  const alias = await exec(join(binDir, 'memory-vault'), ['--version'], { cwd: repo, env });
  expect(alias.stdout.trim(), alias.stderr).toBe(VERSION);

  const init = await run(['init']);
  expect(init.code, init.stderr).toBe(0);
  expect(readFileSync(join(repo, '.ecc', 'memory', 'project', '.gitignore'), 'utf8')).toBe('*\n!.gitignore\n');
  for (const kind of KINDS) expect(existsSync(join(repo, '.ecc', 'memory', 'team', `${kind}s`))).toBe(true);

  // --template reads templates/decision.md from the installed package
  const save = await run([
    'save',
    '--scope',
    'team',
    '--kind',
    'decision',
    '--title',
    'Store sessions in Redis',
    '--template',
    '--section',
    'Decision=Sessions live in Redis.',
    '--json',
  ]);
  expect(save.code, save.stderr).toBe(0);
  const saved = JSON.parse(save.stdout);
  expect(readFileSync(join(repo, '.ecc', 'memory', saved.path), 'utf8')).toContain('## Decision\n\nSessions live in Redis.');

  // search starts from the lean bundle, a hook from the hook bundle: both must be in the package
  const search = await run(['search', 'redis', '--json']);
  expect(search.code, search.stderr).toBe(0);
  expect(JSON.parse(search.stdout).results.map((r: { id: string }) => r.id)).toEqual([saved.id]);
  const hook = await run(['hook', 'session-start'], JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'SessionStart' }));
  expect(hook.code, hook.stderr).toBe(0);

  const doctor = await run(['doctor']);
  expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  expect(doctor.stdout).toContain('no problems (1 memory file checked, 1 valid)');
}

describe('install from a tarball and from git (real npm, temp folders)', () => {
  it('prepare without the devDependencies (npm ci --omit=dev) fails with what to run, and builds nothing', () => {
    expect(withoutDevDependencies.code).toBe(1);
    expect(withoutDevDependencies.stderr).toContain('prepare: esbuild (a devDependency) is not installed, so dist/ cannot be built. Run `npm ci`');
  });

  it('npm pack runs prepare and packs what the program reads at run time, and no tests or sources', () => {
    const has = (p: string) => tarEntries.includes(`package/${p}`);
    for (const p of [
      'package.json',
      'README.md',
      'bin/vault.js',
      'bin/package.json',
      'dist/index.js',
      'dist/cli/run-cli.js',
      'dist/cli/lean-bundle.cjs',
      'dist/cli/lean-loader.cjs',
      'dist/hooks/hook-bundle.cjs',
      'types/index.d.ts',
      'types/operations/save.d.ts',
      'schemas/memory.schema.json',
      ...KINDS.map((k) => `templates/${k}.md`),
    ])
      expect(has(p), p).toBe(true);
    const top = new Set(tarEntries.map((e) => e.split('/')[1]));
    expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json', 'schemas', 'templates', 'types']);
    expect(tarEntries.filter((e) => /\.test\.|\/tests?\/|\.ts$/.test(e) && !e.endsWith('.d.ts'))).toEqual([]);
  });

  it('a global install of the tarball (--prefix) gives a working vault and memory-vault', async () => {
    const prefix = join(work, 'global-tgz');
    await npm(['install', '-g', '--prefix', prefix, tarball], work);
    await checkInstalled(join(prefix, 'bin'));
  }, 240_000);

  it('a project install of the tarball reports the package version, not the project one', async () => {
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'some-app', version: '9.9.9', private: true }));
    await npm(['install', '--save-dev', tarball], project);
    await checkInstalled(join(project, 'node_modules', '.bin'));
    // a TypeScript user of the library gets its declarations through package.json `types`: a
    // misuse is a type error, a correct use checks clean (this repository's own tsc and @types/node)
    writeFileSync(
      join(project, 'use.mts'),
      [
        "import { KINDS, parseMemory, type Kind } from 'ecc-memory-vault';",
        'const kind: Kind = KINDS[0];',
        "const parsed = parseMemory('---\\n---\\n');",
        'export const out: [Kind, unknown] = [kind, parsed];',
        '',
      ].join('\n'),
    );
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const tsArgs = [
      tsc,
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--typeRoots',
      join(REPO, 'node_modules', '@types'),
      '--types',
      'node',
      'use.mts',
    ];
    const clean = await exec(process.execPath, tsArgs, { cwd: project });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    writeFileSync(
      join(project, 'use.mts'),
      "import { KINDS, type Kind } from 'ecc-memory-vault';\nexport const k: Kind = 'not-a-kind';\nexport const n: number = KINDS.length;\n",
    );
    const misuse = await exec(process.execPath, tsArgs, { cwd: project });
    expect(misuse.code).not.toBe(0);
    expect(misuse.stdout).toContain('\'"not-a-kind"\' is not assignable to type');
  }, 240_000);

  it('a global install from a git+file:// URL (--install-links) builds dist/ in npm’s clone and works', async () => {
    const prefix = join(work, 'global-git');
    const r = await npm(['install', '-g', '--install-links', '--prefix', prefix, `git+file://${source}`], work, 300_000);
    const pkg = join(prefix, 'lib', 'node_modules', 'ecc-memory-vault');
    expect(lstatSync(pkg).isDirectory(), `${pkg} must be a folder, not a link into npm's deleted clone\n${r.stderr}`).toBe(true);
    expect(existsSync(join(pkg, 'dist', 'cli', 'run-cli.js'))).toBe(true);
    await checkInstalled(join(prefix, 'bin'));
  }, 300_000);
});
