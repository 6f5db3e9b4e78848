/**
 * Every install line the docs and the shipped recipes give is one that works today: the package is
 * not on the npm registry, so vault is installed from its git repository (the URL with the
 * `<owner>/<repo>` placeholder) or from a tarball packed from it, and a global install from git
 * needs --install-links (tests/install/install.test.ts runs each of these forms for real).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

const FILES = [
  'README.md',
  'action.yml',
  '.pre-commit-hooks.yaml',
  ...readdirSync(join(REPO, 'docs'))
    .filter((n) => n.endsWith('.md') && n !== 'cli.md')
    .map((n) => `docs/${n}`),
  ...readdirSync(join(REPO, 'templates', 'ci')).map((n) => `templates/ci/${n}`),
];
const VERSION: string = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
const GIT_URL = /^git\+https:\/\/github\.com\/<owner>\/<repo>\.git(#<ref>)?$/;
const TARBALL = new RegExp(`^(\\./|<path>/)?ecc-memory-vault-${VERSION.replaceAll('.', '\\.')}\\.tgz$`);

/** `npm install …` / `npm i …` / `npx …` commands in a text, each cut at the end of its shell command. */
function commands(text: string, tool: 'npm' | 'npx'): string[] {
  const re = tool === 'npm' ? /\bnpm (?:install|i|add)(?= |$)[^\n`;&|#)]*/g : /\bnpx [^\n`;&|#)]*/g;
  return [...text.matchAll(re)].map((m) => m[0].trim());
}

describe('install lines in the docs and recipes', () => {
  const all = FILES.map((f) => ({ file: f, text: readFileSync(join(REPO, f), 'utf8') }));

  it('install vault from the git URL placeholder or a packed tarball, never from the registry', () => {
    let seen = 0;
    for (const { file, text } of all) {
      for (const cmd of commands(text, 'npm')) {
        const words = cmd.split(/\s+/).slice(2);
        const targets = words.filter((w) => !w.startsWith('-') && !/^["']?\$PWD/.test(w));
        for (const t of targets) expect(GIT_URL.test(t) || TARBALL.test(t), `${file}: ${cmd}`).toBe(true);
        if (targets.some((t) => GIT_URL.test(t)) && (words.includes('-g') || words.includes('--global')))
          expect(words, `${file}: a global install from git needs --install-links: ${cmd}`).toContain('--install-links');
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(8);
  });

  it('run vault with npx only as the project’s own copy (--no-install never fetches a registry package)', () => {
    for (const { file, text } of all) {
      for (const cmd of commands(text, 'npx')) {
        const [, ...rest] = cmd.split(/\s+/);
        const pkg = rest.find((w) => !w.startsWith('-'));
        if (pkg === 'vault' || pkg === 'memory-vault' || pkg === 'ecc-memory-vault') expect(rest, `${file}: ${cmd}`).toContain('--no-install');
      }
    }
  });

  it('docs/review.md shows the husky and lefthook snippets exactly as templates/ci ships them', () => {
    const review = readFileSync(join(REPO, 'docs/review.md'), 'utf8');
    const husky = readFileSync(join(REPO, 'templates/ci/husky-pre-commit'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(husky).toHaveLength(1);
    expect(review).toContain(`  ${husky[0]}\n`);
    const lefthook = readFileSync(join(REPO, 'templates/ci/lefthook.yml'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(review).toContain(lefthook.map((l) => `  ${l}`).join('\n'));
  });
});
