import { appendFileSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscriptPath, readTranscript } from '../../../src/sessions/transcripts/read-transcript.js';
import { emptySummary, noteToolError } from '../../../src/sessions/transcripts/transcript-summary.js';
import { CLAUDE_DAG, CLAUDE_ODD, CLAUDE_SESSION, CLAUDE_SUBAGENTS, CODEX_CURRENT, CODEX_OLD } from '../../helpers/hooks.js';
import { tempDir } from '../../helpers/cli.js';

describe('Claude Code transcripts', () => {
  it('1.x session: goal from the slash command, edits, shell commands, 3 tool errors, Japanese last message split over two lines, subagent prompts excluded', () => {
    const s = readTranscript(CLAUDE_SESSION, { harness: 'claude-code' });
    expect(s.sessionId).toBe('7d3f9a2e-4b1c-4e8a-9f60-2c5d8e1a4b37');
    expect(s.cwd).toBe('/work/shop');
    expect(s.gitBranch).toBe('main');
    expect(s.startedAt).toBe('2025-10-14T08:15:03.014Z');
    expect(s.goal).toBe('/release-notes CHANGELOG.md を v2.3 に合わせて更新してください');
    // 18 user lines, but tool results, the isMeta expansion and the sidechain Task prompt are not prompts
    expect(s.prompts).toEqual([s.goal]);
    expect(s.files).toEqual(['/work/shop/CHANGELOG.md']);
    expect(s.commands).toContain('ls -la /work/shop');
    expect(s.commands).toContain('git log --merges --format=%s v2.2..HEAD'); // run by the inline subagent
    expect(s.commands).toHaveLength(5);
    expect(s.toolErrors).toHaveLength(3);
    expect(s.toolErrors.map((e) => e.split(':')[0])).toEqual(['Task', 'Bash', 'Edit']);
    // a heading line ("…the following issue:") keeps the line that says what the issue was
    expect(s.toolErrors[0]).toBe('Task: InputValidationError: Task failed due to the following issue: | The required parameter `prompt` is missing');
    // a bare exit-code line is passed over for the line that says what went wrong
    expect(s.toolErrors[1]).toBe('Bash: /bin/bash: line 1: lsx: command not found');
    expect(s.lastAssistant).toMatch(/^CHANGELOG\.md を v2\.3 の内容に更新しました。主な変更点：/);
    expect(s.lastAssistant).toContain('請求書の日付'); // the second line of the same message.id
    expect(s.lastAssistant).not.toContain('まず計画を立てます'); // an earlier response
    expect(s.openItems).toEqual([]); // every TodoWrite item ended completed
    expect(s).toMatchObject({ records: 33, invalidLines: 0, unknownRecords: 0, truncated: false, skippedBytes: 0 });
  });

  it('a tool error keeps the line that says what went wrong, past a bare exit code', () => {
    const s = emptySummary('claude-code');
    noteToolError(s, 'Bash', 'Exit code 1\nnpm ERR! Missing script: "test"\n\nnpm ERR! To see a list of scripts, run:');
    noteToolError(s, 'Bash', 'Exit code 2');
    noteToolError(s, 'Task', 'Failed:\nHeading two:\ndetail\nnot this');
    expect(s.toolErrors).toEqual(['Bash: npm ERR! Missing script: "test"', 'Bash: Exit code 2', 'Task: Failed: | Heading two: | detail']);
  });

  it('compaction and rewind: the abandoned branch is dropped, the compaction marker and summary become notes', () => {
    const s = readTranscript(CLAUDE_DAG, { harness: 'claude-code' });
    expect(s.sessionId).toBe('k2'); // neither the file name nor a uuid
    expect(s.prompts).toEqual(['Plan the retry queue', 'Use a fixed delay instead', 'Keep going with the fixed delay', 'Add the dead-letter queue']);
    expect(s.compactions[0]).toBe('Context compacted (auto, 152000 tokens before) at 2025-08-12T14:30:00.000Z');
    expect(s.compactions[1]).toMatch(/^Compaction summary: This session is being continued/);
    expect(s.compactions).toHaveLength(2);
    expect(s.lastAssistant).toBe('Dead-letter queue added.');
  });

  it('edge cases: non-record JSON, typo keys, string message, mixed todos, failing tool, summary title, unicode', () => {
    const s = readTranscript(CLAUDE_ODD, { harness: 'claude-code' });
    expect(s.unknownRecords).toBe(4); // "a bare JSON string", 7, ["not","a","record"], {"unrelated"}
    expect(s.invalidLines).toBe(0);
    expect(s.records).toBe(18);
    expect(s.title).toMatch(/^Checked how the parser copes with odd records/);
    expect(s.toolErrors).toEqual(['FailingTool: Error: Tool execution failed with error: Command not found']);
    expect(s.prompts).toContain('/lint-all --fix --report /tmp/lint.log');
    expect(s.prompts.some((p) => p.includes('中文') && p.includes('🎉'))).toBe(true);
    expect(s.prompts.some((p) => p.startsWith('A bare string block first,'))).toBe(true); // a bare string in a content array
    expect(s.prompts.some((p) => p.startsWith('Caveat:') || p.includes('local-command-stdout') || p.includes('typo'))).toBe(false);
    expect(s.openItems).toEqual(['[in_progress] Handle typo keys', '[pending] Document the tolerant reader', '[pending] Ask for a review']);
    expect(s.files).toEqual(['/tmp/odd_example.py']);
    expect(s.lastAssistant).toBe('Odd records checked ✅');
  });

  it('2.x subagent layout: subagent files are read for files and commands, never for prompts', () => {
    const s = readTranscript(CLAUDE_SUBAGENTS, { harness: 'claude-code' });
    const goal = 'Walk me through the repository layout, then compare the api and worker packages side by side.';
    expect(s.goal).toBe(goal);
    expect(s.prompts).toEqual([goal]); // the subagents' first prompts are not the person's
    expect(s.commands).toEqual(['ls packages/worker/src']);
    expect(s.files).toEqual(['/work/atlas/packages/worker/NOTES.md']);
    expect(s.lastAssistant).toMatch(/^Both packages are mapped/);
    expect(s).toMatchObject({ records: 10, invalidLines: 0, unknownRecords: 0 }); // the main file's records
    const plain = readTranscript(CLAUDE_SUBAGENTS, { harness: 'claude-code', subagents: false });
    expect(plain).toMatchObject({ goal, commands: [], files: [] });
    // a copy without the subagents folder has only the main file's content; a later subagent line counts
    const dir = tempDir();
    const main = join(dir, '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115.jsonl');
    copyFileSync(CLAUDE_SUBAGENTS, main);
    expect(readTranscript(main, { harness: 'claude-code' })).toMatchObject({ commands: [], files: [] });
    const sub = join(dir, '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115', 'subagents');
    mkdirSync(sub, { recursive: true });
    copyFileSync(join(CLAUDE_SUBAGENTS.slice(0, -'.jsonl'.length), 'subagents', 'agent-atlas01.jsonl'), join(sub, 'agent-atlas01.jsonl'));
    appendFileSync(
      join(sub, 'agent-atlas01.jsonl'),
      `${JSON.stringify({
        type: 'assistant',
        isSidechain: true,
        sessionId: '3e8b1c20-5a4d-4c71-8e2f-90b6d4a7c115',
        message: {
          id: 'x',
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls packages/api/test' } },
            { type: 'tool_use', id: 't2', name: 'Write', input: { file_path: '/work/atlas/packages/api/NOTES.md' } },
          ],
        },
      })}\n`,
    );
    const copied = readTranscript(main, { harness: 'claude-code' });
    expect(copied.commands).toEqual(['ls packages/api/test']);
    expect(copied.files).toEqual(['/work/atlas/packages/api/NOTES.md']);
    expect(copied.prompts).toEqual([goal]);
  });

  it('tolerates a half-written last line, invalid lines, blank and CRLF lines', () => {
    const dir = tempDir();
    const f = join(dir, 'aaaaaaaa-0000-4000-8000-000000000001.jsonl');
    const good = readFileSync(CLAUDE_DAG, 'utf8').replace(/\n/g, '\r\n');
    writeFileSync(f, `not json at all\n\n${good}{"type":"user","message":{"role":"user","content":"half`);
    const s = readTranscript(f, { harness: 'claude-code' });
    expect(s.invalidLines).toBe(2);
    expect(s.lastAssistant).toBe('Dead-letter queue added.');
    expect(s.records).toBe(12);
  });

  it('a transcript over the byte budget is read as head + tail windows, keeping the goal and the last state', () => {
    const dir = tempDir();
    const f = join(dir, 'bbbbbbbb-0000-4000-8000-000000000002.jsonl');
    const line = (i: number, type: string, content: unknown) =>
      `${JSON.stringify({ type, uuid: `u${i}`, sessionId: 'big', cwd: '/w', timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), message: { id: `m${i}`, role: type, content } })}\n`;
    const parts = [line(0, 'user', 'The real goal: make it fast')];
    const filler = 'x'.repeat(2000);
    for (let i = 1; i < 1500; i++) parts.push(line(i, 'assistant', [{ type: 'text', text: `${filler} ${i}` }]));
    parts.push(line(1500, 'user', 'Last request'), line(1501, 'assistant', [{ type: 'text', text: 'Final state: done' }]));
    writeFileSync(f, parts.join(''));
    const s = readTranscript(f, { harness: 'claude-code', maxBytes: 512 * 1024 });
    expect(s.goal).toBe('The real goal: make it fast');
    expect(s.lastAssistant).toBe('Final state: done');
    expect(s.prompts).toContain('Last request');
    expect(s.skippedBytes).toBeGreaterThan(2_000_000);
    expect(s.invalidLines).toBe(0); // the cut lines at the window edges are dropped, not parsed
  });

  it('stops at the deadline and says so', () => {
    let t = 0;
    const s = readTranscript(CLAUDE_SESSION, { harness: 'claude-code', deadline: 5, now: () => (t += 10) });
    expect(s.truncated).toBe(true);
    expect(s.skippedBytes).toBeGreaterThan(0);
  });
});

