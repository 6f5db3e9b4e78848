/**
 * The proposal extractor's edge cases: bad input of every kind (garbage, huge, cut and
 * non-UTF-8 lines, empty transcripts, tool calls only), hygiene (secrets redacted, invisible and
 * control characters stripped, titles and tags within the ecc.memory.v1 rules, every proposal a
 * valid memory body), and the incremental contract (state round trip, deadline and resume,
 * fingerprints, withdrawals, hand-off replacement, Codex exec sessions).
 */
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../../src/document/parse.js';
import { serializeMemory } from '../../../src/document/serialize.js';
import { commandFamily, errorLines, isLookOnly, outputSaysFailed } from '../../../src/sessions/proposals/commands.js';
import {
  createExtractorState,
  EXTRACTOR_LIMITS,
  extractProposals,
  extractProposalsFromBytes,
  parseExtractorState,
  type Proposal,
  serializeExtractorState,
} from '../../../src/sessions/proposals/index.js';
// @ts-expect-error: a JavaScript fixture module without type declarations
import { claudeSession, codexSession } from '../../fixtures/capture/format.mjs';

const TAG = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const lines = (jsonl: string) => jsonl.trimEnd().split('\n');
// Claude Code 1.x layout (no file-history-snapshot records), so that line numbers are easy to follow.
const claude = (name: string, steps: object[], opts: object = {}): string[] =>
  lines(claudeSession({ name, cwd: '/home/dev/src/app', version: '1.0.108', ...opts }, steps));
const codex = (name: string, steps: object[], opts: object = {}): string[] => lines(codexSession({ name, cwd: '/home/dev/src/app', ...opts }, steps));

/** A memory document made from a proposal, as `vault review accept` would save it. */
function asMemory(p: Proposal): string {
  return serializeMemory({
    schema: 'ecc.memory.v1',
    id: 'mem_20260302_0123456789abcdef0123',
    title: p.title,
    kind: p.kind,
    scope: 'project',
    trust: 'unreviewed',
    status: 'active',
    sourceHarness: p.evidence.harness,
    targetHarnesses: ['all'],
    tags: p.tags,
    links: [],
    createdAt: '2026-03-02T09:00:00.000Z',
    updatedAt: '2026-03-02T09:00:00.000Z',
    body: p.body,
  });
}

const lessonSteps = [
  { user: 'fix the build' },
  { bash: 'npm run build', exit: 1, out: "src/a.ts(3,1): error TS2304: Cannot find name 'foo'." },
  { edit: '/home/dev/src/app/src/a.ts', old: 'foo()', new: 'bar()' },
  { bash: 'npm run build', out: 'done' },
];

