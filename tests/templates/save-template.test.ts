import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

function memoryFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.md'))
    .map((d) => join(d.parentPath, d.name));
}

function bodyOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  return text.slice(text.indexOf('\n---\n\n') + 6);
}

describe('vault save --template / --wikilinks', () => {
  it('fills a decision body from templates/decision.md with the given sections, in template order', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const r = await runCli(
      [
        'save',
        '--scope',
        'team',
        '--kind',
        'decision',
        '--title',
        'Use Redis sessions',
        '--template',
        '--section',
        'Consequences=Redis becomes a hard dependency.',
        '--section',
        'context=Sessions expire too early.',
        '--section',
        'Options=- keep JWT',
        '--section',
        'Options=- Redis sessions',
        '--section',
        'Decision=We will store sessions in Redis.',
        '--json',
      ],
      { cwd: repo, env },
    );
    expect(r.code, r.stderr).toBe(0);
    const { path } = JSON.parse(r.stdout);
    expect(bodyOf(join(repo, '.ecc/memory', path))).toBe(
      '## Context\n\nSessions expire too early.\n\n## Options\n\n- keep JWT\n- Redis sessions\n\n## Decision\n\nWe will store sessions in Redis.\n\n## Consequences\n\nRedis becomes a hard dependency.\n',
    );
  });

  it('refuses unknown sections (naming the ones the kind has), and conflicting or missing flags, writing nothing', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const unknown = await runCli(['save', '--kind', 'runbook', '--title', 't', '--template', '--section', 'Context=x'], { cwd: repo, env });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('error: section: "Context" is not a section of the runbook template');
    expect(unknown.stderr).toContain('hint: use one of: When to use, Steps, Verification, Rollback');
    const both = await runCli(['save', '--title', 't', '--template', '--section', 'Note=x', '--body', 'b'], { cwd: repo, env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--template fills the body itself/);
    const noTemplate = await runCli(['save', '--title', 't', '--section', 'Note=x'], { cwd: repo, env });
    expect(noTemplate.code).toBe(2);
    expect(noTemplate.stderr).toMatch(/--section needs --template/);
    const none = await runCli(['save', '--title', 't', '--template'], { cwd: repo, env });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/needs at least one --section; the note template has: Note, Pointers/);
    const noEquals = await runCli(['save', '--title', 't', '--template', '--section', 'Note'], { cwd: repo, env });
    expect(noEquals.code).toBe(2);
    expect(memoryFiles(join(repo, '.ecc/memory'))).toEqual([]);
  });

  it('--wikilinks appends a Related line for each --link, which vault read counts as a backlink', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const old = await runCli(
      ['save', '--scope', 'team', '--kind', 'decision', '--title', 'JWT sessions', '--body', 'Stateless JWT.', '--id', 'mem_20260101_jwt', '--json'],
      { cwd: repo, env },
    );
    expect(old.code, old.stderr).toBe(0);
    const r = await runCli(
      [
        'save',
        '--scope',
        'team',
        '--kind',
        'decision',
        '--title',
        'Redis sessions',
        '--template',
        '--section',
        'Decision=Redis.',
        '--link',
        'mem_20260101_jwt',
        '--wikilinks',
        '--json',
      ],
      { cwd: repo, env },
    );
    expect(r.code, r.stderr).toBe(0);
    const { id, path } = JSON.parse(r.stdout);
    const text = readFileSync(join(repo, '.ecc/memory', path), 'utf8');
    expect(text).toContain('links: ["mem_20260101_jwt"]\n');
    expect(bodyOf(join(repo, '.ecc/memory', path))).toBe('## Decision\n\nRedis.\n\nRelated: [[mem_20260101_jwt]]\n');
    const read = await runCli(['read', 'mem_20260101_jwt'], { cwd: repo, env });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain(`linked from:\n  ${id}  Redis sessions (decision, active)`);
  });

  it('--wikilinks needs a --link, and a bad link id is refused before anything is written', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const noLink = await runCli(['save', '--title', 't', '--body', 'b', '--wikilinks'], { cwd: repo, env });
    expect(noLink.code).toBe(2);
    expect(noLink.stderr).toMatch(/--wikilinks needs at least one --link/);
    const bad = await runCli(['save', '--title', 't', '--body', 'b', '--link', '../etc/passwd', '--wikilinks'], { cwd: repo, env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/links: memory id must match mem_/);
    expect(memoryFiles(join(repo, '.ecc/memory'))).toEqual([]);
  });
});
