import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runCli, tempDir } from '../helpers/cli.js';

/**
 * A fake $EDITOR: `node fake-editor.mjs <mode> <file>`. It records the draft path it was given,
 * then edits the draft like a person would (or fails like an aborted editor).
 */
const FAKE_EDITOR = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const [mode, file] = process.argv.slice(2);
appendFileSync(process.env.FAKE_EDITOR_LOG, file + '\\n');
let s = readFileSync(file, 'utf8');
const fill = (t) => t.replace('## Context\\n', '## Context\\n\\nSessions expire too early.\\n').replace('## Decision\\n', '## Decision\\n\\nWe will use Redis.\\n');
if (mode === 'fill') s = fill(s);
if (mode === 'abort') { writeFileSync(file, fill(s)); process.exit(1); }
if (mode === 'invalid') s = fill(s).replace('scope: "project"', 'scope: "everywhere"');
if (mode === 'fix') s = s.replace('scope: "everywhere"', 'scope: "team"');
if (mode === 'noop') {}
writeFileSync(file, s);
`;

function setup() {
  const repo = gitRepo();
  const tools = tempDir('vault-editor-');
  const drafts = tempDir('vault-drafts-');
  const script = join(tools, 'fake-editor.mjs');
  writeFileSync(script, FAKE_EDITOR);
  const log = join(tools, 'editor.log');
  writeFileSync(log, '');
  const env = (mode: string, extra: Record<string, string | undefined> = {}) =>
    cliEnv({ EDITOR: `"${process.execPath}" ${script} ${mode}`, VISUAL: undefined, TMPDIR: drafts, FAKE_EDITOR_LOG: log, ...extra });
  const editedDrafts = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const memories = () => {
    const dir = join(repo, '.ecc/memory');
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.md'))
      .map((d) => join(d.parentPath, d.name));
  };
  return { repo, drafts, env, editedDrafts, memories };
}

describe('vault new (fake $EDITOR)', () => {
  it('opens the kind template, saves what the editor wrote create-only, and removes the draft', async () => {
    const { repo, drafts, env, editedDrafts, memories } = setup();
    const r = await runCli(['new', '--kind', 'decision', '--title', 'Use Redis sessions', '--tag', '#auth', '--json'], { cwd: repo, env: env('fill') });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ scope: 'project', kind: 'decision', written: true });
    const [draft] = editedDrafts();
    expect(draft!.startsWith(drafts)).toBe(true);
    expect(draft!.endsWith('/decision.md')).toBe(true);
    expect(existsSync(draft!)).toBe(false);
    expect(readdirSync(drafts)).toEqual([]);
    const text = readFileSync(join(repo, '.ecc/memory', out.path), 'utf8');
    expect(text).toContain('title: "Use Redis sessions"\n');
    expect(text).toContain('tags: ["auth"]\n');
    expect(text.endsWith('---\n\n## Context\n\nSessions expire too early.\n\n## Decision\n\nWe will use Redis.\n')).toBe(true);
    expect(memories()).toHaveLength(1);
  });

  it('writes nothing when the editor exits non-zero; the draft is kept with its edits and can be resumed', async () => {
    const { repo, env, editedDrafts, memories } = setup();
    const r = await runCli(['new', '--kind', 'decision', '--title', 'Use Redis sessions'], { cwd: repo, env: env('abort') });
    expect(r.code).toBe(7);
    const [draft] = editedDrafts();
    expect(r.stderr).toContain(`nothing saved; draft kept: ${draft}`);
    expect(r.stderr).toMatch(/error: the editor \(.*\) exited with status 1; nothing was saved/);
    expect(r.stderr).toContain('hint: save and quit normally to write the memory');
    expect(memories()).toEqual([]);
    expect(readFileSync(draft!, 'utf8')).toContain('We will use Redis.');
    const again = await runCli(['new', '--draft', draft!, '--json'], { cwd: repo, env: env('noop') });
    expect(again.code, again.stderr).toBe(0);
    expect(memories()).toHaveLength(1);
    expect(existsSync(draft!)).toBe(false);
    expect(existsSync(dirname(draft!))).toBe(false); // the private draft folder is gone too
  });

  it('an editor command that is not found: the hint says to fix $EDITOR, not how to quit', async () => {
    const { repo, env, memories } = setup();
    const r = await runCli(['new', '--kind', 'note', '--title', 'x'], { cwd: repo, env: env('fill', { EDITOR: 'vault-no-such-editor-xyz' }) });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/error: the editor \(vault-no-such-editor-xyz\) exited with status 127; nothing was saved/);
    expect(r.stderr).toContain('hint: the editor command "vault-no-such-editor-xyz" was not found: set $VISUAL or $EDITOR');
    expect(r.stderr).not.toContain('save and quit normally');
    expect(r.stderr).toMatch(/draft kept: .*\n {2}edit it again: vault new --draft /);
    expect(memories()).toEqual([]);
  });

  it('writes nothing when the result is invalid, names the field, keeps the draft; fixing it saves', async () => {
    const { repo, env, editedDrafts, memories } = setup();
    const r = await runCli(['new', '--kind', 'decision', '--title', 'Use Redis sessions'], { cwd: repo, env: env('invalid') });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: scope: must be one of: project, team, user \(got "everywhere"\)/);
    const [draft] = editedDrafts();
    expect(r.stderr).toContain(`draft kept: ${draft}`);
    expect(memories()).toEqual([]);
    const fixed = await runCli(['new', '--draft', draft!, '--json'], { cwd: repo, env: env('fix') });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ scope: 'team', kind: 'decision' });
  });

  it('--draft removes after saving only a draft vault new made; a file of the user stays', async () => {
    const { repo, drafts, env, editedDrafts, memories } = setup();
    // a kept draft of ours, copied by the user into the repo and into a look-alike temp folder
    const r = await runCli(['new', '--kind', 'decision', '--title', 'Use Redis sessions'], { cwd: repo, env: env('abort') });
    expect(r.code).toBe(7);
    const [ours] = editedDrafts();
    const text = readFileSync(ours!, 'utf8');
    const mine = join(repo, 'my-notes.md');
    writeFileSync(mine, text.replace('Use Redis sessions', 'Use Redis sessions (mine)'));
    const lookAlike = join(drafts, 'vault-new-mine', 'decision.md');
    mkdirSync(dirname(lookAlike), { mode: 0o755 });
    chmodSync(dirname(lookAlike), 0o755);
    writeFileSync(lookAlike, text.replace('Use Redis sessions', 'Use Redis sessions (look-alike)'));

    const fromMine = await runCli(['new', '--draft', 'my-notes.md'], { cwd: repo, env: env('noop') });
    expect(fromMine.code, fromMine.stderr).toBe(0);
    expect(fromMine.stderr).toContain(`draft left in place: ${mine} (not made by vault new; only its own drafts are removed)`);
    expect(existsSync(mine)).toBe(true);
    const fromLookAlike = await runCli(['new', '--draft', lookAlike], { cwd: repo, env: env('noop') });
    expect(fromLookAlike.code, fromLookAlike.stderr).toBe(0);
    expect(existsSync(lookAlike)).toBe(true);
    const fromOurs = await runCli(['new', '--draft', ours!], { cwd: repo, env: env('noop') });
    expect(fromOurs.code, fromOurs.stderr).toBe(0);
    expect(fromOurs.stderr).not.toContain('left in place');
    expect(existsSync(ours!)).toBe(false);
    expect(existsSync(dirname(ours!))).toBe(false);
    expect(memories()).toHaveLength(3);
  });

  it('an untouched template is an empty memory: refused, nothing written', async () => {
    const { repo, env, memories } = setup();
    const r = await runCli(['new', '--kind', 'runbook', '--title', 'Free disk'], { cwd: repo, env: env('noop') });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the draft is empty/);
    expect(memories()).toEqual([]);
  });

  it('prefers $VISUAL over $EDITOR, and refuses to start without either', async () => {
    const { repo, env, memories } = setup();
    const visual = env('fill').EDITOR!;
    const r = await runCli(['new', '--kind', 'decision', '--title', 't'], { cwd: repo, env: env('x', { EDITOR: 'false', VISUAL: visual }) });
    expect(r.code, r.stderr).toBe(0);
    expect(memories()).toHaveLength(1);
    const none = await runCli(['new', '--kind', 'note', '--title', 't'], { cwd: repo, env: env('x', { EDITOR: undefined, VISUAL: undefined }) });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no editor: set \$EDITOR/);
  });
});