describe('bad input', () => {
  it('an empty transcript: no proposals, nothing consumed', () => {
    const r = extractProposals([], undefined, { event: 'session-end' });
    expect(r.proposals).toEqual([]);
    expect(r.withdrawn).toEqual([]);
    expect(r.state.line).toBe(0);
    const b = extractProposalsFromBytes(new Uint8Array(0), undefined, { event: 'session-end' });
    expect(b.proposals).toEqual([]);
    expect(b.state.byteOffset).toBe(0);
  });

  it('records already parsed are read like their lines', () => {
    const text = claude('entries', [{ user: "Let's go with Redis for the sessions." }, ...lessonSteps]);
    const fromLines = extractProposals(text);
    const fromEntries = extractProposals(text.map((l) => JSON.parse(l) as unknown));
    expect(fromEntries.proposals).toEqual(fromLines.proposals);
    expect(fromEntries.proposals.map((p) => p.kind)).toEqual(['decision', 'lesson']);
  });

  it('garbage lines are counted and skipped; line numbers stay those of the file', () => {
    const good = claude('garbage', [{ user: "Let's go with Redis for the sessions." }]);
    const input = ['not json', '42', '"a string"', '[1,2]', '{"silly": "this"}', '', '   ', '\r', '{"type":"user","message":"error"}', ...good];
    const r = extractProposals(input);
    expect(r.stats.invalidLines).toBe(4); // not json, 42, "a string", [1,2]
    expect(r.state.line).toBe(input.length);
    expect(r.proposals).toHaveLength(1);
    expect(r.proposals[0]!.evidence.line).toBe(input.length); // the user line is the last one
  });

  it('a line over the limit is skipped without being parsed; a large one under it is read within bounds', () => {
    const huge = `{"type":"user","message":{"role":"user","content":"${'x'.repeat(EXTRACTOR_LIMITS.lineChars)}"}}`;
    const r = extractProposals([huge, ...claude('huge', [{ user: 'Never commit generated files.' }])]);
    expect(r.stats.oversizedLines).toBe(1);
    expect(r.proposals.map((p) => p.kind)).toEqual(['preference']);
    // 3 MB of prose with a cue at the start: one proposal, capped body, fast enough to be bounded.
    const big = claude('big', [{ user: `Always run the linter before committing. ${'word '.repeat(600_000)}` }]);
    const t = performance.now();
    const b = extractProposals(big);
    expect(performance.now() - t).toBeLessThan(2000);
    expect(b.proposals).toHaveLength(1);
    expect(b.proposals[0]!.body.length).toBeLessThanOrEqual(16_000);
    const bytes = Buffer.from(`${'{"a":"'.padEnd(EXTRACTOR_LIMITS.lineChars + 10, 'y')}"}\n${big.join('\n')}\n`);
    const fromBytes = extractProposalsFromBytes(bytes);
    expect(fromBytes.stats.oversizedLines).toBe(1);
    expect(fromBytes.proposals).toHaveLength(1);
  });

  it('a line cut mid-JSON: counted as invalid in lines; from bytes it waits for the rest, and counts as invalid only at the end', () => {
    const all = claude('cut', [{ user: 'I prefer tabs over spaces in Makefiles, obviously.' }, { assistant: 'Noted.' }]);
    const cut = all[0]!.slice(0, 40);
    expect(extractProposals([cut]).stats.invalidLines).toBe(1);
    const text = `${all.join('\n')}\n`;
    const half = Buffer.from(text).subarray(0, Buffer.byteLength(all[0]!) + 20); // first line and part of the second
    const first = extractProposalsFromBytes(half);
    expect(first.state.byteOffset).toBe(Buffer.byteLength(all[0]!) + 1);
    expect(first.state.line).toBe(1);
    expect(first.stats.invalidLines).toBe(0);
    const rest = extractProposalsFromBytes(Buffer.from(text).subarray(first.state.byteOffset), first.state, { event: 'session-end' });
    expect(rest.state.line).toBe(2);
    expect(rest.state.invalidLines).toBe(0);
    expect([...first.proposals, ...rest.proposals].map((p) => p.kind)).toEqual(['preference']);
    // At session end the file is complete: a half-written last line is read, and is invalid.
    const end = extractProposalsFromBytes(half, undefined, { event: 'session-end' });
    expect(end.stats.invalidLines).toBe(1);
    expect(end.state.byteOffset).toBe(half.length);
  });

  it('a line that is not UTF-8 is counted as invalid; the lines around it are read', () => {
    const good = claude('utf8', [{ user: 'Never push to main directly.' }]);
    const bad = Buffer.concat([Buffer.from('{"type":"user","message":{"role":"user","content":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}\n')]);
    const r = extractProposalsFromBytes(Buffer.concat([bad, Buffer.from(`${good.join('\n')}\n`)]));
    expect(r.stats.invalidLines).toBe(1);
    expect(r.proposals.map((p) => p.kind)).toEqual(['preference']);
    expect(r.proposals[0]!.evidence.line).toBe(2);
  });

  it('a transcript with only tool calls proposes nothing (and a failure never fixed teaches nothing)', () => {
    const only = claude('tools', [
      { bash: 'ls', out: 'a\nb' },
      { read: '/home/dev/src/app/a.ts', out: 'export {}' },
      { grep: 'TODO', out: 'No matches found' },
      { bash: 'npm test', exit: 1, out: 'FAIL test/a.test.ts\n  ● adds\n\n    expect(received).toBe(expected)' },
      { edit: '/home/dev/src/app/a.ts', old: 'a', new: 'b' },
      { bash: 'npm test', exit: 1, out: 'FAIL test/a.test.ts' },
    ]);
    const r = extractProposals(only, undefined, { event: 'session-end' });
    expect(r.proposals).toEqual([]);
    expect(r.state.failures.map((f) => f.family)).toEqual(['npm test']);
    const cx = codex('tools', [
      { shell: 'ls', out: 'a\n' },
      { shell: 'cargo build', exit: 101, out: 'error[E0425]: cannot find value `x` in this scope' },
    ]);
    expect(extractProposals(cx, undefined, { event: 'stop' }).proposals).toEqual([]);
  });

  it('records of unknown types, sidechain (subagent) lines and harness-injected text are ignored', () => {
    const sidechain = JSON.stringify({
      parentUuid: null,
      isSidechain: true,
      type: 'user',
      sessionId: 's',
      message: { role: 'user', content: 'Never use tabs. Always use spaces.' },
      uuid: 'u1',
    });
    const injected = claude('inj', [{ reminder: 'Always answer in French.' }, { user: '<local-command-stdout>never mind</local-command-stdout>' }]);
    const r = extractProposals([sidechain, '{"type":"future_record","payload":{"x":1}}', ...injected], undefined, { harness: 'claude-code' });
    expect(r.proposals).toEqual([]);
  });
});

