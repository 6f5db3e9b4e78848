/**
 * The review entry points at the repository root and in templates/ci/, run exactly as written:
 * the GitHub composite action (action.yml), the pre-commit framework's hooks
 * (.pre-commit-hooks.yaml), the workflow template, the plain git hook, and the husky and lefthook
 * snippets. The YAML is parsed, the `${{ inputs.* }}` / `${{ github.* }}` expressions the files
 * use are bound, and each `run:` / `entry` runs with bash or sh in a temp repository whose
 * `origin` is a local bare repository, on a branch with a good and a bad memory.
 *
 * The action's install step (npm ci + build in `github.action_path`) is bound to this already
 * built checkout and not run, so the test does not reinstall; installing from source is covered
 * by tests/install/install.test.ts. Everything after it runs as the runner would run it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliEnv, fixture, git, REPO, runCli, tempDir } from '../helpers/cli.js';

// ---------------------------------------------------------------------------------------------
// Repositories: origin (bare), main with one memory, a feature branch, and a CI checkout of it.

/** A valid memory except for `trust` (line 7), which ecc.memory.v1 allows only as "unreviewed". */
const BAD = `---
schema: "ecc.memory.v1"
id: "mem_bad_one"
title: "Bad one"
kind: "note"
scope: "team"
trust: "reviewed"
status: "active"
source_harness: "test"
target_harnesses: ["all"]
tags: []
links: []
created_at: "2026-01-01T00:00:00.000Z"
updated_at: "2026-01-01T00:00:00.000Z"
---

A memory that claims to be reviewed.
`;
const BAD_PATH = '.ecc/memory/team/notes/mem_bad_one.md';
const BAD_ANNOTATION =
  '::error file=.ecc/memory/team/notes/mem_bad_one.md,line=7,title=vault doctor%3A invalid-field::trust: must be one of: unreviewed. Fix: use one of: unreviewed';

/** Valid, but with an unquoted title: not in canonical form (a doctor warning; fmt rewrites it). */
const NON_CANONICAL = BAD.replace('id: "mem_bad_one"', 'id: "mem_loose_one"')
  .replace('title: "Bad one"', 'title: Loose one')
  .replace('trust: "reviewed"', 'trust: "unreviewed"');
const NON_CANONICAL_PATH = '.ecc/memory/team/notes/mem_loose_one.md';

