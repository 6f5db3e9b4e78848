/**
 * The credential corpus (tests/helpers/secret-cases.ts) as a user meets it: every shape is refused by
 * `vault save --body`, by `save --template --section`, by `vault handoff`, and in a title or a
 * tag where the field allows its characters (the CLI in-process; a third of the shapes also
 * through the built binary); every shape is
 * redacted in the session snapshot a real `vault hook stop` writes; and nothing echoes it: not
 * stdout, not stderr, not any file the hook leaves under HOME. Every look-alike is saved and kept
 * in snapshots as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/context.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { filesUnder, hook, sessionsDirOf, snapshotNames } from '../helpers/hooks.js';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';
import { BENIGN_CASES, SECRET_CASES, type SecretCase } from '../helpers/secret-cases.js';

/** The secret parts of `c` (or their first 12 characters) that `out` holds. */
function leaks(out: string, c: SecretCase): string[] {
  return c.secrets.filter((s) => out.includes(s) || out.includes(s.slice(0, 12)));
}

/** Runs `fn` over `items`, `n` at a time (CLI processes on a 2-core machine). */
async function pool<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/** The CLI in-process (yargs, commands, the one catch), output captured. */
async function inProcess(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    readStdin: async () => Buffer.alloc(0),
    stdoutIsTTY: false,
    runtime: nodeRuntime({ cwd, env, home: env.HOME! }),
  };
  return { code: await main(args, io), out };
}

/** Why a save of the case is refused: the secret, or (bodies with C0/C1 controls) the control character. */
const REFUSAL = /suspected secret|control character/;
const hasControls = (text: string) => /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(text);

describe('every credential shape is refused at save and never echoed', () => {
  it('vault save --body (the built binary; every third shape, the in-process test below has them all)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const sample = SECRET_CASES.filter((_c, i) => i % 3 === 0);
    expect(sample.length).toBeGreaterThanOrEqual(20);
    const results = await pool(sample, 4, async (c) => ({
      c,
      r: await runCli(['save', '--title', 'Deploy notes', `--body=${c.text}`, '--dry-run'], { cwd: repo, env }),
    }));
    const wrong = results.filter(({ c, r }) => r.code !== 3 || !REFUSAL.test(r.stderr) || leaks(r.stdout + r.stderr, c).length > 0);
    expect(wrong.map(({ c, r }) => `${c.name}: exit ${r.code}, ${r.stderr.split('\n')[0]}`)).toEqual([]);
    // the error names the kind of secret (the label), not the value
    for (const { c, r } of results) if (!hasControls(c.text)) expect(r.stderr, c.name).toMatch(/suspected secret \([A-Za-z ]+ in body/);
  }, 120_000);

  it('save --body, save --template --section, handoff, a title and a tag (in-process CLI)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    let titles = 0;
    let tags = 0;
    for (const c of SECRET_CASES) {
      const runs: Array<[string, string[]]> = [
        ['body', ['save', '--title', 'Deploy notes', `--body=${c.text}`, '--dry-run']],
        ['section', ['save', '--kind', 'note', '--title', 'Deploy notes', '--template', '--section', `Note=${c.text}`, '--dry-run']],
        ['handoff', ['handoff', '--from', 'claude-code', '--target', 'codex', '--title', 'Where the deploy stands', `--body=${c.text}`, '--dry-run']],
      ];
      // a title is one line of at most 200 characters without control characters
      if (!/[\n\r]/.test(c.text) && !hasControls(c.text) && c.text.length <= 200) {
        runs.push(['title', ['save', '--title', c.text, '--body', 'See the vault.', '--dry-run']]);
        titles++;
      }
      // a tag allows [a-z0-9._-]: the lowercased credential, where it is still one
      const tag = c.text.toLowerCase().replace(/^.*\s/, '');
      if (/^[a-z0-9][a-z0-9._-]{0,63}$/.test(tag) && c.secrets.some((s) => tag.includes(s.toLowerCase()))) {
        const { detectSecrets } = await import('../../src/secrets/detect-secrets.js');
        if (detectSecrets(tag).length > 0) {
          runs.push(['tag', ['save', '--title', 'Deploy notes', '--body', 'See the vault.', '--tag', tag, '--dry-run']]);
          tags++;
        }
      }
      for (const [how, args] of runs) {
        const r = await inProcess(args, repo, env);
        expect(r.code, `${c.name} (${how}): ${r.out}`).toBe(3);
        expect(r.out, `${c.name} (${how})`).toMatch(REFUSAL);
        if (how !== 'tag') expect(r.out, `${c.name} (${how})`).toMatch(/suspected secret|control character/);
        const lowered = how === 'tag' ? { ...c, secrets: c.secrets.map((s) => s.toLowerCase()) } : c;
        expect(leaks(r.out, lowered), `${c.name} (${how}) echoed`).toEqual([]);
      }
    }
    expect(titles).toBeGreaterThanOrEqual(40);
    expect(tags).toBeGreaterThanOrEqual(5);
  }, 120_000);
});

