/**
 * The settings JSON shown in docs/hooks.md is what `vault hooks install --command vault` writes,
 * for each harness: the doc cannot drift from the installer (matchers, events, timeouts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, REPO, runCli } from '../helpers/cli.js';

const DOC = readFileSync(join(REPO, 'docs', 'hooks.md'), 'utf8');

/** The first ```json block after the heading `### <title> (`<file>`)`. */
function docBlock(title: string, file: string): unknown {
  const at = DOC.indexOf(`### ${title} (\`${file}\`)`);
  expect(at, `docs/hooks.md has a "### ${title} (\`${file}\`)" section`).toBeGreaterThan(-1);
  const m = /```json\n([\s\S]*?)\n```/.exec(DOC.slice(at));
  expect(m, `a JSON block under ${title}`).not.toBeNull();
  return JSON.parse(m![1]!);
}

describe('docs/hooks.md settings examples', () => {
  for (const [harness, title, file] of [
    ['claude-code', 'Claude Code', '.claude/settings.local.json'],
    ['codex', 'Codex', '.codex/hooks.json'],
    ['gemini-cli', 'Gemini CLI', '.gemini/settings.json'],
  ] as const) {
    it(`${title}: the JSON block is what the installer writes`, async () => {
      const cwd = gitRepo();
      const r = await runCli(['hooks', 'install', '--harness', harness, '--command', 'vault'], { cwd, env: cliEnv() });
      expect(r.code, r.stderr).toBe(0);
      const written = JSON.parse(readFileSync(join(cwd, file), 'utf8'));
      expect(docBlock(title, file)).toEqual(written);
      // and the events in the same order
      expect(Object.keys((docBlock(title, file) as { hooks: object }).hooks)).toEqual(Object.keys(written.hooks));
    });
  }
});

describe('docs/hooks.md "Not done on purpose"', () => {
  it('does not deny injecting on a SessionStart source the installed matcher injects on', () => {
    const block = docBlock('Claude Code', '.claude/settings.local.json') as { hooks: { SessionStart: { matcher: string }[] } };
    const sources = block.hooks.SessionStart[0]!.matcher.split('|');
    expect(sources).toEqual(['startup', 'clear', 'compact']);
    const section = DOC.slice(DOC.indexOf('## Not done on purpose'));
    const line = section.split('\n').find((l) => l.startsWith('- No injection on'));
    expect(line, 'a "- No injection on" line').toBeDefined();
    // "compact" also catches "compaction"
    for (const source of sources) expect(line).not.toMatch(new RegExp(`\\b${source}`));
    expect(line).toMatch(/\bresume\b/);
  });
});
