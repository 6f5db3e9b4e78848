// Cost of kind templates: loading and filling one in-process, rendering and reading back an editor
// draft, and what `vault save --template` adds to a save process compared with `--body`
// (both with --dry-run, so the numbers do not depend on the disk).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function perCall(fn, n) {
  fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t) / n) * 1000; // µs
}

export async function run({ quick }) {
  const t = await import(pathToFileURL(join(repoDir, 'dist/templates/index.js')).href);
  const n = quick ? 500 : 5000;
  const values = t.parseSectionValues([
    'Context=Sessions expire too early.',
    'Options=- JWT',
    'Options=- Redis',
    'Decision=We will use Redis.',
    'Consequences=Redis is a dependency.',
  ]);
  const all = t.loadAllTemplates();
  const draft = t.renderDraft(t.loadTemplate('decision'), {
    title: 'Bench',
    kind: 'decision',
    scope: 'team',
    tags: ['auth'],
    links: [],
    targetHarnesses: ['all'],
  });
  const edited = draft.replace('## Decision\n', '## Decision\n\nWe will use Redis.\n');
  const rows = [
    ['load + fill the decision template (4 sections)', perCall(() => t.fillTemplate(t.loadTemplate('decision'), values), n)],
    ['load all eight templates', perCall(() => t.loadAllTemplates(), Math.ceil(n / 8))],
    ['read back an edited `vault new` draft (guidance removed)', perCall(() => t.readDraft(edited, all), n)],
  ].map(([what, us]) => `| ${what} | ${us.toFixed(1)} µs |`);

  const runs = quick ? 5 : 15;
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-templates-'));
  try {
    const repo = join(work, 'repo');
    spawnSync('git', ['init', '-q', repo]);
    const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1' };
    const time = (args) => {
      const ms = [];
      for (let i = 0; i < runs; i++) {
        const s = process.hrtime.bigint();
        const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, env, encoding: 'utf8' });
        ms.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (r.status !== 0) throw new Error(`vault ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      }
      return median(ms);
    };
    const body = time(['save', '--kind', 'decision', '--title', 'Bench', '--body', 'We will use Redis.', '--dry-run']);
    const tpl = time([
      'save',
      '--kind',
      'decision',
      '--title',
      'Bench',
      '--template',
      '--section',
      'Context=Sessions expire.',
      '--section',
      'Decision=We will use Redis.',
      '--dry-run',
    ]);
    const markdown = [
      '| in-process | per call |',
      '|---|---|',
      ...rows,
      '',
      `| process (median of ${runs}) | ms |`,
      '|---|---|',
      `| \`vault save --body ... --dry-run\` | ${body.toFixed(0)} |`,
      `| \`vault save --template --section ... --dry-run\` | ${tpl.toFixed(0)} |`,
    ].join('\n');
    return { title: 'Kind templates', markdown };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
