/**
 * One wording of the exit codes: the README's table and `vault --help` (so docs/cli.md) are
 * EXIT_MEANINGS of src/errors.ts, and docs/format.md's error table gives each error code the
 * exit code the CLI uses (EXIT_BY_CODE), every code listed once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_BY_CODE, EXIT_MEANINGS } from '../../src/errors.js';
import { REPO, runCli } from '../helpers/cli.js';

const section = (file: string, heading: string) => {
  const text = readFileSync(join(REPO, file), 'utf8');
  const at = text.indexOf(heading);
  expect(at, `${heading} in ${file}`).toBeGreaterThan(-1);
  return text.slice(at);
};
/** The `| a | b |...` rows of the first table after the heading, cells trimmed. */
const rows = (text: string) => {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const out: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    out.push(
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return out;
};

describe('exit codes', () => {
  it("the README's table is EXIT_MEANINGS", () => {
    expect(rows(section('README.md', '## Exit codes'))).toEqual(EXIT_MEANINGS.map(([code, meaning]) => [String(code), meaning]));
  });

  it('vault --help prints the same list', async () => {
    const r = await runCli(['--help'], {});
    const help = r.stdout.slice(r.stdout.indexOf('Exit codes:')).replace(/\n {6}/g, ' ');
    for (const [code, meaning] of EXIT_MEANINGS) expect(help).toContain(`\n  ${String(code).padEnd(4)}${meaning.replace(/`/g, '')}\n`);
  });

  it("docs/format.md's error table gives every error code the exit code the CLI uses", () => {
    const listed = new Map<string, number>();
    for (const [codes, exit] of rows(section('docs/format.md', '| code | exit |')))
      for (const c of codes!.matchAll(/`([a-z0-9-]+)`/g)) {
        expect(listed.has(c[1]!), `${c[1]} listed twice`).toBe(false);
        listed.set(c[1]!, Number(exit));
      }
    expect(Object.fromEntries(listed)).toEqual({ ...EXIT_BY_CODE });
  });
});
