/**
 * docs/getting-started.md runs clean as written: every `sh` block after "Install" runs in a
 * fresh git repository through sh, with `vault` on PATH (the real binary over dist/) and a
 * stand-in `nano` that writes what a person would type into the draft. Every command must
 * succeed with nothing on stderr (no similar-memory warning, no hint), and the `text` blocks
 * must be what the command before them printed (the ids in the page stand for the ones printed).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, cliEnv, gitRepo, tempDir } from '../helpers/cli.js';

const PAGE = readFileSync(join(REPO, 'docs', 'getting-started.md'), 'utf8');

/** The page's fenced blocks in order, with the section they are in. */
function blocks(): { section: string; lang: string; text: string }[] {
  const out: { section: string; lang: string; text: string }[] = [];
  let section = '';
  const re = /^## (.+)$|^```(\w*)\n([\s\S]*?)^```$/gm;
  for (const m of PAGE.matchAll(re)) {
    if (m[1] !== undefined) section = m[1];
    else out.push({ section, lang: m[2]!, text: m[3]! });
  }
  return out;
}

/** The stand-in editor: fills the runbook draft's sections like a person would. */
const FAKE_NANO = `
const { readFileSync, writeFileSync } = require('node:fs');
const file = process.argv[2];
let s = readFileSync(file, 'utf8');
s = s.replace('## When to use\\n', '## When to use\\n\\nThe runner reports "no space left on device".\\n');
s = s.replace('## Steps\\n', '## Steps\\n\\n1. docker system prune -af\\n2. rm -rf ~/.cache/ci\\n');
writeFileSync(file, s);
`;

describe('docs/getting-started.md', () => {
  it('runs clean as written, and shows what the commands print', () => {
    const repo = gitRepo();
    const tools = tempDir('vault-tools-');
    writeFileSync(join(tools, 'vault'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    writeFileSync(join(tools, 'nano.js'), FAKE_NANO);
    writeFileSync(join(tools, 'nano'), `#!/bin/sh\nexec "${process.execPath}" "${join(tools, 'nano.js')}" "$@"\n`);
    for (const f of ['vault', 'nano']) chmodSync(join(tools, f), 0o755);
    const env = {
      ...cliEnv({ VISUAL: undefined, EDITOR: undefined, ECC_MEMORY_HARNESS: undefined }),
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    };
    env.PATH = `${tools}:${env.PATH ?? ''}`;

    const all = blocks();
    const start = all.findIndex((b) => b.section === 'Create the vault'); // Install needs the network: not run
    expect(start).toBeGreaterThan(0);
    let firstId: string | undefined;
    let last = '';
    let ran = 0;
    for (const b of all.slice(start)) {
      if (b.lang === 'text') {
        // the output shown after a command: the same lines, with the page's example id standing for the printed one
        const pageId = /mem_\d{8}_[0-9a-f]{20}/.exec(b.text)?.[0];
        const printedId = /mem_\d{8}_[0-9a-f]{20}/.exec(last)?.[0];
        const expected = pageId && printedId ? b.text.replaceAll(pageId, printedId) : b.text;
        expect(last, `output shown in "${b.section}"`).toBe(expected);
        continue;
      }
      if (b.lang !== 'sh') continue;
      const script = b.text
        .split('\n')
        .filter((l) => !/^cd ~\//.test(l)) // "cd ~/code/my-app": the test repo is the working folder
        .join('\n')
        .replaceAll('mem_20260726_4f1c0a9e2b7d63a85c10', firstId ?? 'mem_20260726_4f1c0a9e2b7d63a85c10');
      const r = spawnSync('sh', ['-e', '-c', script], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, `"${b.section}":\n${script}\n${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stderr, `stderr of "${b.section}":\n${script}`).toBe('');
      firstId ??= /Saved unreviewed \w+ (mem_\d{8}_[0-9a-f]{20})/.exec(r.stdout)?.[1];
      last = r.stdout;
      ran++;
    }
    expect(ran).toBeGreaterThanOrEqual(8);
    expect(firstId).toBeDefined();
    // the commit holds the team memories the page saved, and nothing of the project scope
    const committed = spawnSync('git', ['show', '--name-only', '--format=', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout;
    expect(committed).toContain(`.ecc/memory/team/decisions/${firstId}.md`);
    expect(committed).not.toContain('project/');
  });
});
