/**
 * `vault review accept` as a new user met it: a prefix too short to look up, and a decision
 * proposal whose Why is still the placeholder asking for the reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { hook } from '../helpers/hooks.js';

const SESSION = '5b2c7d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e';

/** A two-record Claude Code transcript: the person states a decision, with no reason. */
function transcript(cwd: string): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: SESSION, version: '2.0.14', gitBranch: 'main' };
  const lines = [
    {
      ...base,
      type: 'user',
      parentUuid: null,
      uuid: 'u-1',
      timestamp: '2026-01-05T10:01:00.000Z',
      message: { role: 'user', content: 'We decided to use pnpm workspaces for the monorepo.' },
    },
    {
      ...base,
      type: 'assistant',
      parentUuid: 'u-1',
      uuid: 'a-1',
      timestamp: '2026-01-05T10:01:30.000Z',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Noted.' }],
        stop_reason: 'end_turn',
      },
    },
  ];
  const file = join(tempDir('vault-transcript-'), `${SESSION}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

describe('vault review accept', () => {
  it('a decision without its reason is refused as it is, with the --edit hint; --edit that writes the reason saves it', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    await hook(
      'stop',
      { session_id: SESSION, transcript_path: transcript(repo), cwd: repo, hook_event_name: 'Stop', stop_hook_active: false },
      { cwd: repo, env },
    );
    const listed = JSON.parse((await runCli(['review', 'list', '--json'], { cwd: repo, env })).stdout).proposals as Array<{
      id: string;
      kind: string;
      body: string;
    }>;
    const decision = listed.find((p) => p.kind === 'decision');
    expect(decision?.body).toContain('Not stated in the session; add the reason before accepting.');
    const short = await runCli(['review', 'accept', decision!.id.slice(0, 3)], { cwd: repo, env });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(`proposal id "${decision!.id.slice(0, 3)}" is too short: a prefix needs at least 4 characters`);
    const refused = await runCli(['review', 'accept', decision!.id], { cwd: repo, env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`error: proposal ${decision!.id} has no reason yet`);
    expect(refused.stderr).toContain(`hint: accept it with --edit and write the reason: vault review accept ${decision!.id} --edit`);
    // an editor that replaces the placeholder with the reason
    const editor = join(tempDir(), 'editor.cjs');
    writeFileSync(
      editor,
      "const fs=require('fs');const f=process.argv[2];fs.writeFileSync(f,fs.readFileSync(f,'utf8').replace('Not stated in the session; add the reason before accepting.','One lockfile and fast installs.'));",
    );
    const edited = await runCli(['review', 'accept', decision!.id, '--edit', '--json'], {
      cwd: repo,
      env: { ...env, VISUAL: `"${process.execPath}" "${editor}"`, EDITOR: `"${process.execPath}" "${editor}"` },
    });
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ kind: 'decision', written: true });
  });
});