describe('hygiene', () => {
  it('credential shapes are redacted in titles, bodies and the stored state', () => {
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2)}`;
    const aws = 'AKIA' + 'Z7Q2W9X4R6T8Y3U5'; // a fake key id (AWS's documented example key is not a secret)
    const r = extractProposals(
      claude('secret', [
        { user: `Never paste the deploy token ${token} into chat again; use the vault CLI.` },
        { bash: `AWS_ACCESS_KEY_ID=${aws} npm run deploy`, exit: 1, out: `Error: InvalidClientTokenId: the key ${aws} is not valid` },
        { edit: '/home/dev/src/app/deploy.ts', old: 'a', new: 'b' },
        { bash: `AWS_ACCESS_KEY_ID=${aws} npm run deploy`, out: 'deployed' },
      ]),
    );
    expect(r.proposals.map((p) => p.kind)).toEqual(['preference', 'lesson']);
    const all = JSON.stringify(r.proposals) + serializeExtractorState(r.state);
    expect(all).not.toContain(token);
    expect(all).not.toContain(aws);
    expect(r.proposals[0]!.title).toContain('[REDACTED GitHub token]');
    expect(r.proposals[1]!.body).toContain('[REDACTED AWS access key]');
  });

  it('control, bidi and invisible characters are stripped; ANSI colours do not hide a failure', () => {
    const r = extractProposals(
      claude('controls', [
        { user: 'Always\u202e use \u200bthe\u0007 \u001b[31mstaging\u001b[0m profile\u2066 for smoke tests.' },
        { bash: 'npm test 2>&1 | tail -3', out: '\u001b[31mFAIL\u001b[39m test/a.test.ts\nTests: 1 failed, 4 passed' },
        { edit: '/home/dev/src/app/a.ts', old: 'a', new: 'b' },
        { bash: 'npm test 2>&1 | tail -3', out: 'Tests: 5 passed' },
      ]),
    );
    expect(r.proposals.map((p) => p.kind)).toEqual(['preference', 'lesson']);
    expect(r.proposals[0]!.title).toBe('Always use the staging profile for smoke tests');
    for (const p of r.proposals) {
      expect(p.title + p.body).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b]/);
    }
  });

  it('titles are trimmed and at most 200 characters, tags are slugs, and every proposal of both corpora is a valid memory', async () => {
    const long = `We'll go with ${'a very long justification '.repeat(30)}for Postgres.`;
    const r = extractProposals(claude('long', [{ user: long }]));
    expect(r.proposals[0]!.title.length).toBeLessThanOrEqual(200);
    expect(r.proposals[0]!.title).toBe(r.proposals[0]!.title.trim());
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    let n = 0;
    for (const folder of ['capture', 'capture-holdout'])
      for (const dir of ['claude', 'codex']) {
        const root = join(__dirname, '..', '..', 'fixtures', folder, dir);
        for (const f of readdirSync(root).filter((x) => x.endsWith('.jsonl'))) {
          const res = extractProposals(lines(readFileSync(join(root, f), 'utf8')), undefined, { event: 'session-end' });
          for (const p of [...res.proposals, ...r.proposals]) {
            n++;
            expect(p.title.length).toBeGreaterThan(0);
            expect(p.title.length).toBeLessThanOrEqual(200);
            expect(p.tags.length).toBeLessThanOrEqual(6);
            for (const t of p.tags) expect(t).toMatch(TAG);
            expect(p.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
            expect(p.evidence.line).toBeGreaterThan(0);
            const doc = parseMemory(asMemory(p));
            expect(doc.memory.body).toBe(p.body);
          }
        }
      }
    expect(n).toBeGreaterThan(50);
  });
});