describe('Codex rollouts', () => {
  it('0.58 shapes, a session that never finished: prompt, shell commands, apply_patch edits, plan, failed commands, no last message', () => {
    const s = readTranscript(CODEX_OLD, { harness: 'codex' });
    expect(s.sessionId).toBe('0199a1c2-7b3e-7d10-a4f5-3c8e2b6d9f01');
    expect(s.cwd).toBe('/home/dev/projects/ledger');
    expect(s.gitBranch).toBe('main');
    expect(s.prompts).toHaveLength(1); // the <environment_context> message is not a prompt
    expect(s.goal).toMatch(/^wire the ledger export to the new CSV writer/);
    expect(s.files).toEqual(['src/export/index.ts']); // from the apply_patch heredoc inside a shell call
    expect(s.commands).toContain('cat package.json');
    expect(s.toolErrors).toEqual(["shell (exit 2): ls: cannot access 'src/legacy': No such file or directory"]);
    expect(s.openItems).toHaveLength(2);
    expect(s.openItems![0]).toMatch(/^\[in_progress\] Implement the CSV writer hook-up/);
    expect(s.lastAssistant).toBeUndefined();
    expect(JSON.stringify(s)).not.toContain('SYNTHETIC_CIPHERTEXT');
    expect(s).toMatchObject({ records: 28, invalidLines: 0, unknownRecords: 0 });
  });

  it('current shapes: exec_command, custom apply_patch, agent message, unknown record skipped', () => {
    const s = readTranscript(CODEX_CURRENT, { harness: 'codex' });
    expect(s.sessionId).toBe('aaaabbbb-cccc-4ddd-8eee-ffff00001111');
    expect(s.prompts).toEqual(['Which config files does the app read?']);
    expect(s.commands).toEqual(['ls config']);
    expect(s.files).toEqual(['config/README.md']);
    expect(s.lastAssistant).toBe('The app reads config/app.toml and config/logging.toml.');
    expect(s.unknownRecords).toBe(1);
    expect(JSON.stringify(s)).not.toContain('SYNTHETIC_ENCRYPTED_CONTENT');
  });

  it('legacy rollout without the envelope, and a compacted record', () => {
    const dir = tempDir();
    const f = join(dir, 'rollout-44444444-4444-4444-8444-444444444444.jsonl');
    writeFileSync(
      f,
      [
        { id: '44444444-4444-4444-8444-444444444444', timestamp: '2025-05-01T00:00:00.000Z' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the flaky test' }] },
        { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'npm test'] }), call_id: 'c1' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
        { timestamp: '2025-05-01T00:05:00.000Z', type: 'compacted', payload: { message: 'Summary of the earlier turns' } },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const s = readTranscript(f, { harness: 'codex' });
    expect(s.sessionId).toBe('44444444-4444-4444-8444-444444444444');
    expect(s.goal).toBe('Fix the flaky test');
    expect(s.commands).toEqual(['npm test']);
    expect(s.lastAssistant).toBe('Fixed.');
    expect(s.compactions).toEqual(['Compaction summary: Summary of the earlier turns']);
  });
});

describe('transcript path checks', () => {
  it('accepts only absolute regular .jsonl files without traversal or symlinks', () => {
    const dir = tempDir();
    const real = join(dir, 'cccccccc.jsonl');
    writeFileSync(real, '{}\n');
    symlinkSync(real, join(dir, 'link.jsonl'));
    mkdirSync(join(dir, 'dir.jsonl'));
    writeFileSync(join(dir, 'notes.txt'), '');
    expect(checkTranscriptPath(real)).toEqual({ ok: true, path: real });
    expect(checkTranscriptPath(join(dir, 'link.jsonl'))).toEqual({ ok: false, problem: 'symlink' });
    expect(checkTranscriptPath(join(dir, 'dir.jsonl'))).toEqual({ ok: false, problem: 'not-a-regular-file' });
    expect(checkTranscriptPath(join(dir, 'notes.txt'))).toEqual({ ok: false, problem: 'not-jsonl' });
    expect(checkTranscriptPath(`${dir}/../${dir.split('/').pop()}/cccccccc.jsonl`)).toEqual({ ok: false, problem: 'traversal' });
    expect(checkTranscriptPath('relative/x.jsonl')).toEqual({ ok: false, problem: 'not-absolute' });
    expect(checkTranscriptPath(join(dir, 'missing.jsonl'))).toEqual({ ok: false, problem: 'missing' });
    expect(checkTranscriptPath(42)).toEqual({ ok: false, problem: 'not-a-string' });
    expect(checkTranscriptPath(`${dir}/a\u0000.jsonl`)).toEqual({ ok: false, problem: 'too-long' });
  });
});
