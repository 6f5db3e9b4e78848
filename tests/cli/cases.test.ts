/**
 * The CLI's plain behaviour cases (save, read, roots) as one table: each case is one `vault` invocation in a fresh git
 * repo made from `files`, with its stdin and environment, and the exit code and stdout/stderr it
 * must give. Every case runs in-process through `main(argv, io)`; the cases marked `bin` run
 * through the real binary too and must give the same answer there. Flows of several commands
 * (save, then read; worktrees; races) stay in the topic files beside this one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, type RunOptions, type RunResult, runBin, runCli } from '../helpers/cli.js';

interface CliCase {
  name: string;
  args: string[];
  /** files of the temp git repo the command runs in (relative path → content) */
  files?: Record<string, string | Buffer>;
  /** files of the user scope (relative to its root, the test HOME's ~/.ecc/memory) */
  userFiles?: Record<string, string | Buffer>;
  /** what `files` cannot say: links, FIFOs, folders */
  setup?: (repo: string) => void;
  stdin?: string | Buffer;
  /** added to (undefined: removed from) the test environment of {@link cliEnv} */
  env?: Record<string, string | undefined>;
  exit: number;
  /** exact text, or a pattern; for exit 2 the default is '' */
  stdout?: string | RegExp;
  stderr?: string | RegExp;
  /** for an error: the hint line after it (exact text or a pattern) */
  hint?: string | RegExp;
  /** text that must appear in neither stream (a secret, a pasted value) */
  never?: string[];
  /** repo-relative paths that must not exist afterwards (a failed command also adds no memory file) */
  absent?: string[];
  /** repo-relative paths that must exist afterwards */
  present?: string[];
  /** repo-relative working directory (made if missing; default: the repo) */
  cwd?: string;
  /** run through the real binary as well */
  bin?: boolean;
}

/** A canonical memory document (id, scope folder and kind as given). */
const doc = (id: string, scope = 'team', kind = 'note') =>
  `---\nschema: "ecc.memory.v1"\nid: "${id}"\ntitle: "ok"\nkind: "${kind}"\nscope: "${scope}"\ntrust: "unreviewed"\nstatus: "active"\nsource_harness: "claude"\ntarget_harnesses: ["all"]\ntags: []\nlinks: []\ncreated_at: "2026-07-25T09:30:00.000Z"\nupdated_at: "2026-07-25T09:30:00.000Z"\n---\n\nbody\n`;
const notes = (name: string) => `.ecc/memory/team/notes/${name}`;

const ghToken = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const save = (...args: string[]) => ['save', '--title', 't', '--body', 'b', ...args];

