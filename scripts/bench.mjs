#!/usr/bin/env node
// Benchmark runner (`npm run bench`, not part of the tests). Runs every scripts/bench/*.mjs
// module in name order, each in a fresh Node.js process (so one module's heap and garbage
// collector never slow the next); each exports `run({ quick })` → `{ title, markdown, readme?,
// targets? }`, targets being `[{ what, target, figure, ok }]` lines of the summary table.
// The search module (10,000 and 100,000 memories) and the server module are named to run last.
// Writes docs/benchmarks.md with the machine, command, load average at start and end and run time
// stated, and a summary of every module's targets. `--quick` uses small sizes; `--only NAME` runs
// one module.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');

// `--module FILE`: run one module in this process and print its result as JSON on stdout.
if (args.includes('--module')) {
  const mod = await import(pathToFileURL(join(here, 'bench', args[args.indexOf('--module') + 1])).href);
  process.stdout.write(JSON.stringify(await mod.run({ quick })));
  process.exit(0);
}

const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const modules = readdirSync(join(here, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .sort()
  .filter((f) => !only || f.includes(only));

const sections = [];
const durations = [];
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
const loadStart = load();
const runStarted = Date.now();
// the sizes and run counts set from the environment are part of the command
const overrides = Object.entries(process.env)
  .filter(([k]) => k.startsWith('BENCH_'))
  .map(([k, v]) => `${k}=${v} `)
  .join('');
const minutes = (ms) => `${(ms / 60_000).toFixed(1)} min`;
// The "Test suite" section (wall time of `npm test`) is measured by hand with the load average it
// was measured at; the bench does not run the suite, so it keeps that section as it is.
const docPath = join(here, '..', 'docs', 'benchmarks.md');
const kept = existsSync(docPath) ? (/^## Test suite\n[\s\S]*?(?=^## |(?![\s\S]))/m.exec(readFileSync(docPath, 'utf8'))?.[0] ?? '') : '';
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, Node.js ${process.version}, ${process.platform}`;
function writeDoc(final) {
  const targets = sections.flatMap((s) => (s.targets ?? []).map((t) => ({ ...t, module: s.title })));
  const failed = targets.filter((t) => !t.ok).length;
  const doc = [
    '# Benchmarks',
    '',
    `Measured by \`${overrides}npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}; machine: ${machine}.`,
    `Load average (1 / 5 / 15 min): ${loadStart} at the start, ${load()} at the end. Run time ${minutes(Date.now() - runStarted)} (${durations.map((d) => `${d.file} ${minutes(d.ms)}`).join(', ')}).`,
    'Numbers are from one real run of the script; re-run it to reproduce. Nothing here is edited by hand, except the Test suite section (measured as it says).',
    ...(final ? [] : ['', `(Partial: the run stopped after ${sections.length} of ${modules.length} modules.)`]),
    '',
    ...(targets.length
      ? [
          '## Against the targets',
          '',
          `${targets.length - failed} of ${targets.length} met. F = the \`node -e 0\` median measured in the same module and run (for a search, read or save line at 10,000 or 100,000 memories: between the runs of the same state, given in brackets); each line's detail is in its section below.`,
          '',
          '| | target | measured | |',
          '|---|---|---|---|',
          ...targets.map((t) => `| ${t.what} | ${t.target} | ${t.figure} | ${t.ok ? '✔' : '✘'} |`),
          '',
        ]
      : []),
    ...sections.flatMap((s) => [`## ${s.title}`, '', s.markdown.trim(), '']),
    ...(kept ? [kept.trim(), ''] : []),
  ].join('\n');
  if (!only) writeFileSync(docPath, doc);
  return doc;
}

for (const file of modules) {
  console.error(`bench: ${file} ...`);
  const started = Date.now();
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--module', file, ...(quick ? ['--quick'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`bench: ${file} failed (exit ${child.status})`);
  const result = JSON.parse(child.stdout);
  console.error(`bench: ${file} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  durations.push({ file, ms: Date.now() - started });
  sections.push(result);
  writeDoc(sections.length === modules.length);
}

const doc = writeDoc(true);
if (!only) console.error('bench: wrote docs/benchmarks.md');
else process.stdout.write(doc);