describe('incremental contract', () => {
  it('the state survives a JSON round trip; a corrupt or foreign state is refused, bad entries are dropped', () => {
    const r = extractProposals(claude('state', [...lessonSteps.slice(0, 2)]));
    const text = serializeExtractorState(r.state);
    expect(parseExtractorState(text)).toEqual(JSON.parse(text));
    expect(parseExtractorState('{')).toBeUndefined();
    expect(parseExtractorState('[]')).toBeUndefined();
    expect(parseExtractorState(JSON.stringify({ ...r.state, version: 2 }))).toBeUndefined();
    expect(parseExtractorState(JSON.stringify({ ...r.state, line: -1 }))).toBeUndefined();
    const broken = parseExtractorState(
      JSON.stringify({ ...r.state, failures: [{ family: 3 }, ...r.state.failures], calls: { x: { kind: 'rm -rf' } }, seen: 'no' }),
    );
    expect(broken?.failures).toHaveLength(1);
    expect(broken?.calls).toEqual({});
    expect(broken?.seen).toEqual([]);
    // The resumed run finishes the lesson the first run started.
    const resumed = extractProposals(claude('state', lessonSteps).slice(r.state.line), parseExtractorState(text));
    expect(resumed.proposals.map((p) => p.kind)).toEqual(['lesson']);
    expect(createExtractorState().version).toBe(1);
  });

  it('a deadline stops the run; the next run resumes where it stopped and proposes the rest', () => {
    const chatter = Array.from({ length: 40 }, (_, i) => ({ assistant: `Looking at file ${i}.` }));
    const all = claude('deadline', [
      { user: 'Never use default exports.' },
      ...chatter,
      ...lessonSteps,
      ...chatter,
      { user: 'From now on, name branches after the issue.' },
    ]);
    let clock = 0;
    const first = extractProposals(all, undefined, { deadline: 0, now: () => clock++ });
    expect(first.stats.stoppedEarly).toBe(true);
    expect(first.state.line).toBeLessThan(all.length);
    const second = extractProposals(all.slice(first.state.line), first.state, { event: 'session-end' });
    expect(second.stats.stoppedEarly).toBe(false);
    const once = extractProposals(all, undefined, { event: 'session-end' });
    expect([...first.proposals, ...second.proposals].map((p) => p.fingerprint)).toEqual(once.proposals.map((p) => p.fingerprint));
    expect(once.proposals.map((p) => p.kind)).toEqual(['preference', 'lesson', 'preference']);
  });

  it('the same thing said in another session has the same fingerprint; the same run again proposes nothing new', () => {
    const a = extractProposals(claude('one', [{ user: "Let's use Vitest for the new package." }]));
    const b = extractProposals(claude('two', [{ assistant: 'Hello.' }, { user: "let's use vitest for the new package!" }]));
    expect(a.proposals[0]!.fingerprint).toBe(b.proposals[0]!.fingerprint);
    expect(a.proposals[0]!.evidence.sessionId).not.toBe(b.proposals[0]!.evidence.sessionId);
    const again = extractProposals(claude('one', [{ user: "Let's use Vitest for the new package." }]), a.state);
    expect(again.proposals).toEqual([]);
  });

  it("an agent's decision the person turns down is dropped in the same run, withdrawn in a later one", () => {
    const steps = [
      { user: 'Pick a queue library.' },
      { assistant: "I've decided to use BullMQ for the job queue." },
      { user: 'No, we have RabbitMQ already; use amqplib.' },
    ];
    const all = claude('reject', steps);
    expect(extractProposals(all).proposals).toEqual([]);
    const first = extractProposals(all.slice(0, 2));
    expect(first.proposals.map((p) => p.kind)).toEqual(['decision']);
    const second = extractProposals(all.slice(2), first.state);
    expect(second.withdrawn).toEqual([first.proposals[0]!.fingerprint]);
    // Agreement keeps it.
    const ok = claude('agree', [...steps.slice(0, 2), { user: 'sounds good' }]);
    expect(extractProposals(ok).proposals).toHaveLength(1);
  });

  it('a hand-off is proposed at a stop, not proposed again while the open items stay, replaced when they change, withdrawn when all are done', () => {
    const todos = (a: string, b: string) => ({
      todos: [
        [a, 'Write the parser'],
        [b, 'Document the format'],
      ],
    });
    const all = claude('handoff', [
      { user: 'Parse the new format.' },
      todos('in_progress', 'pending'),
      todos('completed', 'pending'),
      todos('completed', 'completed'),
    ]);
    const r1 = extractProposals(all.slice(0, 3), undefined, { event: 'stop' });
    expect(r1.proposals.map((p) => [p.kind, p.slot])).toEqual([['handoff', `handoff:${r1.state.sessionId}`]]);
    expect(r1.proposals[0]!.body).toMatch(/## Next steps\n\n1\. Write the parser \(in progress\)\n2\. Document the format/);
    expect(extractProposals([], r1.state, { event: 'stop' }).proposals).toEqual([]);
    expect(extractProposals(all.slice(0, 3), undefined, { event: 'pre-compact' }).proposals).toEqual([]);
    const r2 = extractProposals(all.slice(3, 5), r1.state, { event: 'stop' });
    expect(r2.proposals).toHaveLength(1);
    expect(r2.withdrawn).toEqual([r1.proposals[0]!.fingerprint]);
    const r3 = extractProposals(all.slice(5), r2.state, { event: 'session-end' });
    expect(r3.proposals).toEqual([]);
    expect(r3.withdrawn).toEqual([r2.proposals[0]!.fingerprint]);
  });

  it('Codex: a command still running is resolved by the write_stdin output that carries its exit code', () => {
    const meta = { timestamp: '2026-03-02T09:00:00.000Z', type: 'session_meta', payload: { id: 'cx-1', cwd: '/w' } };
    const call = (id: string, name: string, args: object) => ({
      timestamp: '2026-03-02T09:00:01.000Z',
      type: 'response_item',
      payload: { type: 'function_call', name, arguments: JSON.stringify(args), call_id: id },
    });
    const out = (id: string, output: string) => ({
      timestamp: '2026-03-02T09:00:02.000Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: id, output },
    });
    const rec = [
      meta,
      call('c1', 'exec_command', { cmd: 'cargo test' }),
      out('c1', 'Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\n   Compiling app\n'),
      call('c2', 'write_stdin', { session_id: 7, chars: '' }),
      out('c2', 'Chunk ID: 2\nWall time: 3.0 seconds\nProcess exited with code 101\nOutput:\nerror[E0599]: no method named `len` found for struct `Cart`\n'),
      {
        timestamp: '2026-03-02T09:00:03.000Z',
        type: 'response_item',
        payload: {
          type: 'custom_tool_call',
          name: 'apply_patch',
          call_id: 'c3',
          input: '*** Begin Patch\n*** Update File: src/cart.rs\n@@\n-x\n+y\n*** End Patch',
        },
      },
      {
        timestamp: '2026-03-02T09:00:04.000Z',
        type: 'response_item',
        payload: { type: 'custom_tool_call_output', call_id: 'c3', output: 'Success. Updated the following files:\nM src/cart.rs\n' },
      },
      call('c4', 'exec_command', { cmd: 'cargo test' }),
      out('c4', 'Chunk ID: 3\nWall time: 9.0 seconds\nProcess exited with code 0\nOutput:\ntest result: ok. 3 passed\n'),
    ].map((x) => JSON.stringify(x));
    const r = extractProposals(rec, undefined, { event: 'stop' });
    expect(r.state.harness).toBe('codex');
    expect(r.proposals.map((p) => p.kind)).toEqual(['lesson']);
    expect(r.proposals[0]!.title).toContain('E0599');
    expect(r.proposals[0]!.title).toContain('src/cart.rs');
    expect(r.proposals[0]!.evidence).toMatchObject({ harness: 'codex', sessionId: 'cx-1', line: 5 });
  });

  it('a refused tool use is the context of the correction that follows it', () => {
    const r = extractProposals(
      claude('refused', [
        { user: 'clean the build folder' },
        { rejectTool: { name: 'Bash', input: { command: 'rm -rf build dist node_modules' } } },
        { user: "Don't delete node_modules, only build/ and dist/." },
      ]),
    );
    expect(r.proposals).toHaveLength(1);
    expect(r.proposals[0]!.body).toContain('after the agent tried to run `rm -rf build dist node_modules`, and the person stopped it');
  });
});

describe('cue phrases', () => {
  it('preferences stated with "I\'d rather", "I would prefer", "we\'d prefer" are preferences', () => {
    for (const text of ["I'd rather you ask before deleting files.", 'I would prefer squashed commits on this repo.', "We'd prefer tabs in the Makefile."]) {
      const r = extractProposals(claude(text, [{ user: text }]));
      expect(
        r.proposals.map((p) => p.kind),
        text,
      ).toEqual(['preference']);
    }
  });
});

describe('cue phrases: contractions', () => {
  it('"we\'re going with", "I\'m going with", "we\'ve decided" are decisions', () => {
    for (const text of ["OK we're going with Cloudflare R2 for the uploads.", "I'm going with the streaming parser.", "We've decided to drop IE 11 support."]) {
      const r = extractProposals(claude(text, [{ user: text }]));
      expect(
        r.proposals.map((p) => p.kind),
        text,
      ).toEqual(['decision']);
    }
  });
});

describe('cue phrases: labels', () => {
  it('a decision written as a label ("Decision: use Postgres") is titled by what the label introduces, and its reason is not the decision again', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['Decision: use Postgres for the job queue.', 'Use Postgres for the job queue', /Not stated|not stated/],
      ['Decided: drop the Redis cache, because it lost jobs on restart.', 'Drop the Redis cache', /it lost jobs on restart/],
      ['We decided: ship the CLI before the MCP server.', 'Ship the CLI before the MCP server', /Not stated|not stated/],
    ];
    for (const [text, title, why] of cases) {
      const r = extractProposals(claude(text, [{ user: text }]));
      expect(
        r.proposals.map((p) => p.kind),
        text,
      ).toEqual(['decision']);
      expect(r.proposals[0]!.title, text).toBe(title);
      const whyPart = r.proposals[0]!.body.split('## Why')[1] ?? '';
      expect(whyPart, text).toMatch(why);
    }
  });
});