async function vault(cwd: string, ...args: string[]): Promise<string> {
  const r = await runCli(args, { cwd, env: cliEnv() });
  if (r.code !== 0) throw new Error(`vault ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * One bare repository, `origin`, made once for the file (each test clones it): main holds an
 * initialised vault with one memory saved by `vault save`; each other branch starts from main:
 * - good: a lesson saved by `vault save` (GOOD_PATH)
 * - bad: that lesson and BAD
 * - loose: NON_CANONICAL
 * - mixed: the lesson, NON_CANONICAL, and files under .ecc/memory that are no memories
 * - main-later: main plus an invalid memory that no feature branch touches
 */
let ORIGIN: string;
let GOOD_PATH: string;

function commitFiles(repo: string, branch: string, files: Record<string, string>): void {
  git(repo, 'checkout', '-q', '-b', branch, 'main');
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(repo, rel, '..'), { recursive: true });
    writeFileSync(join(repo, rel), content);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `${branch}: memories`);
}

beforeAll(async () => {
  const root = tempDirForFile('vault-ci-');
  ORIGIN = join(root, 'origin.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', ORIGIN);
  const dev = join(root, 'dev');
  git(root, 'clone', '-q', ORIGIN, dev);
  git(dev, 'checkout', '-q', '-b', 'main');
  await vault(dev, 'init');
  await vault(dev, 'save', '--scope', 'team', '--kind', 'decision', '--title', 'Base memory on main', '--body', 'Kept on main.');
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'main: a vault with one memory');
  git(dev, 'checkout', '-q', '-b', 'good');
  const saved = JSON.parse(await vault(dev, 'save', '--scope', 'team', '--kind', 'lesson', '--title', 'A good lesson', '--body', 'Measure first.', '--json'));
  GOOD_PATH = `.ecc/memory/${saved.path}`;
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'good: a lesson');
  const good = { [GOOD_PATH]: readFileSync(join(dev, GOOD_PATH), 'utf8') };
  git(dev, 'checkout', '-q', 'main');
  commitFiles(dev, 'bad', { ...good, [BAD_PATH]: BAD });
  commitFiles(dev, 'loose', { [NON_CANONICAL_PATH]: NON_CANONICAL });
  commitFiles(dev, 'mixed', {
    ...good,
    [NON_CANONICAL_PATH]: NON_CANONICAL,
    '.ecc/memory/.obsidian/app.json': '{}\n',
    '.ecc/memory/team/.trash/old.md': 'deleted in Obsidian\n',
    '.ecc/memory/team/notes/board.excalidraw.md': '# drawing\n',
    'README.md': '# app\n',
  });
  commitFiles(dev, 'main-later', {
    '.ecc/memory/team/facts/mem_later_on_main.md': BAD.replaceAll('mem_bad_one', 'mem_later_on_main').replace('kind: "note"', 'kind: "fact"'),
  });
  git(dev, 'push', '-q', 'origin', 'main', 'good', 'bad', 'loose', 'mixed', 'main-later');
}, 120_000);

afterAll(() => {
  for (const d of fileDirs) rmSync(d, { recursive: true, force: true });
});

/** helpers' tempDir is removed after each test; the shared origin lives for the whole file. */
const fileDirs: string[] = [];
function tempDirForFile(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  fileDirs.push(d);
  return d;
}

/**
 * What actions/checkout leaves for a pull_request event with fetch-depth: 0: every branch as
 * origin/<name>, HEAD detached at the merge of the branch into its base (refs/pull/N/merge).
 * With `depth`, a shallow clone instead (the checkout's default fetch-depth is 1).
 */
function checkout(branch: string, opts: { depth?: number } = {}): string {
  const ws = join(tempDir('vault-ws-'), 'ws');
  if (opts.depth) git(tempDir(), 'clone', '-q', '--no-single-branch', `--depth=${opts.depth}`, `file://${ORIGIN}`, ws);
  else git(tempDir(), 'clone', '-q', ORIGIN, ws);
  git(ws, 'checkout', '-q', '--detach', 'origin/main');
  if (opts.depth) git(ws, 'checkout', '-q', '--detach', `origin/${branch}`);
  else git(ws, 'merge', '-q', '--no-ff', '-m', `Merge ${branch} into main`, `origin/${branch}`);
  return ws;
}

// ---------------------------------------------------------------------------------------------
// The action, run as the runner runs a composite action.

interface Step {
  id?: string;
  name?: string;
  shell?: string;
  'working-directory'?: string;
  env?: Record<string, string>;
  run?: string;
  uses?: string;
  if?: string;
}
interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  runs: { using: string; steps: Step[] };
}

type Context = { github: Record<string, string>; inputs: Record<string, string> };

/** A GitHub Actions expression as the YAML spells it: gh('github.base_ref') is ${{ github.base_ref }}. */
const gh = (expr: string) => `\${{ ${expr} }}`;

/** Binds `${{ github.x }}` and `${{ inputs.x }}`; any other expression fails the test (it is not modelled). */
function bind(text: string, ctx: Context): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, expr: string) => {
    const m = /^(github|inputs)\.([A-Za-z_][\w-]*)$/.exec(expr);
    if (!m) throw new Error(`the test does not model the expression \${{ ${expr} }}`);
    const value = ctx[m[1] as 'github' | 'inputs'][m[2]!];
    if (value === undefined) throw new Error(`\${{ ${expr} }} is not bound`);
    return value;
  });
}

const ACTION: Action = parse(readFileSync(join(REPO, 'action.yml'), 'utf8'));

interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ran: string[];
}

/**
 * Runs the action's steps in `workspace` with the `with:` values given, like the runner: inputs
 * default from action.yml (bound against the github context), each `run:` written to a file and
 * run with `bash --noprofile --norc -eo pipefail <file>` (GitHub's `shell: bash`), steps in order
 * until one fails.
 */