describe('look-alikes are saved', () => {
  it('each one alone (in-process), and all together through the binary', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const refused: string[] = [];
    for (const b of BENIGN_CASES) {
      const r = await inProcess(['save', '--title', 'Deploy notes', `--body=${b.text}`, '--dry-run'], repo, env);
      if (r.code !== 0) refused.push(`${b.name}: ${r.out.split('\n')[0]}`);
    }
    console.info(`save: ${refused.length} false positives among ${BENIGN_CASES.length} look-alikes${refused.length ? `: ${refused.join('; ')}` : ''}`);
    expect(refused).toEqual([]);
    const all = await runCli(['save', '--title', 'Look-alikes', `--body=${BENIGN_CASES.map((b) => b.text).join('\n\n')}`, '--json'], { cwd: repo, env });
    expect(all.code, all.stderr).toBe(0);
    const saved = readFileSync(join(repo, '.ecc/memory', (JSON.parse(all.stdout) as { path: string }).path), 'utf8');
    for (const b of BENIGN_CASES) expect(saved, b.name).toContain(b.text);
  }, 60_000);
});

/** A Claude Code transcript of one turn: the user says `text`, the assistant repeats it and runs it. */
function transcript(cwd: string, session: string, turns: Array<{ user: string; assistant: string; command?: string }>): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: session, version: '2.0.14', gitBranch: 'main' };
  const lines: string[] = [];
  let parent: string | null = null;
  turns.forEach((t, i) => {
    const u = `u-${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        type: 'user',
        parentUuid: parent,
        uuid: u,
        timestamp: `2026-02-0${1 + (i % 9)}T10:00:00.000Z`,
        message: { role: 'user', content: t.user },
      }),
    );
    const content: unknown[] = [{ type: 'text', text: t.assistant }];
    if (t.command) content.push({ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: t.command, description: 'run it' } });
    parent = `a-${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        type: 'assistant',
        parentUuid: u,
        uuid: parent,
        timestamp: `2026-02-0${1 + (i % 9)}T10:00:30.000Z`,
        message: { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: 'end_turn' },
      }),
    );
  });
  const file = join(tempDir('vault-transcript-'), `${session}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const sessionId = (i: number) => `5ec7e700-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

describe('session snapshots redact every credential shape (vault hook stop)', () => {
  it('in what the user said, what the assistant said, and the commands it ran; nothing under HOME holds it', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    const runs = await pool(
      SECRET_CASES.map((c, i) => ({ c, i })),
      4,
      async ({ c, i }) => {
        const session = sessionId(i);
        const t = transcript(repo, session, [
          { user: 'Set up the deploy for the staging cluster.', assistant: 'Sure: which credentials?' },
          {
            user: `Use this one:\n${c.text}\nthanks`,
            assistant: `Done, configured with\n${c.text}\nand restarted.`,
            command: `deploy --config '${c.text.split('\n')[0]}'`,
          },
        ]);
        const r = await hook(
          'stop',
          { session_id: session, transcript_path: t, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false },
          { cwd: repo, env },
        );
        return { c, session, r };
      },
    );
    const names = snapshotNames(env);
    expect(names).toHaveLength(SECRET_CASES.length);
    const problems: string[] = [];
    for (const { c, session, r } of runs) {
      if (r.code !== 0) problems.push(`${c.name}: exit ${r.code}`);
      if (leaks(r.stdout + r.stderr, c).length) problems.push(`${c.name}: echoed by the hook`);
      const name = names.find((n) => n.includes(`-${session.slice(-8)}-`));
      const snapshot = name ? readFileSync(join(sessionsDirOf(env), name), 'utf8') : '';
      if (!snapshot.includes('Set up the deploy')) problems.push(`${c.name}: no snapshot`);
      if (!/\[REDACTED [A-Za-z ]+\]/.test(snapshot)) problems.push(`${c.name}: no redaction marker`);
      if (leaks(snapshot, c).length) problems.push(`${c.name}: in the snapshot: ${leaks(snapshot, c).map((s) => s.slice(0, 6))}`);
    }
    expect(problems).toEqual([]);
    // no file the hooks wrote (snapshots, caches, logs) holds any secret
    const home = env.HOME!;
    for (const f of filesUnder(home)) {
      const text = readFileSync(join(home, f), 'utf8');
      for (const c of SECRET_CASES) expect(leaks(text, c), `${f} holds ${c.name}`).toEqual([]);
    }
  }, 180_000);

  it('look-alikes reach the snapshot unchanged', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // the snapshot keeps the assistant's last words up to 1,500 characters: a few look-alikes per session
    const chunks: string[][] = [[]];
    for (const b of BENIGN_CASES) {
      const last = chunks[chunks.length - 1]!;
      if (last.length > 0 && [...last, b.text].join('\n\n').length > 1300) chunks.push([b.text]);
      else last.push(b.text);
    }
    let n = 0;
    for (const chunk of chunks) {
      const session = sessionId(1000 + n++);
      const t = transcript(repo, session, [{ user: 'Summarise the notes.', assistant: chunk.join('\n\n') }]);
      const r = await hook(
        'stop',
        { session_id: session, transcript_path: t, cwd: repo, hook_event_name: 'Stop', stop_hook_active: false },
        { cwd: repo, env },
      );
      expect(r.code).toBe(0);
      const name = snapshotNames(env).find((x) => x.includes(`-${session.slice(-8)}-`))!;
      const snapshot = readFileSync(join(sessionsDirOf(env), name), 'utf8');
      expect(snapshot).not.toContain('[REDACTED');
      // the snapshot quotes the assistant's words line by line ("> ")
      for (const text of chunk) for (const line of text.split('\n')) expect(snapshot, text).toContain(line.trim());
    }
    expect(n).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