describe('cue phrases: stated lessons', () => {
  it('a lesson stated with a label ("Lesson:", "TIL:", 教训：) is a lesson proposal titled by the lesson; a lesson told in passing is not', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['Lesson: Redis lost jobs on restart because AOF was off.', 'Redis lost jobs on restart because AOF was off', /AOF was off/],
      ['Lesson learned: run the migrations before the seed script.', 'Run the migrations before the seed script', /Not stated in the session/],
      ['TIL: pnpm needs --shamefully-hoist for this plugin.', 'Pnpm needs --shamefully-hoist for this plugin', /Not stated in the session/],
      ['教训：部署前先备份数据库。', '部署前先备份数据库', /Not stated in the session/],
    ];
    for (const [text, title, why] of cases) {
      const r = extractProposals(claude(text, [{ user: 'deploy the queue' }, { assistant: text }]));
      expect(
        r.proposals.map((p) => p.kind),
        text,
      ).toEqual(['lesson']);
      expect(r.proposals[0]!.title, text).toBe(title);
      const parts = r.proposals[0]!.body.split('## ');
      expect(parts.find((x) => x.startsWith('Why'))!, text).toMatch(why);
      expect(parts.find((x) => x.startsWith('What happened'))!, text).toContain('deploy the queue');
      expect(parseMemory(asMemory(r.proposals[0]!)).memory.title).toBe(title);
    }
    for (const text of ['The lesson here is that nobody reads the logs.', 'Lesson: ok', 'What is the lesson: nobody knows?']) {
      expect(
        extractProposals(claude(text, [{ user: text }])).proposals.map((p) => p.kind),
        text,
      ).toEqual([]);
    }
  });
});

