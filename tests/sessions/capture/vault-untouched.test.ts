import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, FIXTURES, gitRepo, runCli } from '../../helpers/cli.js';
import { filesUnder, hook } from '../../helpers/hooks.js';

/** Every transcript fixture (corpus, held-out set, the snapshot fixtures), with its harness. */
function transcripts(): Array<{ path: string; harness: 'claude-code' | 'codex' }> {
  const out: Array<{ path: string; harness: 'claude-code' | 'codex' }> = [];
  for (const root of ['capture', 'capture-holdout', 'transcripts'])
    for (const d of readdirSync(join(FIXTURES, root), { recursive: true, withFileTypes: true })) {
      if (!d.isFile() || !d.name.endsWith('.jsonl')) continue;
      const path = join(d.parentPath, d.name);
      out.push({ path, harness: path.includes('/codex/') ? 'codex' : 'claude-code' });
    }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Every file under a folder with its bytes. */
function bytesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of filesUnder(dir)) out[f] = readFileSync(join(dir, f)).toString('base64');
  return out;
}

describe('nothing enters the vault without an explicit accept', () => {
  it('every hook over every transcript fixture leaves the vault folders byte for byte as they were', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    expect(
      (await runCli(['save', '--scope', 'team', '--kind', 'decision', '--title', 'Use Redis for sessions', '--body', 'Shared sessions.'], { cwd: repo, env }))
        .code,
    ).toBe(0);
    const before = { team: bytesUnder(join(repo, '.ecc')), user: bytesUnder(join(env.HOME!, '.ecc', 'memory')) };
    const all = transcripts();
    expect(all.length).toBeGreaterThanOrEqual(40);
    let i = 0;
    for (const t of all) {
      const session = `00000000-0000-4000-8000-${String(++i).padStart(12, '0')}`;
      const payload = { session_id: session, transcript_path: t.path, cwd: repo, stop_hook_active: false };
      for (const event of ['stop', 'pre-compact', 'session-end'] as const) {
        if (t.harness === 'codex' && event === 'session-end') continue; // Codex has no session end
        const r = await hook(event, payload, { cwd: repo, env, harness: t.harness });
        expect(r.code).toBe(0);
      }
    }
    expect((await runCli(['review', 'list', '--json'], { cwd: repo, env })).stdout).toMatch(/"fingerprint"/);
    // and the import over every fixture folder, twice (the second run changes nothing)
    const folders = ['capture', 'capture-holdout', 'transcripts'].map((d) => join(FIXTURES, d));
    for (let run = 0; run < 2; run++) {
      const r = await runCli(['sessions', 'import', ...folders, '--all', '--json'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { found: number; imported: number; updated: number; unchanged: number };
      expect(summary.found).toBe(all.filter((t) => !t.path.includes('/subagents/')).length); // subagents are read with their session
      if (run === 1) expect(summary).toMatchObject({ imported: 0, updated: 0 });
    }
    expect({ team: bytesUnder(join(repo, '.ecc')), user: bytesUnder(join(env.HOME!, '.ecc', 'memory')) }).toEqual(before);
  }, 120_000);
});
