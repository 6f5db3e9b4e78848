/** Harness aliases (src/document/harness-names.ts): one harness under several names, in search and hooks. */
import { describe, expect, it } from 'vitest';
import { canonicalHarness, targetsHarness } from '../../src/document/harness-names.js';
import { normalizeHarness } from '../../src/sessions/hook-events.js';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';
import { memory, putMemories } from '../helpers/search.js';

describe('harness names', () => {
  it('resolve aliases to one harness and leave other slugs alone', () => {
    expect(canonicalHarness('Claude')).toBe('claude-code');
    expect(canonicalHarness('claude-code')).toBe('claude-code');
    expect(canonicalHarness('codex-cli')).toBe('codex');
    expect(canonicalHarness('gemini')).toBe('gemini-cli');
    expect(canonicalHarness('copilot')).toBe('copilot-cli');
    expect(canonicalHarness('aider')).toBe('aider');
    expect(targetsHarness(['claude'], 'claude-code')).toBe(true);
    expect(targetsHarness(['claude-code'], 'claude')).toBe(true);
    expect(targetsHarness(['all'], 'anything')).toBe(true);
    expect(targetsHarness(['codex'], 'claude-code')).toBe(false);
    expect(normalizeHarness('claude')).toBe('claude-code');
    expect(normalizeHarness('CODEX-CLI')).toBe('codex');
    expect(normalizeHarness('aider')).toBeUndefined();
  });

  it('vault search --target-harness finds memories targeted by an alias', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const a = memory({ title: 'Alias words', targetHarnesses: ['claude'] });
    const b = memory({ title: 'Alias words too', targetHarnesses: ['claude-code'] });
    const c = memory({ title: 'Alias words for codex', targetHarnesses: ['codex'] });
    putMemories(repo, a, b, c);
    for (const name of ['claude-code', 'claude']) {
      const r = await runCli(['search', 'alias words', '--target-harness', name, '--json'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
      const ids = (JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((h) => h.id).sort();
      expect(ids).toEqual([a.id, b.id].sort());
    }
  });
});