describe('commands', () => {
  it('families ignore wrappers, flags, chains and pipes', () => {
    expect(commandFamily('cd api && npm test -- --watch=false 2>&1 | tail -20')).toBe('npm test');
    expect(commandFamily('python -m pytest -x tests/')).toBe('pytest');
    expect(commandFamily('uv run pytest')).toBe('pytest');
    expect(commandFamily('FOO=1 npm run db:migrate')).toBe('npm run db:migrate');
    expect(commandFamily('pnpm --filter sdk test')).toBe('pnpm test');
    expect(commandFamily('docker compose up -d db')).toBe('docker compose up');
    expect(commandFamily('node scripts/seed.js --force')).toBe('node scripts/seed.js');
    expect(commandFamily('sudo apt-get install -y libssl-dev')).toBe('apt-get install');
    expect(commandFamily('fnm use 20 && pnpm build')).toBe('pnpm build');
  });

  it('look-only commands are recognised, acting ones are not', () => {
    for (const c of ['ls -la', 'cat a | head', 'git status', 'git log --oneline -3', 'docker compose ps', 'rg foo src', 'cd x && ls'])
      expect(isLookOnly(c), c).toBe(true);
    for (const c of ['npm test', 'sed -i s/a/b/ f', 'git push', 'docker compose up -d', 'cd x && make', 'lsof -ti :3000 | xargs kill', 'cat setup.sh | sh'])
      expect(isLookOnly(c), c).toBe(false);
    expect(isLookOnly('git diff | grep TODO | wc -l')).toBe(true);
  });

  it('a failure printed by a command that exited 0 is seen; a summary with 0 failed is not', () => {
    expect(outputSaysFailed('Tests: 2 failed, 10 passed')).toBe(true);
    expect(outputSaysFailed('FAIL src/a.test.ts')).toBe(true);
    expect(outputSaysFailed('Tests: 0 failed, 10 passed')).toBe(false);
    expect(outputSaysFailed('all good')).toBe(false);
  });

  it('the headline of an error output is its most specific line (the last exception of a Python traceback)', () => {
    expect(errorLines('Traceback (most recent call last):\n  File "a.py", line 1\nValueError: first\nKeyError: \'id\'').headline).toBe("KeyError: 'id'");
    expect(errorLines('Exit code 1\n> x\nerror[E0502]: cannot borrow\nerror: could not compile').headline).toBe('error[E0502]: cannot borrow');
    expect(errorLines('==== ERRORS ====\nE   ModuleNotFoundError: No module named x').headline).toBe('ModuleNotFoundError: No module named x');
  });
});
