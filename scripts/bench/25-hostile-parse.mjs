// Benchmark: hostile frontmatter (hardening item 1). The documents of scripts/hostile-frontmatter.mjs
// (8 classes, each at most 128 KiB) are
// 1. parsed and explained in-process (parseMemory + describeParseError), per document: the first
//    call (cold for that shape) and the median of warm calls; the slowest document per class;
// 2. put in a vault per class (and one with all of them) and read by each command as a subprocess
//    (CLI start-up included): read, search, doctor, fmt --check, share, index;
// 3. served by `vault mcp` (the SDK's stdio client): memory_read, memory_search, memory_doctor over
//    the vault of all of them, and the wait of a ping sent while memory_read runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hostileDocuments } from '../hostile-frontmatter.mjs';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e6;
const ms = (x) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : x >= 100 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`);

const COMMANDS = [['read', 'mem_hostile_000'], ['search', 'body'], ['doctor'], ['fmt', '--check'], ['share', 'mem_hostile_001'], ['index']];

function env(home) {
  const out = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ECC_') && !k.startsWith('VAULT_') && !k.startsWith('CLAUDE')) out[k] = v;
  return { ...out, HOME: home, ECC_MEMORY_USER_ROOT: join(home, 'user'), NO_COLOR: '1', ECC_MEMORY_HARNESS: 'bench' };
}

function makeRepo(parent, name, docs) {
  const repo = join(parent, name);
  const dir = join(repo, '.ecc', 'memory', 'team', 'decisions');
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: repo });
  docs.forEach((d, i) => {
    writeFileSync(join(dir, `mem_hostile_${String(i).padStart(3, '0')}.md`), d.text);
  });
  return repo;
}

function timeCli(repo, home, args) {
  const t = now();
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, env: env(home), encoding: 'utf8', timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (/internal error|\n\s+at /.test(r.stderr)) throw new Error(`vault ${args.join(' ')}: ${r.stderr.slice(0, 500)}`);
  return now() - t;
}

async function inProcess(docs, warmRuns) {
  const { parseMemory } = await import(pathToFileURL(join(repoDir, 'dist', 'document', 'parse.js')).href);
  const { describeParseError } = await import(pathToFileURL(join(repoDir, 'dist', 'scanner', 'parse-problem.js')).href);
  const once = (bytes) => {
    const t = now();
    try {
      parseMemory(bytes);
    } catch (err) {
      describeParseError(bytes, err);
    }
    return now() - t;
  };
  once(Buffer.from('---\na: &x 1\n---\n\nbody\n')); // load yaml and gray-matter
  return docs.map((d) => {
    const bytes = Buffer.from(d.text);
    const first = once(bytes);
    const warm = Array.from({ length: warmRuns }, () => once(bytes));
    return { ...d, first, warm: median(warm) };
  });
}

async function mcpCalls(repo, home, runs) {
  const client = new Client({ name: 'vault-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: repo, env: env(home), stderr: 'ignore' }));
  try {
    const calls = [
      ['memory_read', { id: 'mem_hostile_000' }],
      ['memory_search', { query: 'body' }],
      ['memory_doctor', {}],
    ];
    const out = {};
    for (const [name, args] of calls) {
      const times = [];
      for (let i = 0; i < runs; i++) {
        const t = now();
        await client.callTool({ name, arguments: args }, undefined, { timeout: 900_000 });
        times.push(now() - t);
      }
      out[name] = median(times);
    }
    const waits = [];
    for (let i = 0; i < runs; i++) {
      const call = client.callTool({ name: 'memory_read', arguments: { id: 'mem_hostile_000' } }, undefined, { timeout: 900_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const t = now();
      await client.ping({ timeout: 900_000 });
      waits.push(now() - t);
      await call;
    }
    out.ping = median(waits);
    return out;
  } finally {
    await client.close();
  }
}

export async function run({ quick } = {}) {
  const docs = hostileDocuments();
  const runs = quick ? 1 : 3;
  const parsed = await inProcess(docs, quick ? 3 : 7);
  const classes = [...new Set(docs.map((d) => d.cls))];
  const home = mkdtempSync(join(tmpdir(), 'vault-bench-hostile-'));
  try {
    const groups = [...classes.map((c) => [c, docs.filter((d) => d.cls === c)]), ['all shapes', docs]];
    const cli = [];
    for (const [name, group] of groups) {
      const repo = makeRepo(home, name.replace(/\W/g, '-'), group);
      const row = COMMANDS.map((args) => median(Array.from({ length: runs }, () => timeCli(repo, home, args))));
      cli.push([name, group.length, row]);
      console.error(`bench: hostile ${name}: ${row.map((x) => ms(x)).join(' ')}`);
    }
    const mcp = await mcpCalls(join(home, 'all-shapes'), home, runs);

    const worst = classes.map((c) => parsed.filter((p) => p.cls === c).sort((a, b) => b.warm - a.warm)[0]);
    const slowest = [...parsed].sort((a, b) => b.warm - a.warm)[0];
    const slowestFirst = [...parsed].sort((a, b) => b.first - a.first)[0];
    const markdown = [
      `${docs.length} hostile memory documents in ${classes.length} classes (scripts/hostile-frontmatter.mjs), each at most 128 KiB: the whole document limit, and just under the parser's own limits (32 KiB, 1,000 lines, 2,000 commas, 4,000 YAML tokens), the worst text that still reaches the YAML parser.`,
      '',
      `In-process, parseMemory + describeParseError per document: the slowest is "${slowest.name}" at ${ms(slowest.warm)} warm (median of ${quick ? 3 : 7}); the slowest first call is "${slowestFirst.name}" at ${ms(slowestFirst.first)}.`,
      '',
      '| class | documents | slowest document | first call | warm (median) |',
      '|---|---:|---|---:|---:|',
      ...worst.map((w) => `| ${w.cls} | ${docs.filter((d) => d.cls === w.cls).length} | ${w.name} | ${ms(w.first)} | ${ms(w.warm)} |`),
      '',
      `Each command as a subprocess over a vault of one class (CLI start-up included), wall time${runs > 1 ? `, median of ${runs}` : ''}:`,
      '',
      `| vault | files | ${COMMANDS.map((c) => `\`${c[0]}${c[0] === 'fmt' ? ' --check' : ''}\``).join(' | ')} |`,
      `|---|---:|${COMMANDS.map(() => '---:').join('|')}|`,
      ...cli.map(([name, n, row]) => `| ${name} | ${n} | ${row.map(ms).join(' | ')} |`),
      '',
      `\`vault mcp\` over the vault of all ${docs.length}${runs > 1 ? ` (median of ${runs})` : ''}: \`memory_read\` ${ms(mcp.memory_read)}, \`memory_search\` ${ms(mcp.memory_search)}, \`memory_doctor\` ${ms(mcp.memory_doctor)}; a ping sent 20 ms into a \`memory_read\` is answered after ${ms(mcp.ping)} (the server answers it once that call is done).`,
    ].join('\n');
    return { title: 'Hostile frontmatter', markdown };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