function runAction(workspace: string, withInputs: Record<string, string>, github: { base_ref: string }): ActionRun {
  expect(ACTION.runs.using).toBe('composite');
  const githubCtx = { action_path: REPO, workspace, base_ref: github.base_ref };
  for (const key of Object.keys(withInputs)) expect(Object.keys(ACTION.inputs), `unknown input ${key}`).toContain(key);
  const inputs: Record<string, string> = {};
  for (const [key, spec] of Object.entries(ACTION.inputs)) inputs[key] = withInputs[key] ?? bind(String(spec.default ?? ''), { github: githubCtx, inputs: {} });
  const ctx = { github: githubCtx, inputs };
  const out: ActionRun = { code: 0, stdout: '', stderr: '', ran: [] };
  for (const step of ACTION.runs.steps) {
    expect(step.uses, 'a step of the action uses another action: not modelled').toBeUndefined();
    expect(step.if, 'a step with a condition: not modelled').toBeUndefined();
    expect(step.shell).toBe('bash');
    if (step.id === 'install') continue; // bound to this already built checkout (see the file's comment)
    const cwd = bind(step['working-directory'] ?? gh('github.workspace'), ctx);
    // only the install step may work in the action's own checkout (this repository): never run one here
    expect(cwd, `step ${step.id ?? step.name} would run in this checkout`).not.toBe(REPO);
    const env: Record<string, string> = { ...cliEnv(), GITHUB_ACTION_PATH: REPO, GITHUB_WORKSPACE: workspace, CI: 'true' };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = bind(String(v), ctx);
    const script = join(tempDir('vault-step-'), 'step.sh');
    writeFileSync(script, bind(step.run ?? '', ctx));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8', timeout: 60_000 });
    out.ran.push(step.id ?? step.name ?? '?');
    out.stdout += r.stdout;
    out.stderr += r.stderr;
    out.code = r.status;
    if (r.status !== 0) break;
  }
  return out;
}

const annotations = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::'));

