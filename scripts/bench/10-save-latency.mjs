// Latency of one `vault save` / `vault read` process, end to end (node start-up included), in a
// fresh git repository with HOME in a temp folder. Also the import cost of the modules a save
// loads, each measured in a fresh process, to show where the time goes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function p90(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))];
}

function timeProcess(args, cwd, env, runs) {
  const ms = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    last = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8' });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (last.status !== 0) throw new Error(`${args.join(' ')} exited ${last.status}: ${last.stderr}`);
  }
  return { ms, stdout: last.stdout };
}

export async function run({ quick }) {
  const runs = quick ? 5 : 15;
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-save-'));
  try {
    const repo = join(work, 'repo');
    spawnSync('git', ['init', '-q', repo]);
    const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('ECC_MEMORY_PROJECT') || k === 'ECC_DRY_RUN') delete env[k];
    const rows = [];
    const add = (what, r) => rows.push(`| ${what} | ${median(r.ms).toFixed(0)} | ${p90(r.ms).toFixed(0)} |`);
    add('`node -e 0` (Node.js start-up alone)', timeProcess(['-e', '0'], repo, env, runs));
    add('`vault --help`', timeProcess([bin, '--help'], repo, env, runs));
    add('`vault save --dry-run`', timeProcess([bin, 'save', '--title', 'Bench', '--body', 'A body to remember.', '--dry-run'], repo, env, runs));
    const saved = timeProcess([bin, 'save', '--scope', 'team', '--title', 'Bench', '--body', 'A body to remember.', '--json'], repo, env, runs);
    add('`vault save` (writes a file)', saved);
    const id = JSON.parse(saved.stdout).id;
    add(`\`vault read\` (vault of ${runs} memories)`, timeProcess([bin, 'read', id], repo, env, runs));

    const imports = [];
    for (const [label, ...specs] of [
      ['yargs', 'yargs'],
      ['gray-matter (+ js-yaml it requires)', 'gray-matter'],
      ['yaml', 'yaml'],
      ['schema validator (generated)', pathToFileURL(join(repoDir, 'dist/schema/memory-validator.generated.js')).href],
      ['secretlint recommended preset (loaded only when a text needs it)', '@secretlint/secretlint-rule-preset-recommend'],
    ]) {
      const code = `const t=performance.now();Promise.all(${JSON.stringify(specs)}.map((s)=>import(s))).then(()=>console.log(performance.now()-t))`;
      const ms = [];
      for (let i = 0; i < runs; i++)
        ms.push(Number(spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: repoDir, encoding: 'utf8' }).stdout));
      imports.push(`| ${label} | ${median(ms).toFixed(0)} |`);
    }
    const markdown = [
      `Wall-clock time of one CLI process, median and 90th percentile of ${runs} runs (ms):`,
      '',
      '| command | median | p90 |',
      '|---|---:|---:|',
      ...rows,
      '',
      'Import time of the heavy modules, each in a fresh process (ms, median):',
      '',
      '| module | import |',
      '|---|---:|',
      ...imports,
      '',
      'A save of a canonical document never loads `yaml` or gray-matter: they load on first use, for documents that are not canonical `key: <JSON>` lines. The secretlint rules load only when a text has a match of their own patterns that our shapes did not already find.',
    ].join('\n');
    return { title: 'Save and read latency', markdown };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
