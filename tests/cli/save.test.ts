/**
 * `vault save` flows: body sources, explicit ids, trust/status that no flag can set, dry runs in
 * user scope, and suspected secrets of every built-in shape. The single-invocation cases (usage
 * errors, invalid ids and inputs, dry runs, refused body files) are in tests/cli/cases.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runBin, runCli, tempDir } from '../helpers/cli.js';

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

  it.skipIf(process.platform !== 'linux')('reads a --body-file that reports size 0 (procfs) to its end, bounded (Linux only)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await runCli(['save', '--title', 'proc status', '--body-file', '/proc/self/status', '--json'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const body: string = JSON.parse((await runCli(['read', JSON.parse(r.stdout).id, '--json'], { cwd: repo, env })).stdout).body;
    // the whole file, not its first byte: several lines from Name: to the end
    expect(body.startsWith('Name:')).toBe(true);
    expect(body.split('\n').length).toBeGreaterThan(10);
    expect(body).toMatch(/voluntary_ctxt_switches/);
    // a size-0 file over the limit is refused by size, as a normal body file is
    const big = await runCli(['save', '--title', 'smaps', '--body-file', '/proc/self/smaps'], { cwd: repo, env });
    expect(big.code).toBe(3);
    expect(big.stderr).toMatch(/--body-file is too large \(maximum 65536 bytes/);
  });

  it.skipIf(process.platform !== 'linux')(
    'reads a --body-file that is /dev/stdin or a named pipe to its end, bounded by the body limit, never hanging',
    async () => {
      const repo = gitRepo();
      const env = cliEnv();
      const bodyOf = async (r: { code: number; stdout: string; stderr: string }) => {
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse((await runCli(['read', JSON.parse(r.stdout).id, '--json'], { cwd: repo, env })).stdout).body as string;
      };
      // standard input under a file name: in-process and through the real binary
      expect(await bodyOf(await runCli(['save', '--title', 'pipe', '--body-file', '/dev/stdin', '--json'], { cwd: repo, env, input: 'from stdin' }))).toBe(
        'from stdin',
      );
      expect(
        await bodyOf(await runBin(['save', '--title', 'pipe bin', '--body-file', '/dev/stdin', '--json'], { cwd: repo, env, input: 'from bin stdin' })),
      ).toBe('from bin stdin');
      const over = await runCli(['save', '--title', 'big', '--body-file', '/dev/stdin'], { cwd: repo, env, input: 'x'.repeat(65537) });
      expect(over.code).toBe(3);
      expect(over.stderr).toMatch(/--body-file is too large \(maximum 65536 bytes/);
      // a named pipe with a writer, to its end
      const fifo = join(tempDir('vault-fifo-'), 'body');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const writer = spawn('sh', ['-c', 'printf "line one\\nline two" > "$1"', 'sh', fifo]);
      const writerDone = new Promise((r) => writer.once('exit', r));
      expect(await bodyOf(await runCli(['save', '--title', 'fifo', '--body-file', fifo, '--json'], { cwd: repo, env }))).toBe('line one\nline two');
      await writerDone;
      // over the limit: one byte more is enough to refuse it by size
      const big = spawn('sh', ['-c', 'head -c 70000 /dev/zero | tr "\\0" x > "$1"', 'sh', fifo]);
      const tooBig = await runCli(['save', '--title', 'fifo big', '--body-file', fifo], { cwd: repo, env });
      expect(tooBig.code).toBe(3);
      expect(tooBig.stderr).toMatch(/--body-file is too large \(maximum 65536 bytes/);
      big.kill();
      // no writer at all: refused after a bounded wait, never a hang
      const started = Date.now();
      const none = await runCli(['save', '--title', 'no writer', '--body-file', fifo], { cwd: repo, env });
      expect(none.code).toBe(3);
      expect(none.stderr).toMatch(/named pipe that got no writer/);
      expect(Date.now() - started).toBeLessThan(15_000);
    },
    30_000,
  );
});

describe('vault save: trust and status', () => {
  it('trust and status cannot be set by any flag: a save is always unreviewed and active', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // every flag that tries to set them is a usage error: tests/cli/cases.test.ts
    const ok = await runCli(['save', '--title', 't', '--body', 'b', '--json'], { cwd: repo, env });
    const text = readFileSync(join(repo, '.ecc/memory', JSON.parse(ok.stdout).path), 'utf8');
    expect(text).toContain('\ntrust: "unreviewed"\nstatus: "active"\n');
  });
});

describe('vault save: ids and dry runs', () => {
  it('a valid --id is used as given, and is create-only across kinds and scopes', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // invalid ids (exit 3, nothing written): tests/cli/cases.test.ts
    const ok = await runCli(['save', '--title', 't', '--body', 'b', '--id', 'mem_explicit-id_1', '--kind', 'fact', '--json'], { cwd: repo, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id: 'mem_explicit-id_1', path: 'project/facts/mem_explicit-id_1.md', scope: 'project', kind: 'fact' });
    // the same id under another kind is still a duplicate
    const again = await runCli(['save', '--title', 't', '--body', 'b', '--id', 'mem_explicit-id_1', '--kind', 'note', '--scope', 'team'], { cwd: repo, env });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already exists/);
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

  it('a dry run does not run the similar-memory check, so --unique cannot refuse it (as --dry-run --help says)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const first = await runCli(['save', '--title', 'Sessions live in Redis', '--body', 'one'], { cwd: repo, env });
    expect(first.code, first.stderr).toBe(0);
    const dry = await runCli(['save', '--title', 'Sessions live in Redis', '--body', 'two', '--unique', '--dry-run', '--json'], { cwd: repo, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ written: false, similar: [] });
    const real = await runCli(['save', '--title', 'Sessions live in Redis', '--body', 'two', '--unique'], { cwd: repo, env });
    expect(real.code).toBe(5);
    const help = await runCli(['save', '--help'], { cwd: repo, env });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('the similar-memory check (and --unique) runs only on a real save');
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
});