describe('action.yml (GitHub composite action)', () => {
  it('declares the inputs base (default: the pull request base), strict and fmt-check', () => {
    expect(Object.keys(ACTION.inputs).sort()).toEqual(['base', 'fmt-check', 'strict']);
    expect(ACTION.inputs.base!.default).toBe(gh('github.base_ref'));
    expect(ACTION.inputs.strict!.default).toBe('false');
    expect(ACTION.inputs['fmt-check']!.default).toBe('true');
    const install = ACTION.runs.steps.find((s) => s.id === 'install')!;
    expect(install['working-directory']).toBe(gh('github.action_path'));
    expect(install.run).toMatch(/npm ci\b/);
    expect(install.run).toMatch(/npm run build\b/);
  });

  it('on a pull request with a good and a bad memory: an error annotation on the bad line, exit 1', () => {
    const r = runAction(checkout('bad'), {}, { base_ref: 'main' });
    expect(r.ran).toEqual(['doctor']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(annotations(r.stdout)).toEqual([
      BAD_ANNOTATION,
      // fmt-check (default true) refuses the invalid file too, and says so once
      '::error title=vault doctor::vault fmt --check failed (exit 3): a memory file is not in canonical form or cannot be formatted (see the log); run vault fmt and commit the result',
    ]);
    expect(r.stdout).toContain('1 error, 0 warnings in 1 file (2 changed memory files checked');
    expect(r.stdout).not.toContain(GOOD_PATH);
  });

  it('accepts the base as origin/<branch>, a branch or a commit, and ignores what the base gained since', () => {
    // a push build of the branch itself, compared with a base that moved on with a broken file
    const ws = join(tempDir('vault-ws-'), 'ws');
    git(tempDir(), 'clone', '-q', ORIGIN, ws);
    git(ws, 'checkout', '-q', '--detach', 'origin/bad');
    const sha = git(ws, 'rev-parse', 'origin/main-later').trim();
    for (const base of ['origin/main-later', sha, 'main-later']) {
      const r = runAction(ws, { base, 'fmt-check': 'false' }, { base_ref: '' });
      expect(r.code, `${base}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(annotations(r.stdout), base).toEqual([BAD_ANNOTATION]);
    }
  });

  it('on a pull request with only good memories: no annotation, exit 0', () => {
    const r = runAction(checkout('good'), {}, { base_ref: 'main' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(annotations(r.stdout)).toEqual([]);
    expect(r.stdout).toContain('no problems');
  });

  it('a non-canonical memory: a warning; strict: "true" or fmt-check: "true" fail the check', () => {
    const ws = checkout('loose');
    const lenient = runAction(ws, { 'fmt-check': 'false' }, { base_ref: 'main' });
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
    expect(annotations(lenient.stdout)).toEqual([
      expect.stringMatching(/^::warning file=\.ecc\/memory\/team\/notes\/mem_loose_one\.md,line=4,title=vault doctor%3A non-canonical::/),
    ]);
    const strict = runAction(ws, { strict: 'true', 'fmt-check': 'false' }, { base_ref: 'main' });
    expect(strict.code).toBe(1);
    const fmt = runAction(ws, {}, { base_ref: 'main' });
    expect(fmt.code).toBe(1);
    expect(fmt.stdout).toContain('would format  team/notes/mem_loose_one.md');
    expect(annotations(fmt.stdout).at(-1)).toMatch(/^::error title=vault doctor::vault fmt --check failed \(exit 1\)/);
  });

  it('explains a missing base, a shallow checkout and a bad input in an annotation, exit 2', () => {
    const ws = checkout('good');
    const noBase = runAction(ws, {}, { base_ref: '' }); // a push event: no pull request base
    expect(noBase.code).toBe(2);
    expect(annotations(noBase.stdout)).toEqual([
      expect.stringContaining("::error title=vault doctor::no base to compare with: outside pull_request events, set the action's base input"),
    ]);
    const unknown = runAction(ws, { base: 'release-9' }, { base_ref: 'main' });
    expect(unknown.code).toBe(2);
    expect(annotations(unknown.stdout)).toEqual([
      '::error title=vault doctor::the base release-9 is not in this checkout: check it out with actions/checkout and fetch-depth: 0',
    ]);
    const shallow = runAction(checkout('good', { depth: 1 }), {}, { base_ref: 'main' });
    expect(shallow.code).toBe(2);
    expect(annotations(shallow.stdout)).toEqual([
      '::error title=vault doctor::this checkout is shallow, so the merge base with origin/main is missing: use actions/checkout with fetch-depth: 0',
    ]);
    const badInput = runAction(ws, { strict: 'yes' }, { base_ref: 'main' });
    expect(badInput.code).toBe(2);
    expect(annotations(badInput.stdout)).toEqual(['::error title=vault doctor::the STRICT input must be true or false']);
  });
});

describe('templates/ci/github-vault-doctor.yml', () => {
  const workflow = parse(readFileSync(join(REPO, 'templates/ci/github-vault-doctor.yml'), 'utf8'));
  const steps: Array<{ uses?: string; with?: Record<string, unknown>; run?: string }> = workflow.jobs.doctor.steps;

  it('checks out with the history, then uses the action with inputs it declares', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
    expect(steps.filter((s) => s.run)).toEqual([]);
    const uses = steps.at(-1)!;
    expect(uses.uses).toBe('<owner>/<repo>@<ref>');
    for (const key of Object.keys(uses.with ?? {})) expect(Object.keys(ACTION.inputs)).toContain(key);
  });

  it('runs as written against this action on a pull request with a bad memory', () => {
    const withInputs = Object.fromEntries(Object.entries(steps.at(-1)!.with ?? {}).map(([k, v]) => [k, String(v)]));
    const r = runAction(checkout('bad'), withInputs, { base_ref: 'main' });
    expect(r.code).toBe(1);
    expect(annotations(r.stdout)[0]).toBe(BAD_ANNOTATION);
  });
});

// ---------------------------------------------------------------------------------------------
// Git hooks: the pre-commit framework's hooks, the plain hook, husky and lefthook.

interface PreCommitHook {
  id: string;
  entry: string;
  language: string;
  files?: string;
  exclude?: string;
  types?: string[];
  pass_filenames?: boolean;
  [key: string]: unknown;
}
const HOOKS: PreCommitHook[] = parse(readFileSync(join(REPO, '.pre-commit-hooks.yaml'), 'utf8'));
const MODELLED = new Set(['id', 'name', 'description', 'entry', 'language', 'files', 'exclude', 'types', 'pass_filenames']);

/**
 * The files pre-commit passes to a hook: the staged files (added, copied, modified, renamed), kept
 * when `files` matches (re.search) and `exclude` does not, and of every type in `types` (only the
 * types these hooks use are modelled: markdown is identify's tag for .md and .markdown).
 */
function preCommitFiles(hook: PreCommitHook, repo: string): string[] {
  const staged = git(repo, 'diff', '--cached', '--name-only', '--diff-filter=ACMR', '-z').split('\0').filter(Boolean);
  return staged.filter((f) => {
    if (hook.files && !new RegExp(hook.files).test(f)) return false;
    if (hook.exclude && new RegExp(hook.exclude).test(f)) return false;
    for (const t of hook.types ?? []) {
      if (t !== 'markdown') throw new Error(`type ${t} is not modelled`);
      if (!/\.(md|markdown)$/.test(f)) return false;
    }
    return true;
  });
}

/** A folder with `vault` and `memory-vault` linked to this checkout's bin, as an install puts them on PATH. */
function binDir(): string {
  const dir = tempDir('vault-bin-');
  for (const name of ['vault', 'memory-vault']) symlinkSync(join(REPO, 'bin', 'vault.js'), join(dir, name));
  return dir;
}

/** A developer's clone with a branch's changes staged for a commit (on top of main). */
function stagedRepo(branch: string): string {
  const repo = join(tempDir('vault-dev-'), 'dev');
  git(tempDir(), 'clone', '-q', '-b', branch, ORIGIN, repo);
  git(repo, 'reset', '-q', '--soft', 'origin/main');
  return repo;
}

function runHook(hook: PreCommitHook, repo: string, env: Record<string, string>) {
  for (const key of Object.keys(hook)) expect(MODELLED, `${hook.id}: key ${key} is not modelled`).toContain(key);
  expect(hook.language).toBe('node');
  const files = hook.pass_filenames === false ? [] : preCommitFiles(hook, repo);
  const [cmd, ...args] = hook.entry.split(/\s+/); // pre-commit splits entry with shlex: no quotes here
  const r = spawnSync(cmd!, [...args, ...files], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout + r.stderr, files };
}

describe('.pre-commit-hooks.yaml (pre-commit framework)', () => {
  const doctorHook = HOOKS.find((h) => h.id === 'vault-doctor')!;
  const fmtHook = HOOKS.find((h) => h.id === 'vault-fmt')!;

  it('defines vault-doctor and vault-fmt as node hooks on .ecc/memory/', () => {
    expect(HOOKS.map((h) => h.id)).toEqual(['vault-doctor', 'vault-fmt']);
    for (const h of HOOKS) {
      expect(h.language).toBe('node');
      expect(h.files).toBe('^\\.ecc/memory/');
    }
    expect(doctorHook.pass_filenames).toBe(false);
  });

  it('vault-doctor fails on a staged bad memory and names its line; passes on good ones', () => {
    const env = { ...cliEnv(), PATH: `${binDir()}${delimiter}${process.env.PATH}` };
    const bad = stagedRepo('bad');
    const failed = runHook(doctorHook, bad, env);
    expect(failed.code, failed.out).toBe(1);
    expect(failed.out).toContain('team/notes/mem_bad_one.md');
    expect(failed.out).toMatch(/ 7 +error +trust: must be one of: unreviewed +invalid-field/);
    const good = stagedRepo('good');
    const passed = runHook(doctorHook, good, env);
    expect(passed.code, passed.out).toBe(0);
  });

  it('vault-fmt gets only memory files, rewrites a non-canonical one, and refuses an invalid one', () => {
    const env = { ...cliEnv(), PATH: `${binDir()}${delimiter}${process.env.PATH}` };
    const repo = stagedRepo('mixed');
    const run = runHook(fmtHook, repo, env);
    expect(run.files).toHaveLength(2);
    expect(run.files).toContain(NON_CANONICAL_PATH);
    expect(run.files).toContainEqual(expect.stringMatching(/^\.ecc\/memory\/team\/lessons\/mem_.*\.md$/));
    expect(run.code, run.out).toBe(0); // pre-commit then fails the hook: it modified a file
    expect(readFileSync(join(repo, NON_CANONICAL_PATH), 'utf8')).toBe(NON_CANONICAL.replace('title: Loose one', 'title: "Loose one"'));

    writeFileSync(join(repo, BAD_PATH), BAD);
    git(repo, 'add', '-A');
    const refused = runHook(fmtHook, repo, env);
    expect(refused.files).toContain(BAD_PATH);
    expect(refused.code).toBe(3);
    expect(refused.out).toContain('refused       team/notes/mem_bad_one.md:7: invalid document, not formatted');
  });
});

describe('templates/ci: the plain git hook, husky and lefthook', () => {
  /** A project that installed vault as a devDependency: node_modules/.bin/memory-vault. */
  function withProjectInstall(repo: string): void {
    mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(REPO, join(repo, 'node_modules', 'ecc-memory-vault'));
    symlinkSync('../ecc-memory-vault/bin/vault.js', join(repo, 'node_modules', '.bin', 'memory-vault'));
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'app', private: true, devDependencies: { 'ecc-memory-vault': '*' } }));
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\npackage.json\n');
  }
  const hookEnv = () => {
    const env = cliEnv();
    // no vault on PATH: the hooks must find the project's own copy
    env.PATH = process.env
      .PATH!.split(delimiter)
      .filter((d) => !existsSync(join(d, 'memory-vault')))
      .join(delimiter);
    return env;
  };
  const lefthook = parse(readFileSync(join(REPO, 'templates/ci/lefthook.yml'), 'utf8'));
  const snippets: Array<[string, string]> = [
    ['templates/ci/pre-commit', join(REPO, 'templates/ci/pre-commit')],
    ['templates/ci/husky-pre-commit', join(REPO, 'templates/ci/husky-pre-commit')],
    ['templates/ci/lefthook.yml pre-commit.commands.vault-doctor.run', ''],
  ];
  const scriptOf = (path: string): string => {
    if (path) return path;
    const file = join(tempDir('vault-lefthook-'), 'run.sh');
    writeFileSync(file, lefthook['pre-commit'].commands['vault-doctor'].run);
    return file;
  };

  it.each(snippets)('%s: fails on a staged bad memory, passes on good ones and on commits without memories', (_name, path) => {
    const script = scriptOf(path);
    const env = hookEnv();
    const bad = stagedRepo('bad');
    withProjectInstall(bad);
    const failed = spawnSync('sh', [script], { cwd: bad, env, encoding: 'utf8' });
    expect(failed.status, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toContain('trust: must be one of: unreviewed');
    const good = stagedRepo('good');
    withProjectInstall(good);
    const passed = spawnSync('sh', [script], { cwd: good, env, encoding: 'utf8' });
    expect(passed.status, passed.stdout + passed.stderr).toBe(0);
    const other = fixture({ 'src/app.js': '1\n' });
    git(other, 'init', '-q');
    git(other, 'add', '-A');
    const none = spawnSync('sh', [script], { cwd: other, env, encoding: 'utf8' });
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout + none.stderr).toBe('');
  });

  it('the plain hook says how to install vault when it finds none', () => {
    const repo = stagedRepo('good');
    const hook = join(REPO, 'templates/ci/pre-commit');
    expect(statSync(hook).mode & 0o111, 'templates/ci/pre-commit is executable in git').toBe(0o111);
    const r = spawnSync(hook, [], { cwd: repo, env: hookEnv(), encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('memory-vault is not installed');
  });
});
