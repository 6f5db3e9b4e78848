/**
 * `vault save` through the real binary: body sources, usage errors, dry runs, explicit ids,
 * trust/status that no flag can set, and suspected secrets of every built-in shape.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => !d.isDirectory())
    .map((d) => join(d.parentPath, d.name));
}

function memoryFiles(repo: string): string[] {
  return filesUnder(join(repo, '.ecc')).filter((f) => f.endsWith('.md'));
}

describe('vault save: body sources', () => {
  it('reads the body from --body-file and from --stdin', async () => {
    const repo = gitRepo({ 'notes/body.md': '# Decision\n\nUse **Redis**; 中文 ok.\n' });
    const env = cliEnv();
    const fromFile = await runCli(['save', '--title', 'from file', '--body-file', 'notes/body.md', '--json'], { cwd: repo, env });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const fromStdin = await runCli(['save', '--title', 'from stdin', '--stdin', '--json'], { cwd: repo, env, input: '\n  piped body\twith tab  \n\n' });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const a = await runCli(['read', JSON.parse(fromFile.stdout).id, '--json'], { cwd: repo, env });
    const b = await runCli(['read', JSON.parse(fromStdin.stdout).id, '--json'], { cwd: repo, env });
    expect(JSON.parse(a.stdout).body).toBe('# Decision\n\nUse **Redis**; 中文 ok.');
    expect(JSON.parse(b.stdout).body).toBe('piped body\twith tab');
  });

  it('refuses a symlinked, missing, non-regular or non-UTF-8 --body-file, and writes nothing', async () => {
    const repo = gitRepo({ 'real.md': 'secret plans', 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    symlinkSync(join(repo, 'real.md'), join(repo, 'link.md'));
    mkdirSync(join(repo, 'folder'));
    const env = cliEnv();
    const cases: Array<[string, RegExp]> = [
      ['link.md', /symbolic link/],
      ['missing.md', /does not exist/],
      ['folder', /not a regular file/],
      ['latin1.txt', /UTF-8/],
    ];
    if (spawnSync('mkfifo', [join(repo, 'fifo')]).status === 0) cases.push(['fifo', /not a regular file/]);
    const results = await Promise.all(cases.map(([file]) => runCli(['save', '--title', 't', '--body-file', file], { cwd: repo, env, timeoutMs: 15_000 })));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]![0]}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(cases[i]![1]);
      expect(r.stderr.split('\n')[0]).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });
    expect(memoryFiles(repo)).toEqual([]);
  });

  it('refuses non-UTF-8 and empty standard input', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const bad = await runCli(['save', '--title', 't', '--stdin'], { cwd: repo, env, input: Buffer.from([0xff, 0xfe, 0x41]) });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/UTF-8/);
    const empty = await runCli(['save', '--title', 't', '--stdin'], { cwd: repo, env, input: '  \n' });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/body: must contain non-whitespace/);
    expect(memoryFiles(repo)).toEqual([]);
  });
});

describe('vault save: usage errors exit 2 with one clear line', () => {
  const cases: Array<{ args: string[]; stderr: RegExp }> = [
    { args: ['save', '--body', 'b'], stderr: /title/ },
    { args: ['save', '--title', 't'], stderr: /exactly one body source/ },
    { args: ['save', '--title', 't', '--body', 'b', '--stdin'], stderr: /exactly one body source/ },
    { args: ['save', '--title', 't', '--body', 'b', '--body-file', 'x'], stderr: /exactly one body source/ },
    { args: ['save', '--title', 't', '--body', 'b', '--trust', 'reviewed'], stderr: /Unknown argument: trust/ },
    { args: ['save', '--title', 't', '--body', 'b', '--status', 'superseded'], stderr: /Unknown argument: status/ },
    { args: ['save', '--title', 't', '--body', 'b', '--kind', 'note', '--kind', 'fact'], stderr: /--kind may be given only once/ },
    { args: ['save', '--title', 't', '--title', 'u', '--body', 'b'], stderr: /--title may be given only once/ },
    { args: ['save', '--title', 't', '--body', 'b', 'stray'], stderr: /Unknown argument: stray/ },
    { args: ['frobnicate'], stderr: /Unknown argument: frobnicate/ },
    { args: ['read'], stderr: /arguments/ },
  ];
  it.each(cases.map((c) => [c.args.join(' '), c] as const))('%s', async (_name, c) => {
    const repo = gitRepo();
    const r = await runCli(c.args, { cwd: repo, env: cliEnv() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: \S/);
    expect(lines[0]).toMatch(c.stderr);
    // the error is one line; at most a hint follows
    expect(lines.length).toBeLessThanOrEqual(2);
    if (lines[1] !== undefined) expect(lines[1]).toMatch(/^hint: /);
    expect(memoryFiles(repo)).toEqual([]);
  });

  it('an invalid --kind or --scope choice is a usage error naming the flag', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const args of [
      ['--kind', 'nope'],
      ['--scope', 'global'],
    ]) {
      const r = await runCli(['save', '--title', 't', '--body', 'b', ...args], { cwd: repo, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
      // NOTE: yargs words this over two lines ("Invalid values:\n  Argument: kind, ..."); the
      // fail handler in src/cli/main.ts should join them (reported to the lead).
      expect(r.stderr).toMatch(new RegExp(`Argument: ${args[0]!.slice(2)}, Given: "${args[1]}"`));
    }
    expect(memoryFiles(repo)).toEqual([]);
  });

  it('trust and status cannot be set by any flag: a save is always unreviewed and active', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const flag of ['--trust=reviewed', '--status=rejected', '--trust', '--no-trust']) {
      const r = await runCli(['save', '--title', 't', '--body', 'b', flag], { cwd: repo, env });
      expect(r.code, flag).toBe(2);
    }
    const ok = await runCli(['save', '--title', 't', '--body', 'b', '--json'], { cwd: repo, env });
    const text = readFileSync(join(repo, '.ecc/memory', JSON.parse(ok.stdout).path), 'utf8');
    expect(text).toContain('\ntrust: "unreviewed"\nstatus: "active"\n');
  });
});

describe('vault save: ids and dry runs', () => {
  it('an invalid --id exits 3 and writes nothing; a valid one is used as given', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const id of ['BAD', 'mem_../../etc/passwd', 'mem_a', 'mem_has space', `mem_${'a'.repeat(129)}`, 'note_123']) {
      const r = await runCli(['save', '--title', 't', '--body', 'b', '--id', id], { cwd: repo, env });
      expect(r.code, id).toBe(3);
      expect(r.stderr).toMatch(/^error: id: memory id must match/);
    }
    expect(memoryFiles(repo)).toEqual([]);
    const ok = await runCli(['save', '--title', 't', '--body', 'b', '--id', 'mem_explicit-id_1', '--kind', 'fact', '--json'], { cwd: repo, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id: 'mem_explicit-id_1', path: 'project/facts/mem_explicit-id_1.md', scope: 'project', kind: 'fact' });
    // the same id under another kind is still a duplicate
    const again = await runCli(['save', '--title', 't', '--body', 'b', '--id', 'mem_explicit-id_1', '--kind', 'note', '--scope', 'team'], { cwd: repo, env });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('--dry-run and ECC_DRY_RUN=1 check everything and write nothing, not even folders', async () => {
    const repo = gitRepo();
    const dry = await runCli(['save', '--scope', 'team', '--title', 't', '--body', 'b', '--dry-run', '--json'], { cwd: repo, env: cliEnv() });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ written: false, scope: 'team' });
    const envDry = await runCli(['save', '--title', 't', '--body', 'b'], { cwd: repo, env: cliEnv({ ECC_DRY_RUN: '1' }) });
    expect(envDry.code, envDry.stderr).toBe(0);
    expect(envDry.stdout).toMatch(/^Dry run: would save/);
    expect(existsSync(join(repo, '.ecc'))).toBe(false);
    // a dry run still applies every rule
    const bad = await runCli(['save', '--title', ' ', '--body', 'b', '--dry-run'], { cwd: repo, env: cliEnv() });
    expect(bad.code).toBe(3);
  });

  it('a dry run in user scope creates nothing under the user root (no folder, no index)', async () => {
    const repo = gitRepo();
    const user = tempDir();
    const userDry = await runCli(['save', '--scope', 'user', '--title', 't', '--body', 'b', '--dry-run'], {
      cwd: repo,
      env: cliEnv({ ECC_MEMORY_USER_ROOT: join(user, 'mem') }),
    });
    expect(userDry.code, userDry.stderr).toBe(0);
    expect(filesUnder(user)).toEqual([]);
    expect(existsSync(join(user, 'mem'))).toBe(false);
  });
});

/** Credential-shaped strings, built at run time so this file does not itself look like a leak. */
const SECRETS: Array<{ label: RegExp; value: string; core: string }> = [
  { label: /provider API key/, value: ['sk', 'proj', 'Q9w8E7r6T5y4U3i2O1p0'].join('-'), core: 'Q9w8E7r6T5y4U3i2O1p0' },
  { label: /Stripe key/, value: ['sk', 'live', 'a1B2c3D4e5F6g7H8i9J0k1L2'].join('_'), core: 'a1B2c3D4e5F6g7H8i9J0k1L2' },
  { label: /npm token/, value: `npm_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa'}`, core: 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa' },
  { label: /Hugging Face token/, value: `hf_${'QwErTyUiOpAsDfGhJkLzXcVbNm1234'}`, core: 'QwErTyUiOpAsDfGhJkLzXcVbNm1234' },
  { label: /GitHub token/, value: `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`, core: 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8' },
  {
    label: /GitHub token/,
    value: `github_pat_${'11ABCDEFG0abcdefghij_KLMNOPQRSTuvwxyz0123456789abcdefghijklmnopqrstuvwxyzABCDE'}`,
    core: 'KLMNOPQRSTuvwxyz0123456789',
  },
  { label: /Google API key/, value: `AIza${'SyD4x-9Qw_ErTyUiOpAsDfGhJkLzXcVbNm1'}`, core: 'SyD4x-9Qw_ErTyUiOpAsDfGhJkLzXcVbNm1' },
  { label: /Slack token/, value: ['xoxb', '2048123456', '4096123456789', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-'), core: 'AbCdEfGhIjKlMnOpQrStUvWx' },
  { label: /AWS/, value: `AKIA${'Z3Q7W2X9R4T6Y8U1'}`, core: 'Z3Q7W2X9R4T6Y8U1' },
  {
    label: /private key/,
    value: ['-----BEGIN RSA PRIVATE', 'KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE', 'KEY-----'].join(' '),
    core: 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  },
];

describe('vault save: suspected secrets', () => {
  it.each(SECRETS.map((s) => [s.label.source, s] as const))('refuses a %s in the body, names kind and field, never echoes it', async (_n, s) => {
    const repo = gitRepo();
    const env = cliEnv();
    const [human, json] = await Promise.all([
      runCli(['save', '--scope', 'team', '--title', 'creds', '--stdin'], { cwd: repo, env, input: `The deploy key:\n${s.value}\nkeep it safe.` }),
      runCli(['save', '--title', 'creds', '--stdin', '--json'], { cwd: repo, env, input: `key ${s.value}` }),
    ]);
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/^error: refusing to save a memory containing a suspected secret/);
    expect(human.stderr).toMatch(s.label);
    expect(human.stderr).toMatch(/ in body/);
    expect(json.code).toBe(3);
    const err = JSON.parse(json.stdout).error;
    expect(err).toMatchObject({ code: 'suspected-secret', field: 'body' });
    expect(err.message).toMatch(s.label);
    for (const r of [human, json]) {
      expect(r.stdout + r.stderr).not.toContain(s.core);
      expect(r.stdout + r.stderr).not.toContain(s.value);
    }
    expect(memoryFiles(repo)).toEqual([]);
  });

  it('names the field when the secret is in the title or a tag, and never echoes a secret from an invalid flag', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const gh = SECRETS[4]!;
    const provider = `sk-${'abcdefghijklmnopqrstuvwx'}`; // lowercase: also a valid tag slug
    const [inTitle, inTag, inId, inSource, inLink] = await Promise.all([
      runCli(['save', '--title', `token ${gh.value}`, '--body', 'b'], { cwd: repo, env }),
      runCli(['save', '--title', 't', '--body', 'b', '--tag', provider], { cwd: repo, env }),
      runCli(['save', '--title', 't', '--body', 'b', '--id', gh.value], { cwd: repo, env }),
      runCli(['save', '--title', 't', '--body', 'b', '--source-harness', gh.value], { cwd: repo, env }),
      runCli(['save', '--title', 't', '--body', 'b', '--link', gh.value], { cwd: repo, env }),
    ]);
    expect(inTitle.code).toBe(3);
    expect(inTitle.stderr).toMatch(/GitHub token in title/);
    expect(inTag.code).toBe(3);
    expect(inTag.stderr).toMatch(/provider API key in tags/);
    expect(inTag.stderr).not.toContain(provider);
    for (const r of [inTitle, inId, inSource, inLink]) {
      expect(r.code).toBe(3);
      expect(r.stdout + r.stderr).not.toContain(gh.core);
    }
    expect(memoryFiles(repo)).toEqual([]);
  });

  it('does not flag look-alikes (task-..., sk- too short, prose about keys)', async () => {
    const repo = gitRepo();
    const r = await runCli(['save', '--title', 'Where the keys live', '--stdin'], {
      cwd: repo,
      env: cliEnv(),
      input: 'task-aaaaaaaaaaaaaaaaaaaaaaaa is a task id. sk-short. The API key is in 1Password (Deploy/API); rotate with `make rotate-keys`.',
    });
    expect(r.code, r.stderr).toBe(0);
  });
});
