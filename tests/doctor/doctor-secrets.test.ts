/**
 * Doctor reports a credential in every memory file, valid or not (hardening item 11): a token
 * in a file that also breaks the schema gets both the schema error and `suspected-secret`, in
 * `--json` and in the human output, in a working-tree run and with `--staged`; the value is never
 * shown.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, gitRepo, runCli } from '../helpers/cli.js';
import { SECRET_CASES, type SecretCase } from '../helpers/secret-cases.js';
import { memoryText } from '../helpers/corpus-vault.js';

interface DoctorJson {
  ok: boolean;
  problems: Array<{ code: string; path: string; line?: number; message: string; severity: string }>;
}

const token = SECRET_CASES.find((c) => c.name === 'GitHub classic token')!;
const jwt = SECRET_CASES.find((c) => c.name === 'JSON Web Token')!;
const pem = SECRET_CASES.find((c) => c.name === 'RSA private key (PEM)')!;
const url = SECRET_CASES.find((c) => c.name === 'password in a postgres URL')!;
const hidden = SECRET_CASES.find((c) => c.name === 'GitHub token with a zero-width space inside')!;
const ALL: SecretCase[] = [token, jwt, pem, url, hidden];

const leaks = (out: string) => ALL.flatMap((c) => c.secrets.filter((s) => out.includes(s) || out.includes(s.slice(0, 12))));

/** path → [file content, the schema problem doctor must report besides the secret] */
const FILES: Record<string, [string | Buffer, string]> = {
  // an unknown frontmatter field
  'team/notes/mem_unknown_field.md': [
    memoryText({ id: 'mem_unknown_field' }, `Deploy with ${token.text}.`).replace('links: []', 'links: []\nowner: "ops"'),
    'unknown-field',
  ],
  // a bad enum value, the secret in the title
  'team/notes/mem_bad_kind.md': [memoryText({ id: 'mem_bad_kind', kind: 'bogus', title: `Login ${jwt.text}` }, 'Body.'), 'invalid-field'],
  // no closing fence: the document cannot be parsed at all
  'team/notes/mem_unclosed.md': [memoryText({ id: 'mem_unclosed' }, `The key:\n${pem.text}`).replace('\n---\n\n', '\n\n'), 'unclosed-frontmatter'],
  // not valid UTF-8
  'team/notes/mem_bad_utf8.md': [
    Buffer.concat([Buffer.from(memoryText({ id: 'mem_bad_utf8' }, `DB: ${url.text}`)), Buffer.from([0xff, 0xfe, 0x0a])]),
    'invalid-utf8',
  ],
  // in the wrong scope folder
  'team/notes/mem_wrong_scope.md': [memoryText({ id: 'mem_wrong_scope', scope: 'project' }, `Use ${hidden.text}.`), 'location-mismatch'],
  // CRLF line endings and an unknown field
  'team/decisions/mem_crlf_secret.md': [
    memoryText({ id: 'mem_crlf_secret', kind: 'decision' }, `Token:\n${token.text}`).replace('links: []', 'links: []\nextra: 1').replace(/\n/g, '\r\n'),
    'unknown-field',
  ],
};

function vault(): string {
  const repo = gitRepo();
  for (const [rel, [content]] of Object.entries(FILES)) {
    const p = join(repo, '.ecc/memory', rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return repo;
}

describe('doctor scans every file for secrets, valid or not', () => {
  it('--json: each invalid file gets its schema error and suspected-secret; no value is shown', async () => {
    const repo = vault();
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(1);
    expect(leaks(r.stdout + r.stderr)).toEqual([]);
    const report = JSON.parse(r.stdout) as DoctorJson;
    for (const [rel, [, schemaProblem]] of Object.entries(FILES)) {
      const codes = report.problems.filter((p) => p.path === rel).map((p) => p.code);
      expect(codes, rel).toContain('suspected-secret');
      expect(
        codes.some((c) => c !== 'suspected-secret'),
        `${rel}: ${codes}`,
      ).toBe(true);
      expect(codes.join(' '), rel).toMatch(new RegExp(schemaProblem === 'invalid-field' ? 'invalid-field|invalid-enum|kind' : schemaProblem));
    }
    const secret = report.problems.find((p) => p.path === 'team/notes/mem_bad_kind.md' && p.code === 'suspected-secret')!;
    expect(secret).toMatchObject({ severity: 'error', line: 4 });
    expect(secret.message).toMatch(/JSON Web Token.*title.*not shown/);
  });

  it('the human output names each file and the kind of secret, never the value', async () => {
    const repo = vault();
    const r = await runCli(['doctor', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(1);
    expect(leaks(r.stdout + r.stderr)).toEqual([]);
    for (const rel of Object.keys(FILES)) expect(r.stdout).toContain(rel);
    expect(r.stdout.match(/suspected secret \(/g)?.length).toBeGreaterThanOrEqual(Object.keys(FILES).length);
    expect(r.stdout).toMatch(/suspected secret \(private key\) in the document; the value is not shown/);
    expect(r.stdout).toMatch(/suspected secret \(password in a URL\)/);
  });

  it('--staged checks the staged copy of an invalid file too', async () => {
    const repo = gitRepo();
    const rel = 'team/notes/mem_staged_bad.md';
    const p = join(repo, '.ecc/memory', rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, memoryText({ id: 'mem_staged_bad', status: 'archived' }, `Use ${token.text}.`));
    git(repo, 'add', '-A');
    writeFileSync(p, memoryText({ id: 'mem_staged_bad' }, 'Clean now, but not staged.'));
    const r = await runCli(['doctor', '--staged', '--json', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(leaks(r.stdout + r.stderr)).toEqual([]);
    const codes = (JSON.parse(r.stdout) as DoctorJson).problems.filter((x) => x.path === rel).map((x) => x.code);
    expect(codes).toContain('suspected-secret');
    expect(codes.length).toBeGreaterThanOrEqual(2);
  });

  it('a valid file with a secret is still reported, and a clean vault is not', async () => {
    const repo = gitRepo();
    const put = (rel: string, text: string) => {
      const p = join(repo, '.ecc/memory', rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    };
    put('team/notes/mem_clean_one.md', memoryText({ id: 'mem_clean_one' }, `PASSWORD=changeme and $${'{'}API_KEY} are placeholders.`));
    const clean = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect((JSON.parse(clean.stdout) as DoctorJson).problems.filter((p) => p.code === 'suspected-secret')).toEqual([]);
    put('team/notes/mem_valid_secret.md', memoryText({ id: 'mem_valid_secret' }, `Use ${jwt.text}.`));
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env: cliEnv() });
    expect(leaks(r.stdout)).toEqual([]);
    expect((JSON.parse(r.stdout) as DoctorJson).problems.filter((p) => p.code === 'suspected-secret').map((p) => p.path)).toEqual([
      'team/notes/mem_valid_secret.md',
    ]);
  });
});
