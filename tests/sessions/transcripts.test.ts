import { appendFileSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscriptPath, readTranscript } from '../../src/sessions/transcripts/read-transcript.js';
import { emptySummary, noteToolError } from '../../src/sessions/transcripts/transcript-summary.js';
import { SHARED, tempDir } from '../helpers.js';

const T = join(SHARED, 'fixtures', 'transcripts');
const CLAUDE_REAL = join(T, 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const CLAUDE_DAG = join(T, 'claude/projects/-tmp/dag_compact_after_rewind.jsonl');
const CLAUDE_EDGE = join(T, 'claude/projects/-tmp/edge_cases.jsonl');
const CLAUDE_SUBAGENTS = join(T, 'claude/projects/-workspace-example-app/55550000-0000-4000-8000-000000000001.jsonl');
const CODEX_REAL = join(T, 'codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
const CODEX_SYNTH = join(T, 'codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');

describe('Claude Code transcripts', () => {
  it('real 1.x session: goal from the slash command, edits, shell commands, 3 tool errors, Japanese last message, subagent prompts excluded', () => {
    const s = readTranscript(CLAUDE_REAL, { harness: 'claude-code' });
    expect(s.sessionId).toBe('5c0375b4-57a5-4f26-b12d-d022ee4e51b7');
    expect(s.cwd).toBe('/path/to/Demo');
    expect(s.gitBranch).toBe('main');
    expect(s.startedAt).toBe('2025-09-07T09:52:03.071Z');
    expect(s.goal).toBe('/orchestrator @CLAUDE.md を最新の状態にアップデートしてください');
    // 25 user lines, but tool results, the isMeta expansion and the sidechain Task prompts are not prompts
    expect(s.prompts).toEqual([s.goal]);
    expect(s.files).toEqual(['/path/to/Demo/CLAUDE.md']);
    expect(s.commands).toContain('ls -la /path/to/Demo');
    expect(s.commands).toHaveLength(5);
    expect(s.toolErrors).toHaveLength(3);
    expect(s.toolErrors.map((e) => e.split(':')[0])).toEqual(['Task', 'Bash', 'Edit']);
    // a heading line ("…the following issue:") keeps the line that says what the issue was
    expect(s.toolErrors[0]).toBe('Task: InputValidationError: Task failed due to the following issue: | The required parameter `prompt` is missing');
    expect(s.toolErrors[1]).toBe('Bash: lsd: 3: No such file or directory (os error 2).');
    expect(s.lastAssistant).toMatch(/^CLAUDE\.mdファイルを最新の状態にアップデートしました/);
    expect(s.openItems).toEqual([]); // every TodoWrite item ended completed
    expect(s).toMatchObject({ records: 53, invalidLines: 0, unknownRecords: 0, truncated: false, skippedBytes: 0 });
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
    expect(s.sessionId).toBe('s1');
    expect(s.prompts).toEqual(['Start', 'Second attempt', 'Keep going', 'After compaction']);
    expect(s.compactions[0]).toBe('Context compacted (auto, 150000 tokens before) at 2025-07-01T10:30:00.000Z');
    expect(s.compactions[1]).toMatch(/^Compaction summary: This session is being continued/);
    expect(s.lastAssistant).toBe('Final answer');
  });

  it('edge cases: non-record JSON, typo keys, string message, mixed todos, failing tool, summary title, unicode', () => {
    const s = readTranscript(CLAUDE_EDGE, { harness: 'claude-code' });
    expect(s.unknownRecords).toBe(4); // "massive error", {"silly"}, 42, [1]
    expect(s.invalidLines).toBe(0);
    expect(s.title).toMatch(/^Tested various edge cases/);
    expect(s.toolErrors).toEqual(['FailingTool: Error: Tool execution failed with error: Command not found']);
    expect(s.prompts).toContain('/test-command --verbose --output /tmp/test.log');
    expect(s.prompts.some((p) => p.includes('中文') && p.includes('🎉'))).toBe(true);
    expect(s.prompts.some((p) => p.startsWith('Caveat:') || p.includes('local-command-stdout'))).toBe(false);
    expect(s.openItems).toEqual([
      '[in_progress] Implement core functionality',
      '[pending] Add comprehensive tests',
      '[pending] Write user documentation',
      '[pending] Perform code review',
    ]);
    expect(s.files).toEqual(['/tmp/complex_example.py']);
  });

  it('2.x subagent layout: subagent files are read for files and commands, never for prompts', () => {
    const dir = tempDir();
    const src = CLAUDE_SUBAGENTS.slice(0, -'.jsonl'.length);
    const main = join(dir, '55550000-0000-4000-8000-000000000001.jsonl');
    copyFileSync(CLAUDE_SUBAGENTS, main);
    mkdirSync(join(dir, '55550000-0000-4000-8000-000000000001', 'subagents'), { recursive: true });
    for (const f of ['agent-showcol1.jsonl', 'agent-showcol2.jsonl'])
      copyFileSync(join(src, 'subagents', f), join(dir, '55550000-0000-4000-8000-000000000001', 'subagents', f));
    appendFileSync(
      join(dir, '55550000-0000-4000-8000-000000000001', 'subagents', 'agent-showcol2.jsonl'),
      `${JSON.stringify({
        type: 'assistant',
        isSidechain: true,
        sessionId: '55550000-0000-4000-8000-000000000001',
        message: {
          id: 'x',
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls src/jobs' } },
            { type: 'tool_use', id: 't2', name: 'Write', input: { file_path: '/workspace/example-app/src/jobs/NOTES.md' } },
          ],
        },
      })}\n`,
    );
    const plain = readTranscript(CLAUDE_SUBAGENTS, { harness: 'claude-code' });
    expect(plain.goal).toBe('Give me a tour of the repository: its structure, then compare the web and jobs modules side by side.');
    expect(plain.prompts).toEqual([plain.goal]);
    const s = readTranscript(main, { harness: 'claude-code' });
    expect(s.commands).toEqual(['ls src/jobs']);
    expect(s.files).toEqual(['/workspace/example-app/src/jobs/NOTES.md']);
    expect(s.prompts).toEqual([plain.goal]);
    expect(s.lastAssistant).toMatch(/^Both modules are surveyed/);
  });

  it('tolerates a half-written last line, invalid lines, blank and CRLF lines', () => {
    const dir = tempDir();
    const f = join(dir, 'aaaaaaaa-0000-4000-8000-000000000001.jsonl');
    const good = readFileSync(CLAUDE_DAG, 'utf8').replace(/\n/g, '\r\n');
    writeFileSync(f, `not json at all\n\n${good}{"type":"user","message":{"role":"user","content":"half`);
    const s = readTranscript(f, { harness: 'claude-code' });
    expect(s.invalidLines).toBe(2);
    expect(s.lastAssistant).toBe('Final answer');
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
    const s = readTranscript(CLAUDE_REAL, { harness: 'claude-code', deadline: 5, now: () => (t += 10) });
    expect(s.truncated).toBe(true);
    expect(s.skippedBytes).toBeGreaterThan(0);
  });
});

describe('Codex rollouts', () => {
  it('real 0.58 session that never finished: prompt, shell commands, apply_patch edits, plan, failed commands, no last message', () => {
    const s = readTranscript(CODEX_REAL, { harness: 'codex' });
    expect(s.sessionId).toBe('019a93b9-f380-7600-98ff-940e6b99603c');
    expect(s.cwd).toBe('/home/user/projects/temp/chatbot-ui');
    expect(s.gitBranch).toBe('main');
    expect(s.prompts).toHaveLength(1); // the <environment_context> message is not a prompt
    expect(s.goal).toMatch(/^finish up the users work by rigging up the chatbot-ui to use lmstudio/);
    expect(s.files).toEqual(['components/chat/chat-helpers/index.ts']);
    expect(s.commands).toContain('cat package.json');
    expect(s.toolErrors.some((e) => e.includes("ls: cannot access 'lib/ai'"))).toBe(true);
    expect(s.openItems).toHaveLength(2);
    expect(s.openItems![0]).toMatch(/^\[in_progress\] Implement necessary code updates/);
    expect(s.lastAssistant).toBeUndefined();
    expect(s).toMatchObject({ records: 279, invalidLines: 0, unknownRecords: 0 });
  });

  it('synthetic current shapes: exec_command, custom apply_patch, agent message, unknown record skipped', () => {
    const s = readTranscript(CODEX_SYNTH, { harness: 'codex' });
    expect(s.sessionId).toBe('11111111-1111-4111-8111-111111111111');
    expect(s.prompts).toEqual(['List the synthetic files.']);
    expect(s.commands).toEqual(['find . -maxdepth 1 -type f']);
    expect(s.files).toEqual(['gamma.txt']);
    expect(s.lastAssistant).toBe('The synthetic files are alpha.txt and beta.txt.');
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
