/**
 * The default suite runs in a plain clone: no test reads `../shared` (the folder beside our own
 * checkouts) except tests/third-party-fixtures.test.ts, which skips itself when it is absent; and
 * the run's temp folders sit in a TMPDIR of its own (tests/global-setup.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, git, REPO, tempDir } from './helpers/cli.js';

const ALLOWED = 'tests/third-party-fixtures.test.ts';
/** Ways a test could name the shared folder: the old constant, a `../shared` path, a `'shared'` path segment, the CI copy's absolute path. */
const SHARED_USE = [/\bSHARED\b/, /\.\.[\\/]+shared\b/, /(['"`])shared\1/, /\/work\/shared\b/];

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'fixtures' ? [] : testSources(p);
    return /\.(m?[jt]s)$/.test(d.name) ? [p] : [];
  });
}

describe('self-contained tests', () => {
  it(`no test file outside ${ALLOWED} reads ../shared`, () => {
    const offenders: string[] = [];
    const files = testSources(join(REPO, 'tests'));
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const rel = relative(REPO, file);
      if (rel === ALLOWED || rel === 'tests/self-contained.test.ts') continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (SHARED_USE.some((re) => re.test(line))) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
    // vitest.config.ts and its setup files must not point there either
    for (const f of ['vitest.config.ts', ...readdirSync(join(REPO, 'tests')).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))]) {
      const p = f === 'vitest.config.ts' ? join(REPO, f) : join(REPO, 'tests', f);
      expect(
        SHARED_USE.some((re) => re.test(readFileSync(p, 'utf8'))),
        f,
      ).toBe(false);
    }
  });

  it('the guard recognises each way of naming the folder', () => {
    for (const line of [
      "import { SHARED } from './helpers/cli.js';",
      "readFileSync('../shared/fixtures/ecc/x.md')",
      "join(REPO, '..', 'shared')",
      "'/work/shared/fixtures'",
    ])
      expect(
        SHARED_USE.some((re) => re.test(line)),
        line,
      ).toBe(true);
    for (const line of ["memoryText({ id: 'mem_sec_shared' })", '// ranks by shared words', "'packages/shared'"])
      expect(
        SHARED_USE.some((re) => re.test(line)),
        line,
      ).toBe(false);
  });
});

describe('hermetic temp folders', () => {
  it('every temp folder of the run sits in the fresh TMPDIR made for it, and CLI subprocesses get it too', () => {
    const runDir = process.env.VAULT_TEST_TMPDIR;
    expect(runDir).toMatch(/[\\/]vault-tests-[^\\/]+$/);
    expect(tmpdir()).toBe(runDir);
    expect(tempDir().startsWith(`${runDir}${sep}`)).toBe(true);
    expect(cliEnv().TMPDIR).toBe(runDir);
    expect(cliEnv().HOME!.startsWith(`${runDir}${sep}`)).toBe(true);
  });

  it("git sees none of the machine's own configuration", () => {
    expect(process.env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
    expect(process.env.GIT_CONFIG_NOSYSTEM).toBe('1');
    expect(cliEnv()).toMatchObject({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    expect(git(tempDir(), 'config', '--list', '--show-origin').trim()).toBe('');
  });
});
