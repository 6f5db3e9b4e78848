/**
 * The lean start-up path of `vault search` / `vault read` / `vault save` (src/cli/lean-main.ts, bundled into
 * dist/cli/lean-bundle.cjs, run by bin/vault.js through lean-loader.ts without yargs) must behave exactly like the
 * full yargs CLI. Every argument list below runs twice as a subprocess: through the lean path
 * (the default) and through yargs (`ECC_VAULT_CLI=full`), and stdout, stderr and the exit code must be byte-identical. Each case
 * also names the path it is meant to take, checked against `parseLeanArgs`, so the lean path
 * cannot silently decline everything (and a form it must not handle cannot slip into it).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLeanArgs } from '../../src/cli/lean-main.js';
import { cliEnv, git, memoryFixture, REPO, runBin, type RunResult } from '../helpers/cli.js';

interface Mem {
  id: string;
  title: string;
  kind: string;
  scope: string;
  status?: string;
  tags?: string[];
  harnesses?: string[];
  links?: string[];
  updated: string;
  body: string;
}

/** A memory in the canonical on-disk form (JSON-valued frontmatter lines in fixed order). */
function memText(m: Mem): string {
  const t = `${m.updated}T10:00:00.000Z`;
  return [
    '---',
    'schema: "ecc.memory.v1"',
    `id: ${JSON.stringify(m.id)}`,
    `title: ${JSON.stringify(m.title)}`,
    `kind: ${JSON.stringify(m.kind)}`,
    `scope: ${JSON.stringify(m.scope)}`,
    'trust: "unreviewed"',
    `status: ${JSON.stringify(m.status ?? 'active')}`,
    'source_harness: "claude"',
    `target_harnesses: ${JSON.stringify(m.harnesses ?? ['all'])}`,
    `tags: ${JSON.stringify(m.tags ?? [])}`,
    `links: ${JSON.stringify(m.links ?? [])}`,
    `created_at: ${JSON.stringify(t)}`,
    `updated_at: ${JSON.stringify(t)}`,
    '---',
    '',
    m.body,
    '',
  ].join('\n');
}

function files(mems: Mem[]): Record<string, string> {
  return Object.fromEntries(mems.map((m) => [`${m.scope}/${m.kind}s/${m.id}.md`, memText(m)]));
}

/** Old mtimes, so no file is "too new to trust" for the index and every run sees it fresh. */
function agePast(dir: string): void {
  const past = new Date(Date.now() - 3_600_000);
  for (const d of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (d.isFile()) utimesSync(join(d.parentPath, d.name), past, past);
  }
}

const TEAM: Mem[] = [
  {
    id: 'mem_20260801_redis01',
    title: 'Sessions live in Redis',
    kind: 'decision',
    scope: 'team',
    tags: ['auth', 'redis'],
    updated: '2026-08-01',
    body: 'We keep user sessions in Redis with a 14 day TTL. See [[mem_20260903_a41c7e9b2d05f3816c4e]].',
  },
  {
    id: 'mem_20260802_deploy01',
    title: 'Deploy rollback runbook',
    kind: 'runbook',
    scope: 'team',
    tags: ['deploy'],
    harnesses: ['codex'],
    updated: '2026-08-02',
    body: 'Roll back with `kubectl rollout undo`; check the redis cache afterwards.',
  },
  {
    id: 'mem_20260803_old01',
    title: 'Old Redis cluster notes',
    kind: 'note',
    scope: 'team',
    status: 'superseded',
    tags: ['redis'],
    updated: '2026-07-01',
    body: 'The old cluster used sentinel.',
  },
  {
    id: 'mem_20260804_cjk01',
    title: '数据库连接池',
    kind: 'lesson',
    scope: 'team',
    tags: ['db'],
    updated: '2026-08-04',
    body: '我们使用数据库来存储会话。连接池大小是二十。',
  },
  {
    id: 'mem_20260805_esc01',
    title: 'Escapes \u001b[31mred\u001b[0m in title',
    kind: 'fact',
    scope: 'team',
    tags: ['terminal'],
    updated: '2026-08-05',
    body: 'Body with \u202eright-to-left\u202c mark and 123 numbers.',
  },
];
const USER: Mem[] = [
  {
    id: 'mem_20260806_user01',
    title: 'I prefer tabs',
    kind: 'preference',
    scope: 'user',
    updated: '2026-08-06',
    body: 'Personal preference: tabs over spaces, redis over memcached.',
  },
];
const ALT: Mem[] = [
  {
    id: 'mem_20260807_alt01',
    title: 'Alternate vault memory',
    kind: 'fact',
    scope: 'team',
    tags: ['alt'],
    updated: '2026-08-07',
    body: 'Only in the vault given with --root.',
  },
];