const CASES: CliCase[] = [
  // usage errors: exit 2, one clear line (at most a hint after it), nothing written
  { name: 'save without a title', args: ['save', '--body', 'b'], exit: 2, stderr: /title/, bin: true },
  { name: 'save without a body source', args: ['save', '--title', 't'], exit: 2, stderr: /exactly one body source/ },
  { name: 'save with --body and --stdin', args: save('--stdin'), exit: 2, stderr: /exactly one body source/ },
  { name: 'save with --body and --body-file', args: save('--body-file', 'x'), exit: 2, stderr: /exactly one body source/ },
  { name: 'save --trust reviewed', args: save('--trust', 'reviewed'), exit: 2, stderr: /^error: unknown flag --trust$/ },
  { name: 'save --status superseded', args: save('--status', 'superseded'), exit: 2, stderr: /^error: unknown flag --status$/ },
  { name: 'save --trust=reviewed', args: save('--trust=reviewed'), exit: 2, stderr: /^error: unknown flag --trust$/ },
  { name: 'save --status=rejected', args: save('--status=rejected'), exit: 2, stderr: /^error: unknown flag --status$/ },
  { name: 'save --trust (no value)', args: save('--trust'), exit: 2, stderr: /^error: unknown flag --trust$/ },
  { name: 'save --no-trust', args: save('--no-trust'), exit: 2, stderr: /^error: unknown flag --no-trust$/ },
  { name: 'save --kind twice', args: save('--kind', 'note', '--kind', 'fact'), exit: 2, stderr: /--kind may be given only once/ },
  { name: 'save --title twice', args: ['save', '--title', 't', '--title', 'u', '--body', 'b'], exit: 2, stderr: /--title may be given only once/ },
  { name: 'save with a stray argument', args: save('stray'), exit: 2, stderr: /Unknown argument: stray/ },
  { name: 'an unknown command', args: ['frobnicate'], exit: 2, stderr: /^error: unknown command "frobnicate"$/, hint: /vault --help/, bin: true },
  // a did-you-mean only when one command is a slip away, and never instead of "unknown command"
  { name: 'an unknown command far from every command', args: ['bogus'], exit: 2, stderr: 'error: unknown command "bogus"', never: ['hooks?'] },
  {
    name: 'an unknown command is quoted short, never as pasted',
    args: [`x${'y'.repeat(5000)}`],
    exit: 2,
    stderr: `error: unknown command "x${'y'.repeat(39)}…"`,
  },
  { name: 'an unknown command that is a credential is not echoed', args: [ghToken], exit: 2, stderr: /^error: unknown command/, never: [ghToken.slice(0, 24)] },
  {
    name: 'an unknown flag that is a credential is not echoed',
    args: ['save', `--${ghToken}${ghToken}`],
    exit: 2,
    stderr: /^error: unknown flag --/,
    never: [ghToken.slice(4, 24)],
  },
  // a missing positional is named in the command's terms, not as yargs counts non-option arguments
  {
    name: 'read without an id',
    args: ['read'],
    exit: 2,
    stderr: 'error: missing <id>: the command is vault read <id>',
    hint: 'hint: run `vault read --help` for its arguments and flags',
    never: ['non-option'],
    bin: true,
  },
  // a flag that takes a value, given none, is refused: never run as if the flag were not there
  {
    name: 'search with --kind and no value',
    args: ['search', 'redis', '--kind'],
    exit: 2,
    stderr: 'error: --kind needs a value',
    hint: 'hint: run `vault search --help` for its arguments and flags',
    bin: true,
  },
  {
    name: 'search with --limit followed by a flag',
    args: ['search', 'redis', '--limit', '--fresh'],
    exit: 2,
    stderr: 'error: --limit needs a value',
    bin: true,
  },
  {
    name: 'read with --scope and no value',
    args: ['read', 'mem_20260726_0123456789abcdef0123', '--scope'],
    exit: 2,
    stderr: 'error: --scope needs a value',
    bin: true,
  },
  { name: 'save with --title and no value', args: ['save', '--title'], exit: 2, stderr: 'error: --title needs a value' },
  { name: 'search with --kind= (an empty value)', args: ['search', 'redis', '--kind='], exit: 2, stderr: 'error: --kind needs a value', bin: true },
  { name: 'search with --scope= (an empty value)', args: ['search', 'redis', '--scope='], exit: 2, stderr: 'error: --scope needs a value' },
  // a single-value flag given twice is refused, never added up (yargs reads `--limit 3 --limit 1` as 4)
  {
    name: 'search with --limit twice, the last 1',
    args: ['search', 'redis', '--limit', '3', '--limit', '1'],
    exit: 2,
    stderr: 'error: --limit may be given only once',
    bin: true,
  },
  { name: 'search with --root twice', args: ['search', 'redis', '--root', 'a', '--root', 'b'], exit: 2, stderr: 'error: --root may be given only once' },
  {
    name: 'sessions without an action',
    args: ['sessions'],
    exit: 2,
    stderr: 'error: missing <action>: the command is vault sessions <action> [target..]',
    never: ['non-option'],
  },
  { name: 'a misspelt command', args: ['serch', 'redis'], exit: 2, stderr: 'error: unknown command "serch"; did you mean `vault search`?', bin: true },
  {
    name: 'a misspelt command after a global flag',
    args: ['--root', 'v', 'hoks'],
    exit: 2,
    stderr: /^error: unknown command "hoks"; did you mean `vault hooks`\?$/,
  },
  // a misspelt flag is unknown (with a did-you-mean), not a missing --title
  {
    name: 'save --titel is an unknown flag, not a missing --title',
    args: ['save', '--titel', 'x', '--body', 'b'],
    exit: 2,
    stderr: 'error: unknown flag --titel; did you mean --title?',
    hint: 'hint: run `vault save --help` for its flags',
    never: ['Missing required'],
    bin: true,
  },
  {
    name: 'search --limti (lean path defers, yargs answers)',
    args: ['search', 'x', '--limti', '3'],
    exit: 2,
    stderr: 'error: unknown flag --limti; did you mean --limit?',
    bin: true,
  },
  {
    name: 'hooks install --dryrun',
    args: ['hooks', 'install', '--harness', 'codex', '--dryrun'],
    exit: 2,
    stderr: /unknown flag --dryrun; did you mean --dry-run\?$/,
  },
  { name: 'a value that looks like a flag is not a flag', args: ['save', '--title=t', '--body=--titel', '--dry-run'], exit: 0, stdout: /^Dry run/ },
  // one wording and one exit code for every bad --limit (lean path and yargs alike)
  ...['abc', '0', '101', '1.5', '-3'].map(
    (v): CliCase => ({
      name: `search --limit ${v}`,
      args: ['search', 'x', `--limit=${v}`],
      exit: 2,
      stderr: 'error: --limit must be a whole number from 1 to 100',
      hint: 'hint: e.g. --limit 20',
      bin: v === 'abc' || v === '0',
    }),
  ),
  { name: 'save --kind nope names the flag', args: save('--kind', 'nope'), exit: 2, stderr: /unknown --kind value "nope"; did you mean note\?/ },
  { name: 'save --scope global names the flag', args: save('--scope', 'global'), exit: 2, stderr: /unknown --scope value "global"/ },
  {
    name: 'search --scope user tabs: the query taken as another --scope value, and the hint says to put it first',
    args: ['search', '--scope', 'user', 'tabs'],
    exit: 2,
    stderr: /unknown --scope value "tabs"/,
    hint: /words after --scope count as more --scope values: put the query first \(`vault search tabs --scope user`\)/,
  },

  // invalid input: exit 3, nothing written
  ...['BAD', 'mem_../../etc/passwd', 'mem_a', 'mem_has space', `mem_${'a'.repeat(129)}`, 'note_123'].map(
    (id): CliCase => ({ name: `save --id ${id.slice(0, 24)}`, args: save('--id', id), exit: 3, stderr: /^error: id: memory id must match/ }),
  ),
  {
    name: 'save --stdin with non-UTF-8 bytes',
    args: ['save', '--title', 't', '--stdin'],
    stdin: Buffer.from([0xff, 0xfe, 0x41]),
    exit: 3,
    stderr: /UTF-8/,
    bin: true,
  },
  {
    name: 'save --stdin with only whitespace',
    args: ['save', '--title', 't', '--stdin'],
    stdin: '  \n',
    exit: 3,
    stderr: 'error: body: must contain non-whitespace content',
  },
  {
    name: 'save --stdin over 64 KiB',
    args: ['save', '--title', 'big', '--stdin'],
    stdin: 'x'.repeat(65537),
    exit: 3,
    stderr: /body: is too large \(65537 bytes, maximum 65536/,
    bin: true,
  },
  {
    name: 'save --body-file through a symbolic link',
    args: ['save', '--title', 't', '--body-file', 'link.md'],
    files: { 'real.md': 'secret plans' },
    setup: (repo) => symlinkSync(join(repo, 'real.md'), join(repo, 'link.md')),
    exit: 3,
    stderr: /^error: .*symbolic link/,
    never: ['secret plans'],
  },
  { name: 'save --body-file missing', args: ['save', '--title', 't', '--body-file', 'missing.md'], exit: 3, stderr: /^error: .*does not exist/ },
  {
    name: 'save --body-file naming a folder',
    args: ['save', '--title', 't', '--body-file', 'folder'],
    setup: (repo) => mkdirSync(join(repo, 'folder')),
    exit: 3,
    stderr: /^error: .*not a regular file/,
  },
  {
    name: 'save --body-file naming a FIFO without a writer (opened without blocking, given up after a bounded wait)',
    args: ['save', '--title', 't', '--body-file', 'fifo'],
    setup: (repo) => expect(spawnSync('mkfifo', [join(repo, 'fifo')]).status).toBe(0),
    exit: 3,
    stderr: /^error: .*named pipe that got no writer/,
  },
  {
    name: 'save --body-file in Latin-1',
    args: ['save', '--title', 't', '--body-file', 'latin1.txt'],
    files: { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) },
    exit: 3,
    stderr: /^error: .*UTF-8/,
  },
  {
    name: 'save refuses a GitHub token without echoing it',
    args: ['save', '--scope', 'team', '--title', 'creds', '--body', `token is ${ghToken}`],
    exit: 3,
    stderr: /GitHub token in body/,
    never: [ghToken],
    bin: true,
  },
  { name: 'a dry run still applies every rule', args: ['save', '--title', ' ', '--body', 'b', '--dry-run'], exit: 3, absent: ['.ecc'] },

  // file system: exit 7
  {
    name: 'save refuses a project .gitignore that is not fail-closed',
    args: save(),
    files: { '.ecc/memory/project/.gitignore': '*.md\n' },
    exit: 7,
    stderr: /fail-closed/,
    absent: ['.ecc/memory/project/notes'],
    bin: true,
  },

  // read: documents other tools wrote, and fail-closed lookups
  {
    name: 'read a document with a BOM (readable, not canonical)',
    args: ['read', 'mem_with_bom', '--json'],
    files: { [notes('mem_with_bom.md')]: `\ufeff${doc('mem_with_bom')}` },
    exit: 0,
    stdout: /"id": "mem_with_bom",[\s\S]*"body": "body",[\s\S]*"canonical": false/,
  },
  {
    name: 'read --json uses the file field names, then the deprecated camelCase aliases',
    args: ['read', 'mem_snake', '--json'],
    files: { [notes('mem_snake.md')]: doc('mem_snake') },
    exit: 0,
    stdout:
      /^\{\n {2}"schema": "ecc\.memory\.v1",\n {2}"id": "mem_snake",\n {2}"title": "ok",\n {2}"kind": "note",\n {2}"scope": "team",\n {2}"trust": "unreviewed",\n {2}"status": "active",\n {2}"source_harness": "claude",\n {2}"target_harnesses": \[\n {4}"all"\n {2}\],\n {2}"tags": \[\],\n {2}"links": \[\],\n {2}"created_at": "2026-07-25T09:30:00\.000Z",\n {2}"updated_at": "2026-07-25T09:30:00\.000Z",\n {2}"body": "body",\n {2}"path": "team\/notes\/mem_snake\.md",\n {2}"canonical": true,\n {2}"backlinks": \[\],\n {2}"sourceHarness": "claude",\n {2}"targetHarnesses": \[\n {4}"all"\n {2}\],\n {2}"createdAt": "2026-07-25T09:30:00\.000Z",\n {2}"updatedAt": "2026-07-25T09:30:00\.000Z"\n\}\n$/,
    bin: true,
  },
  {
    name: 'read a document with CRLF line endings (readable, not canonical)',
    args: ['read', 'mem_with_crlf', '--json'],
    files: { [notes('mem_with_crlf.md')]: doc('mem_with_crlf').replace(/\n/g, '\r\n') },
    exit: 0,
    stdout: /"id": "mem_with_crlf",[\s\S]*"body": "body",[\s\S]*"canonical": false/,
    bin: true,
  },
  {
    name: 'read fails closed while a file that may be the memory is not valid UTF-8',
    args: ['read', 'mem_with_bom'],
    files: {
      [notes('mem_with_bom.md')]: `\ufeff${doc('mem_with_bom')}`,
      [notes('mem_bad_utf8.md')]: Buffer.concat([Buffer.from(doc('mem_bad_utf8')), Buffer.from([0xff])]),
    },
    exit: 6,
    stderr: /^error: memory lookup is incomplete/,
    bin: true,
  },
  {
    name: 'read an id that is not there',
    args: ['read', 'mem_20260101_missing01'],
    files: { [notes('mem_other.md')]: doc('mem_other') },
    exit: 4,
    stderr: /was not found/,
    bin: true,
  },
  { name: 'read an invalid id', args: ['read', 'not an id'], exit: 3, stderr: /^error: id: memory id must match/ },
  {
    name: 'read --scope user does not look at the team scope',
    args: ['read', 'mem_team_only', '--scope', 'user'],
    files: { [notes('mem_team_only.md')]: doc('mem_team_only') },
    exit: 4,
  },

  // the "incomplete" hint names the scopes that were read, so doctor checks the same ones
  {
    name: 'read --scope user, incomplete: the hint names vault doctor --scope user',
    args: ['read', 'mem_mine', '--scope', 'user'],
    // a broken file that could be the memory (it names the id): an unrelated one would not block the read
    userFiles: { 'notes/mem_mine.md': doc('mem_mine', 'user'), 'notes/mem_broken.md': 'not a memory, but mentions mem_mine\n' },
    exit: 6,
    stderr: /^error: memory lookup is incomplete/,
    hint: /^hint: run `vault doctor --scope user` and fix/,
  },
  {
    name: 'read, incomplete: the hint names the default scopes',
    args: ['read', 'mem_with_bom'],
    files: { [notes('mem_with_bom.md')]: 'not a memory\n' },
    exit: 6,
    hint: /^hint: run `vault doctor --scope project --scope team` and fix/,
  },
  {
    name: 'search over an invalid file: the warning names the scopes for doctor',
    args: ['search', 'ok', '--scope', 'team', '--scope', 'user'],
    files: { [notes('mem_valid.md')]: doc('mem_valid'), [notes('mem_broken.md')]: 'not a memory\n' },
    exit: 0,
    stdout: /^1\. ok\n/,
    stderr: /^warning: 1 invalid file\(s\) not searched \(first: team\/notes\/mem_broken\.md: .*\); run `vault doctor --scope team --scope user`\n$/,
  },
  // share has no --scope flag: a user-scope id is named as such, and no hint offers a flag share lacks
  {
    name: 'share a user-scope memory',
    args: ['share', 'mem_mine'],
    userFiles: { 'notes/mem_mine.md': doc('mem_mine', 'user') },
    exit: 3,
    stderr: 'error: memory mine is in the user scope; share moves a project memory into the team scope'.replace('mine', 'mem_mine'),
    hint: /vault save --scope project/,
    never: ['add --scope user'],
  },
  {
    name: 'share an id that is nowhere',
    args: ['share', 'mem_nowhere'],
    exit: 4,
    stderr: 'error: memory mem_nowhere was not found in scopes project, team',
    never: ['--scope user'],
  },
  // a search that finds nothing says what would have matched
  {
    name: 'search finding nothing names matches in the user scope',
    args: ['search', 'pnpm'],
    files: { [notes('mem_tagged.md')]: doc('mem_tagged') },
    userFiles: { 'notes/mem_mine.md': doc('mem_mine', 'user').replace('\nbody\n', '\nAlways use pnpm.\n') },
    exit: 0,
    stdout: 'no memories match "pnpm"\n',
    stderr: 'hint: 1 memory in the user scope would match; add --scope user (user scope is searched only when asked)\n',
  },
  {
    name: 'search --tag with capitals still finds the lowercase tag',
    args: ['search', '--tag', 'Auth', '--tag', '#DB'],
    files: { [notes('mem_tagged.md')]: doc('mem_tagged').replace('tags: []', 'tags: ["auth","db"]') },
    exit: 0,
    stdout: /^1\. ok\n {3}mem_tagged · note · team · 2026-07-25 · #auth #db\n/,
    stderr: '',
    bin: true,
  },
  {
    name: 'search finding nothing with a filter names the user scope too',
    args: ['search', '--kind', 'preference'],
    files: { [notes('mem_tagged.md')]: doc('mem_tagged') },
    userFiles: { 'preferences/mem_mine.md': doc('mem_mine', 'user', 'preference') },
    exit: 0,
    stdout: 'no memories\n',
    stderr: 'hint: 1 memory in the user scope would match; add --scope user (user scope is searched only when asked)\n',
  },
  {
    name: 'search that finds something gives no near-miss hint',
    args: ['search', 'ok'],
    files: { [notes('mem_tagged.md')]: doc('mem_tagged') },
    userFiles: { 'notes/mem_mine.md': doc('mem_mine', 'user') },
    stdout: /^1\. ok\n[\s\S]*1 of 1 memory\n$/,
    exit: 0,
    stderr: '',
  },

  // roots: environment, flags, subfolders
  {
    name: 'ECC_MEMORY_PROJECT_ROOT (relative to the working directory) holds team and project',
    args: save('--scope', 'team', '--id', 'mem_roots_env1'),
    env: { ECC_MEMORY_PROJECT_ROOT: 'elsewhere/vault' },
    exit: 0,
    present: ['elsewhere/vault/team/notes/mem_roots_env1.md'],
    absent: ['.ecc'],
  },
  {
    name: 'ECC_MEMORY_USER_ROOT (relative) is refused: it would put private memories in the repository',
    args: save('--scope', 'user', '--id', 'mem_roots_user1'),
    env: { ECC_MEMORY_USER_ROOT: 'elsewhere/me' },
    exit: 3,
    stderr: /^error: ECC_MEMORY_USER_ROOT must be an absolute path \(got "elsewhere\/me"\)/,
    absent: ['elsewhere', '.ecc'],
  },
  {
    name: '--root wins over ECC_MEMORY_PROJECT_ROOT',
    args: save('--scope', 'team', '--id', 'mem_roots_flag1', '--root', 'flag-vault'),
    env: { ECC_MEMORY_PROJECT_ROOT: 'env-vault' },
    exit: 0,
    present: ['flag-vault/team/notes/mem_roots_flag1.md'],
    absent: ['env-vault', '.ecc'],
  },
  {
    name: 'a save from a subfolder goes to the repository root vault',
    args: save('--scope', 'team', '--kind', 'decision', '--id', 'mem_roots_deep1'),
    cwd: 'src/deep/er',
    exit: 0,
    stdout:
      /^Saved unreviewed decision mem_roots_deep1\n {2}path: team\/decisions\/mem_roots_deep1\.md\n {2}commit it: git add \.ecc\/memory\/team\/decisions\/mem_roots_deep1\.md\n$/,
    present: ['.ecc/memory/team/decisions/mem_roots_deep1.md'],
    absent: ['src/deep/er/.ecc'],
    bin: true,
  },
  { name: '--root given twice', args: save('--root', 'a', '--root', 'b'), exit: 2, stderr: /--root may be given only once/, absent: ['a', 'b'] },
  {
    name: '--user-root given twice',
    args: save('--scope', 'user', '--user-root', 'a', '--user-root', 'b'),
    exit: 2,
    stderr: /--user-root may be given only once/,
    absent: ['a', 'b'],
  },

  // successes that must write nothing, or write what they say
  {
    name: 'save --dry-run --json writes nothing, not even folders',
    args: ['save', '--scope', 'team', '--title', 't', '--body', 'b', '--dry-run', '--json'],
    exit: 0,
    stdout: /"scope": "team",[\s\S]*"written": false/,
    absent: ['.ecc'],
  },
  {
    name: 'ECC_DRY_RUN=1 is a dry run',
    args: save(),
    env: { ECC_DRY_RUN: '1' },
    exit: 0,
    stdout: /^Dry run: would save unreviewed note mem_/,
    absent: ['.ecc'],
    bin: true,
  },
  {
    name: 'look-alikes of credentials are not refused',
    args: ['save', '--title', 'Where the keys live', '--stdin'],
    stdin: 'task-aaaaaaaaaaaaaaaaaaaaaaaa is a task id. sk-short. The API key is in 1Password (Deploy/API); rotate with `make rotate-keys`.',
    exit: 0,
    stdout: /^Saved unreviewed note mem_/,
  },
];

