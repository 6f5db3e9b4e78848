/**
 * The one test file that reads outside the repository: third-party sample transcripts (real
 * Claude Code and Codex sessions copied from public repositories, see SOURCES.md there) and the
 * reference-format memory fixtures in `../shared/fixtures`, which exist only beside the
 * project's own checkouts and in CI. In a plain clone the file says in one line that it skipped
 * them; the default suite covers the same properties with tests/fixtures (our synthetic files).
 * tests/self-contained.test.ts holds every other test file to that.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../src/document/parse.js';
import { serializeMemory } from '../src/document/serialize.js';
import { readTranscript } from '../src/sessions/transcripts/read-transcript.js';
import { cliEnv, gitRepo, REPO } from './helpers/cli.js';
import { hook, sessionsDirOf, snapshotNames } from './helpers/hooks.js';

const SHARED_FIXTURES = resolve(REPO, '..', 'shared', 'fixtures');
const present = existsSync(SHARED_FIXTURES);
if (!present) console.log(`third-party fixtures: skipped, ${SHARED_FIXTURES} is not there (CI has it beside the clone)`);

const T = join(SHARED_FIXTURES, 'transcripts');
const CLAUDE_REAL = join(T, 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const CLAUDE_DAG = join(T, 'claude/projects/-tmp/dag_compact_after_rewind.jsonl');
const CLAUDE_EDGE = join(T, 'claude/projects/-tmp/edge_cases.jsonl');
const CLAUDE_SUBAGENTS = join(T, 'claude/projects/-workspace-example-app/55550000-0000-4000-8000-000000000001.jsonl');
const CODEX_REAL = join(T, 'codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
const CODEX_SYNTH = join(T, 'codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
const ecc = (name: string) => readFileSync(join(SHARED_FIXTURES, 'ecc', name));
const obsidian = (name: string) => readFileSync(join(SHARED_FIXTURES, 'obsidian', name));

describe.skipIf(!present)('third-party sample transcripts (../shared/fixtures/transcripts)', () => {
  it('real Claude Code 1.x session: goal from the slash command, edits, shell commands, 3 tool errors, Japanese last message, subagent prompts excluded', () => {
    const s = readTranscript(CLAUDE_REAL, { harness: 'claude-code' });
    expect(s.sessionId).toBe('5c0375b4-57a5-4f26-b12d-d022ee4e51b7');
    expect(s.cwd).toBe('/path/to/Demo');
    expect(s.gitBranch).toBe('main');
    expect(s.startedAt).toBe('2025-09-07T09:52:03.071Z');
    expect(s.goal).toBe('/orchestrator @CLAUDE.md を最新の状態にアップデートしてください');
    expect(s.prompts).toEqual([s.goal]);
    expect(s.files).toEqual(['/path/to/Demo/CLAUDE.md']);
    expect(s.commands).toContain('ls -la /path/to/Demo');
    expect(s.commands).toHaveLength(5);
    expect(s.toolErrors.map((e) => e.split(':')[0])).toEqual(['Task', 'Bash', 'Edit']);
    expect(s.toolErrors[0]).toBe('Task: InputValidationError: Task failed due to the following issue: | The required parameter `prompt` is missing');
    expect(s.toolErrors[1]).toBe('Bash: lsd: 3: No such file or directory (os error 2).');
    expect(s.lastAssistant).toMatch(/^CLAUDE\.mdファイルを最新の状態にアップデートしました/);
    expect(s.openItems).toEqual([]);
    expect(s).toMatchObject({ records: 53, invalidLines: 0, unknownRecords: 0, truncated: false, skippedBytes: 0 });
  });

  it('compaction after a rewind: the abandoned branch is dropped, the marker and summary become notes', () => {
    const s = readTranscript(CLAUDE_DAG, { harness: 'claude-code' });
    expect(s.sessionId).toBe('s1');
    expect(s.prompts).toEqual(['Start', 'Second attempt', 'Keep going', 'After compaction']);
    expect(s.compactions[0]).toBe('Context compacted (auto, 150000 tokens before) at 2025-07-01T10:30:00.000Z');
    expect(s.compactions[1]).toMatch(/^Compaction summary: This session is being continued/);
    expect(s.lastAssistant).toBe('Final answer');
  });

  it('edge cases: non-record JSON, typo keys, string message, mixed todos, failing tool, summary title, unicode', () => {
    const s = readTranscript(CLAUDE_EDGE, { harness: 'claude-code' });
    expect(s.unknownRecords).toBe(4);
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

  it('Claude Code 2.1 subagent layout: the subagent files add no prompt', () => {
    const s = readTranscript(CLAUDE_SUBAGENTS, { harness: 'claude-code' });
    expect(s.goal).toBe('Give me a tour of the repository: its structure, then compare the web and jobs modules side by side.');
    expect(s.prompts).toEqual([s.goal]);
    expect(s.lastAssistant).toMatch(/^Both modules are surveyed/);
  });

  it('real Codex 0.58 session that never finished: prompt, shell commands, apply_patch edits, plan, failed commands, no last message', () => {
    const s = readTranscript(CODEX_REAL, { harness: 'codex' });
    expect(s.sessionId).toBe('019a93b9-f380-7600-98ff-940e6b99603c');
    expect(s.cwd).toBe('/home/user/projects/temp/chatbot-ui');
    expect(s.gitBranch).toBe('main');
    expect(s.prompts).toHaveLength(1);
    expect(s.goal).toMatch(/^finish up the users work by rigging up the chatbot-ui to use lmstudio/);
    expect(s.files).toEqual(['components/chat/chat-helpers/index.ts']);
    expect(s.commands).toContain('cat package.json');
    expect(s.toolErrors.some((e) => e.includes("ls: cannot access 'lib/ai'"))).toBe(true);
    expect(s.openItems).toHaveLength(2);
    expect(s.openItems![0]).toMatch(/^\[in_progress\] Implement necessary code updates/);
    expect(s.lastAssistant).toBeUndefined();
    expect(s).toMatchObject({ records: 279, invalidLines: 0, unknownRecords: 0 });
  });

  it('synthetic Codex rollout in current shapes: exec_command, custom apply_patch, agent message, unknown record skipped', () => {
    const s = readTranscript(CODEX_SYNTH, { harness: 'codex' });
    expect(s.sessionId).toBe('11111111-1111-4111-8111-111111111111');
    expect(s.prompts).toEqual(['List the synthetic files.']);
    expect(s.commands).toEqual(['find . -maxdepth 1 -type f']);
    expect(s.files).toEqual(['gamma.txt']);
    expect(s.lastAssistant).toBe('The synthetic files are alpha.txt and beta.txt.');
    expect(s.unknownRecords).toBe(1);
    expect(JSON.stringify(s)).not.toContain('SYNTHETIC_ENCRYPTED_CONTENT');
  });

  it('the stop hook turns the real transcripts into snapshots', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const claude = await hook('stop', { session_id: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7', transcript_path: CLAUDE_REAL, cwd: repo }, { cwd: repo, env });
    expect(claude).toMatchObject({ code: 0, stdout: '' });
    const codex = await hook(
      'stop',
      { session_id: '019a93b9-f380-7600-98ff-940e6b99603c', transcript_path: CODEX_REAL, cwd: repo },
      { cwd: repo, env, harness: 'codex' },
    );
    expect(codex.code).toBe(0);
    expect(snapshotNames(env)).toEqual(['2025-09-07-ee4e51b7-session.tmp', '2025-11-17-6b99603c-session.tmp']);
    const text = readFileSync(join(sessionsDirOf(env), '2025-09-07-ee4e51b7-session.tmp'), 'utf8').split('\n');
    for (const line of [
      '/orchestrator @CLAUDE.md を最新の状態にアップデートしてください',
      '- /path/to/Demo/CLAUDE.md',
      '> CLAUDE.mdファイルを最新の状態にアップデートしました。主な更新内容：',
    ])
      expect(text).toContain(line);
    const codexText = readFileSync(join(sessionsDirOf(env), '2025-11-17-6b99603c-session.tmp'), 'utf8');
    expect(codexText).toContain("- shell (exit 2): ls: cannot access 'lib/ai': No such file or directory");
    expect(codexText).toMatch(/## Last state\n\n_unknown_/);
  });
});

describe.skipIf(!present)('reference and Obsidian memory fixtures (../shared/fixtures/ecc, obsidian)', () => {
  it('the reference documents parse to the same values and re-serialize byte-identical', () => {
    for (const name of ['mem_20260725_01kolder.md', 'mem_20260726_01k123example.md']) {
      const p = parseMemory(ecc(name));
      expect(p.canonical).toBe(true);
      expect(Buffer.from(serializeMemory(p.memory), 'utf8').equals(ecc(name))).toBe(true);
    }
    expect(parseMemory(ecc('mem_20260726_01k123example.md')).memory).toMatchObject({
      id: 'mem_20260726_01k123example',
      title: 'Authentication migration handoff',
      kind: 'handoff',
      tags: ['auth', 'migration'],
      links: ['mem_20260725_01kolder'],
      createdAt: '2026-07-26T20:00:00.000Z',
    });
  });

  it('the Obsidian-edited handoff has the reference values except what the person changed; "Date & time" is refused with its cause', () => {
    const ref = parseMemory(ecc('mem_20260726_01k123example.md')).memory;
    const obs = parseMemory(obsidian('mem_20260726_01k123example.md'));
    expect(obs.nonCanonical).toEqual(['frontmatter-style']);
    expect({ ...obs.memory, scope: ref.scope, status: ref.status, body: ref.body }).toEqual(ref);
    expect(() => parseMemory(obsidian('mem_20260801_datetime.md'))).toThrow(/created_at/);
    try {
      parseMemory(obsidian('mem_20260801_datetime.md'));
    } catch (err) {
      expect(String((err as { hint?: string }).hint)).toMatch(/Date & time/);
    }
  });

  it('the Obsidian vault fixture holds the shared Obsidian sample byte for byte', () => {
    expect(readFileSync(join(REPO, 'tests/fixtures/obsidian-vault/team/handoffs/mem_20260726_01k123example.md'), 'utf8')).toBe(
      obsidian('mem_20260726_01k123example.md').toString('utf8'),
    );
  });
});