// The helpers' temp folders are removed after each test; these live for the whole matrix.
const made: string[] = [];
function folder(tree: Record<string, string | Buffer> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'vault-lean-'));
  made.push(root);
  for (const [rel, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

let repo = '';
let env: Record<string, string> = {};
let alt = '';
let bad = '';
let userRoot = '';

beforeAll(async () => {
  repo = folder({
    ...Object.fromEntries(Object.entries(files(TEAM)).map(([p, t]) => [`.ecc/memory/${p}`, t])),
    '.ecc/memory/project/.gitignore': '*\n!.gitignore\n',
    '.ecc/memory/project/handoffs/mem_20260904_5be28d1f0a7c93e4b6d1.md': memoryFixture('reference/mem_20260904_5be28d1f0a7c93e4b6d1.md'),
    '.ecc/memory/project/decisions/mem_20260903_a41c7e9b2d05f3816c4e.md': memoryFixture('reference/mem_20260903_a41c7e9b2d05f3816c4e.md'),
  });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.ecc/memory/team');
  git(repo, 'commit', '-q', '-m', 'team memories');
  userRoot = folder(Object.fromEntries(Object.entries(files(USER)).map(([p, t]) => [p.replace(/^user\//, ''), t])));
  alt = folder(files(ALT));
  // a vault with one invalid file (unknown field) beside a valid one
  bad = folder({
    ...files([{ ...ALT[0]!, id: 'mem_20260808_ok01', title: 'Valid beside a broken file' }]),
    'team/facts/mem_20260809_broken01.md': memText({ ...ALT[0]!, id: 'mem_20260809_broken01' }).replace('links: []\n', 'links: []\nextra_field: "x"\n'),
  });
  for (const d of [repo, userRoot, alt, bad]) agePast(d);
  env = cliEnv({ HOME: folder(), ECC_MEMORY_USER_ROOT: userRoot });
  // build every index once, so both paths below see the same (fresh) index state
  const warmUp = [
    ['search', '--scope', 'project', '--scope', 'team', '--scope', 'user'],
    ['search', '--root', alt],
    ['search', '--root', bad],
    ['search', '--scope', 'user', '--user-root', 'relative/path'],
  ];
  for (const args of warmUp) {
    const r = await runBin(args, { cwd: repo, env: { ...env, ECC_VAULT_CLI: 'full' } });
    expect(r.code, r.stderr).toBe(0);
  }
}, 60_000);

type Path = 'lean' | 'full';
/** [expected path, argument list]; functions see the temp folders made in beforeAll. */
const CASES: Array<[Path, () => string[]]> = [
  // search: text and JSON, filters, greedy array flags, limits, roots
  ['lean', () => ['search', 'redis']],
  ['lean', () => ['search', 'redis', '--json']],
  ['lean', () => ['search', '--json', 'redis', 'sessions']],
  ['lean', () => ['search']],
  ['lean', () => ['search', '']],
  ['lean', () => ['search', '123']],
  ['lean', () => ['search', 'nothingmatcheshere']],
  ['lean', () => ['search', '数据库']],
  ['lean', () => ['search', 'redis', '--kind', 'decision', '--kind', 'runbook', '--json']],
  ['lean', () => ['search', '--tag', 'auth', 'redis']], // yargs: tags auth AND redis, empty query
  ['lean', () => ['search', '--tag=redis', '--json']],
  ['lean', () => ['search', '--tag', '']],
  ['lean', () => ['search', '--tag', '1', '2', '--json']],
  ['lean', () => ['search', 'redis', '--limit', '5', 'sessions', '--json']],
  ['lean', () => ['search', '--since', '']],
  ['lean', () => ['search', 'redis', '--scope=team', '--scope', 'user']],
  ['lean', () => ['search', '--status', 'superseded', '--status', 'active', '--json']],
  ['lean', () => ['search', '--target-harness', 'claude', '--json']],
  ['lean', () => ['search', '--since', '2026-08-02', '--until', '2026-08-05']],
  ['lean', () => ['search', '--until', 'yesterday']],
  ['lean', () => ['search', 'redis', '--limit', '1']],
  ['lean', () => ['search', '--limit=2', '--json']],
  ['lean', () => ['search', '--limit', '100']],
  ['lean', () => ['search', '--limit', '0']],
  ['lean', () => ['search', '--limit', '101', '--json']],
  ['lean', () => ['search', '--root', alt, '--json']],
  ['lean', () => ['search', '--root', bad]],
  ['lean', () => ['search', '--root', bad, '--json']],
  ['lean', () => ['search', '--root', join(alt, 'missing')]],
  ['lean', () => ['search', 'tabs', '--scope', 'user', '--user-root', userRoot]],
  ['lean', () => ['search', 'tabs', '--scope', 'user', '--user-root', 'relative/path', '--json']],
  // read: text and JSON, scopes, missing ids, invalid ids, roots, an invalid file in the vault
  ['lean', () => ['read', 'mem_20260801_redis01']],
  ['lean', () => ['read', 'mem_20260903_a41c7e9b2d05f3816c4e', '--json']],
  ['lean', () => ['read', '--json', 'mem_20260805_esc01']],
  ['lean', () => ['read', 'mem_20260801_redis01', '--scope', 'project']],
  ['lean', () => ['read', 'mem_20260801_redis01', '--scope', 'team', '--scope', 'team']],
  ['lean', () => ['read', 'mem_20260899_missing01']],
  ['lean', () => ['read', 'mem_20260899_missing01', '--json']],
  ['lean', () => ['read', 'not an id']],
  ['lean', () => ['read', '123', '--json']],
  ['lean', () => ['read', 'mem_20260807_alt01', '--root', alt]],
  ['lean', () => ['read', 'mem_20260808_ok01', '--root', bad, '--json']],
  ['lean', () => ['read', 'mem_20260899_missing01', '--root', bad]],
  ['lean', () => ['read', 'mem_20260809_broken01', '--root', bad, '--json']],
  ['lean', () => ['read', 'mem_20260806_user01', '--scope', 'user', '--user-root', userRoot]],
  // forms the lean path leaves to yargs (its messages and exit codes)
  ['full', () => ['search', '--help']],
  ['full', () => ['read', '-h']],
  ['full', () => ['search', 'x', '--version']],
  ['full', () => ['search', '--kind', 'nope']],
  ['full', () => ['search', '--kind=decision,note']],
  ['full', () => ['search', '--scope=team', 'redis']], // greedy: "redis" is not a scope
  ['full', () => ['search', '--limit']],
  ['full', () => ['search', '--limit', 'abc']],
  ['full', () => ['search', '--limit', '007']],
  ['full', () => ['search', '--limit', '1.5', '--json']],
  ['full', () => ['search', '--limit', '5', '--limit', '6']],
  ['full', () => ['search', '--since', '2026-01-01', '--since', '2026-02-01']],
  ['full', () => ['search', '--json', '--json', 'redis']],
  ['full', () => ['search', '--json', 'true']],
  ['full', () => ['search', '--json=false', 'redis']],
  ['full', () => ['search', '--bogus', 'redis']],
  ['full', () => ['search', '--no-json', 'redis']],
  ['full', () => ['search', '--', '--json']],
  ['full', () => ['search', '-']],
  ['full', () => ['search', '-5']],
  ['full', () => ['search', '--tag', '-x']],
  ['full', () => ['read']],
  ['full', () => ['read', 'mem_20260801_redis01', 'extra']],
  ['full', () => ['read', '--scope', 'team', 'mem_20260801_redis01']], // greedy: the id is read as a scope
  ['full', () => ['read', 'mem_20260801_redis01', '--kind', 'note']],
  ['full', () => ['read', 'mem_20260801_redis01', '--root', alt, '--root', bad]],
  ['full', () => ['read', 'mem_20260801_redis01', '--json', 'false']],
];

describe('lean start-up path of vault search / vault read', () => {
  it.each(CASES.map(([path, args], i) => [i, path, args] as const))('case %i takes the %s path', (_i, path, args) => {
    expect(parseLeanArgs(args()) === undefined ? 'full' : 'lean').toBe(path);
  });

  it.each(CASES.map(([path, args], i) => [i, path, args] as const))('case %i (%s): same stdout, stderr and exit code as yargs', async (_i, _path, makeArgs) => {
    const args = makeArgs();
    const [full, lean]: RunResult[] = await Promise.all([
      runBin(args, { cwd: repo, env: { ...env, ECC_VAULT_CLI: 'full' } }),
      runBin(args, { cwd: repo, env }),
    ]);
    expect(lean, `vault ${args.join(' ')}`).toEqual(full);
    expect(full.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('the matrix exercises successes and every kind of failure', async () => {
    const codes = new Set<number>();
    for (const args of [
      ['search', 'redis'],
      ['read', 'mem_20260899_missing01'],
      ['read', 'mem_20260899_missing01', '--root', bad],
      ['search', '--kind', 'nope'],
      ['read', 'not an id'],
    ]) {
      codes.add((await runBin(args, { cwd: repo, env })).code);
    }
    expect([...codes].sort()).toEqual([0, 2, 3, 4, 6].filter((c) => codes.has(c)));
    expect(codes.size).toBeGreaterThanOrEqual(4);
  });

  it('the lean bundle loads no package at start-up (yargs never; others only when a command needs them) and holds no import()', () => {
    const text = readFileSync(join(REPO, 'dist', 'cli', 'lean-bundle.cjs'), 'utf8');
    expect(text).not.toMatch(/["']yargs["'/]/);
    expect(text).toContain('parseArgs');
    // a top-level require is a line of its own at column 0; lazy ones sit inside functions
    const topLevel = [...text.matchAll(/^\S.*?\brequire\(["']([^"']+)["']\)/gm)].map((m) => m[1]);
    expect(topLevel.filter((s) => !s!.startsWith('node:'))).toEqual([]);
    expect(text).toContain('require("picocolors")'); // a lazy one is seen (the pattern is right)
    // a script compiled from cached data has no dynamic-import callback (see scripts/build.mjs)
    expect(text).not.toMatch(/\bimport\(/);
  });
});

/** A fresh vault for one save run: the team memories in git, a project scope, a user root, a HOME. */
function saveWorld(): { repo: string; env: Record<string, string>; user: string } {
  const repo = folder({
    ...Object.fromEntries(Object.entries(files(TEAM)).map(([p, t]) => [`.ecc/memory/${p}`, t])),
    '.ecc/memory/project/.gitignore': '*\n!.gitignore\n',
    'body.md': 'A body read from a file.\n',
  });
  git(repo, 'init', '-q', '-b', 'main');
  const user = folder(Object.fromEntries(Object.entries(files(USER)).map(([p, t]) => [p.replace(/^user\//, ''), t])));
  agePast(repo);
  agePast(user);
  return { repo, user, env: cliEnv({ HOME: folder(), ECC_MEMORY_USER_ROOT: user, XDG_CACHE_HOME: folder() }) };
}

/** Every memory file of a world (vault-relative name → text), generated ids and times replaced. */
function savedFiles(w: { repo: string; user: string }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [base, label] of [
    [w.repo, 'repo'],
    [w.user, 'user'],
  ] as const) {
    for (const d of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (d.isFile() && d.name.endsWith('.md') && !d.parentPath.includes('/.git'))
        out[normalizeSave(`${label}${join(d.parentPath, d.name).slice(base.length)}`, w)] = normalizeSave(readFileSync(join(d.parentPath, d.name), 'utf8'), w);
    }
  }
  return out;
}

/** A save's output with what differs between two runs (generated ids, clock, temp folders) replaced. */
function normalizeSave(text: string, w: { repo: string; user: string }): string {
  return text
    .replaceAll(w.repo, '<repo>')
    .replaceAll(w.user, '<user>')
    .replace(/mem_\d{8}_[0-9a-f]{20}/g, '<new-id>')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"<time>"');
}

const GH_TOKEN = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const SLACK_TOKEN = ['xoxb', '2048123456', '4096123456789', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
/** [expected path, argument list, standard input]; `<user>` and `<repo>` in an argument are the world's user root and repository. */
const SAVE_CASES: Array<[Path, string[], string?]> = [
  ['lean', ['save', '--title', 'Cache warm-up', '--body', 'Warm the cache before the deploy.']],
  ['lean', ['save', '--title', 'Cache warm-up', '--body', 'Warm the cache before the deploy.', '--json']],
  ['lean', ['save', '--scope', 'team', '--kind', 'decision', '--title', 'Use Postgres', '--body', 'We use Postgres 16.', '--tag', '#db', 'infra', '--json']],
  ['lean', ['save', '--title', 'Dry', '--body', 'Nothing is written.', '--dry-run']],
  ['lean', ['save', '--title', 'Dry', '--body', 'Nothing is written.', '--dry-run', '--json', '--scope', 'team']],
  ['lean', ['save', '--title', 'With an id', '--id', 'mem_20260901_explicit01', '--body', 'x', '--json']],
  ['lean', ['save', '--title', 'Reused id', '--id', 'mem_20260801_redis01', '--body', 'x']],
  ['lean', ['save', '--title', 'Bad id', '--id', 'not an id', '--body', 'x', '--json']],
  // similar memories: a warning, --json lists them, --unique refuses
  ['lean', ['save', '--scope', 'team', '--title', 'Sessions live in Redis', '--body', 'Sessions are stored in Redis now.']],
  ['lean', ['save', '--scope', 'team', '--title', 'sessions LIVE in redis!', '--body', 'Sessions are stored in Redis now.', '--json']],
  ['lean', ['save', '--scope', 'team', '--title', 'Sessions live in Redis', '--body', 'again', '--unique']],
  ['lean', ['save', '--scope', 'team', '--title', 'Sessions live in Redis', '--body', 'again', '--unique', '--json']],
  // secrets: one our shapes find, one only secretlint's rules find
  ['lean', ['save', '--title', 'Token', '--body', `the token is ${GH_TOKEN}`]],
  ['lean', ['save', '--title', 'Token', '--body', `the token is ${GH_TOKEN}`, '--json']],
  ['lean', ['save', '--title', `Slack ${SLACK_TOKEN}`, '--body', 'x']],
  ['lean', ['save', '--title', 'Tagged', '--tag', GH_TOKEN, '--body', 'x', '--json']],
  // field rules and body sources
  ['lean', ['save', '--title', '', '--body', 'x']],
  ['lean', ['save', '--title', ' ', '--body', 'x', '--json']],
  ['lean', ['save', '--title', 'No body']],
  ['lean', ['save', '--title', 'Two bodies', '--body', 'x', '--stdin']],
  ['lean', ['save', '--title', 'From a file', '--body-file', 'body.md']],
  ['lean', ['save', '--title', 'Missing file', '--body-file', 'nope.md', '--json']],
  ['lean', ['save', '--title', 'From stdin', '--stdin', '--json'], 'Body from standard input.\n'],
  ['lean', ['save', '--title', 'Empty stdin', '--stdin']],
  ['lean', ['save', '--kind', 'runbook', '--template', '--section', 'When to use=Disk full', '--section', 'Steps=1. df -h', '--title', 'Free disk']],
  ['lean', ['save', '--title', 'Sections', '--section', 'A=b', '--body', 'x']],
  ['lean', ['save', '--title', 'Linked', '--scope', 'team', '--link', 'mem_20260801_redis01', '--wikilinks', '--body', 'See the decision.', '--json']],
  ['lean', ['save', '--title', 'Broken link', '--link', 'mem_20260899_missing01', '--body', 'x']],
  ['lean', ['save', '--title', 'Wikilinks alone', '--wikilinks', '--body', 'x']],
  ['lean', ['save', '--title', 'Harness', '--source-harness', 'codex', '--target-harness', 'claude', 'gemini', '--body', 'x', '--json']],
  ['lean', ['save', '--scope', 'user', '--kind', 'preference', '--title', 'I prefer tabs', '--body', 'Tabs.', '--user-root', '<user>']],
  ['lean', ['save', '--title', 'Another vault', '--body', 'x', '--root', '<repo>/other', '--json']],
  ['lean', ['save', '--title', 'Not a folder', '--body', 'x', '--root', '<repo>/body.md']],
  ['lean', ['save', '--title', 'Huge', '--body', 'x'.repeat(70_000)]],
  // forms left to yargs
  ['full', ['save', '--title', 'Bad kind', '--body', 'x', '--kind', 'nope']],
  ['full', ['save', '--title', 'Bad scope', '--body', 'x', '--scope', 'global', '--json']],
  ['full', ['save', '--body', 'no title']],
  ['full', ['save', '--title', 'a', '--title', 'b', '--body', 'x']],
  ['full', ['save', '--title', 'Stray', 'word', '--body', 'x']],
  ['full', ['save', '--title', 'Dry', '--body', 'x', '--dry-run', 'true']],
  ['full', ['save', '--help']],
  ['full', ['save', '--titel', 'x', '--body', 'x']],
  ['full', ['save', '--title', 'Dash', '--body', '-x']],
  ['full', ['save', '--title']],
];

describe('lean start-up path of vault save', () => {
  it.each(SAVE_CASES.map(([path, args], i) => [i, path, args] as const))('save case %i takes the %s path', (_i, path, args) => {
    expect(parseLeanArgs(args) === undefined ? 'full' : 'lean').toBe(path);
  });

  it.each(SAVE_CASES.map(([path, args, input], i) => [i, path, args, input] as const))(
    'save case %i (%s): same stdout, stderr, exit code and files as yargs',
    async (_i, _path, args, input) => {
      const worlds = [saveWorld(), saveWorld()];
      const [full, lean] = await Promise.all(
        worlds.map((w, n) =>
          runBin(
            args.map((a) => a.replaceAll('<user>', w.user).replaceAll('<repo>', w.repo)),
            { cwd: w.repo, env: n === 0 ? { ...w.env, ECC_VAULT_CLI: 'full' } : w.env, ...(input !== undefined ? { input } : {}) },
          ),
        ),
      );
      const shown = (r: RunResult, w: (typeof worlds)[number]) => ({ ...r, stdout: normalizeSave(r.stdout, w), stderr: normalizeSave(r.stderr, w) });
      expect(shown(lean!, worlds[1]!), `vault ${args.join(' ').slice(0, 200)}`).toEqual(shown(full!, worlds[0]!));
      expect(savedFiles(worlds[1]!)).toEqual(savedFiles(worlds[0]!));
      expect(full!.stderr).not.toMatch(/internal error|\n\s+at /);
    },
  );

  it('the save matrix covers written, refused and dry-run saves, and every exit code a save gives', async () => {
    const codes = new Set<number>();
    for (const [, args] of SAVE_CASES.filter(([p]) => p === 'lean')) {
      const w = saveWorld();
      codes.add(
        (
          await runBin(
            args.map((a) => a.replaceAll('<user>', w.user).replaceAll('<repo>', w.repo)),
            { cwd: w.repo, env: w.env },
          )
        ).code,
      );
    }
    expect([...codes].sort((a, b) => a - b)).toEqual([0, 2, 3, 5, 6, 7].filter((c) => codes.has(c)));
    expect([0, 2, 3, 5].every((c) => codes.has(c))).toBe(true);
  }, 120_000);
});