function memoryFiles(repo: string): string[] {
  const dir = join(repo, '.ecc');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
}

function expectText(actual: string, expected: string | RegExp | undefined, stream: string): void {
  if (expected === undefined) return;
  if (typeof expected === 'string') expect(actual, stream).toBe(expected);
  else expect(actual, stream).toMatch(expected);
}

async function check(c: CliCase, run: (args: string[], opts: RunOptions) => Promise<RunResult>): Promise<void> {
  const repo = gitRepo(c.files ?? {});
  c.setup?.(repo);
  const before = memoryFiles(repo);
  const cwd = join(repo, c.cwd ?? '');
  mkdirSync(cwd, { recursive: true });
  const env = cliEnv(c.env ?? {});
  for (const [rel, content] of Object.entries(c.userFiles ?? {})) {
    const p = join(env.ECC_MEMORY_USER_ROOT!, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  const r = await run(c.args, { cwd, env, ...(c.stdin !== undefined ? { input: c.stdin } : {}) });
  expect(r.code, `${r.stdout}${r.stderr}`).toBe(c.exit);
  expectText(r.stdout, c.stdout ?? (c.exit === 2 ? '' : undefined), 'stdout');
  if (c.exit !== 0) {
    // an error is one line, `error: ...` (what `stderr` describes), and at most a hint; never a stack trace
    const lines = r.stderr.trimEnd().split('\n');
    expectText(lines[0]!, c.stderr, 'stderr');
    expect(lines[0]).toMatch(/^error: \S/);
    expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
    if (lines[1] !== undefined) expect(lines[1]).toMatch(/^hint: /);
    if (c.hint !== undefined) expectText(lines[1] ?? '', c.hint, 'hint');
    expect(memoryFiles(repo)).toEqual(before); // nothing written
  } else expectText(r.stderr, c.stderr, 'stderr');
  for (const text of c.never ?? []) expect(r.stdout + r.stderr).not.toContain(text);
  for (const p of c.absent ?? []) expect(existsSync(join(repo, p)), p).toBe(false);
  for (const p of c.present ?? []) expect(existsSync(join(repo, p)), p).toBe(true);
}

describe('CLI behaviour cases (in-process)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => check(c, runCli));
});

describe('CLI behaviour cases through the real binary', () => {
  const marked = CASES.filter((c) => c.bin);
  it('covers every exit code of the table', () => {
    expect(new Set(marked.map((c) => c.exit))).toEqual(new Set(CASES.map((c) => c.exit)));
  });
  it.each(marked.map((c) => [c.name, c] as const))('%s', async (_name, c) => check(c, runBin));
});
