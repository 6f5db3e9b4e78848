// `vault mcp` latency, driven by the MCP SDK's own stdio client as a client application would:
// 1. start-up: spawn → `initialize` answered (node start-up, SDK load, identity, roots), median
//    over fresh processes;
// 2. tool calls in one warm session on a vault of N memories (team + project scopes): memory_save,
//    memory_search (index already built, then refreshed for the new file), memory_read (through the
//    index, fail-closed, as `vault read`), memory_doctor, resources/list.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const WORDS = 'session cache redis token rotation deploy migration schema index search review commit branch worker queue retry timeout config policy'.split(
  ' ',
);
const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))];
};
const now = () => Number(process.hrtime.bigint()) / 1e6;

async function makeVault(root, n) {
  const { serializeMemory } = await import(pathToFileURL(join(repoDir, 'dist', 'document', 'serialize.js')).href);
  for (let i = 0; i < n; i++) {
    const kind = KINDS[i % KINDS.length];
    const scope = i % 4 === 0 ? 'project' : 'team';
    const id = `mem_20260801_${String(i).padStart(20, '0')}`;
    const at = `2026-07-${String(1 + (i % 28)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00.000Z`;
    const body = Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
    const memory = {
      schema: 'ecc.memory.v1',
      id,
      title: `Memory ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`,
      kind,
      scope,
      trust: 'unreviewed',
      status: 'active',
      sourceHarness: 'claude-code',
      targetHarnesses: i % 5 === 0 ? ['codex'] : ['all'],
      tags: [WORDS[i % WORDS.length]],
      links: [],
      createdAt: at,
      updatedAt: at,
      body: `${body}.`,
    };
    const file = join(root, scope, `${kind}s`, `${id}.md`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, serializeMemory(memory));
  }
  writeFileSync(join(root, 'project', '.gitignore'), '*\n!.gitignore\n');
}

async function connect(cwd, env) {
  const client = new Client({ name: 'vault-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd, env, stderr: process.env.BENCH_DEBUG ? 'inherit' : 'ignore' }),
  );
  return client;
}

async function timeCalls(runs, fn) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = now();
    const r = await fn(i);
    ms.push(now() - t);
    if (r?.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  }
  return ms;
}

export async function run({ quick }) {
  const n = quick ? 500 : 5000;
  const runs = quick ? 5 : 15;
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-mcp-'));
  try {
    const repo = join(work, 'repo');
    mkdirSync(repo);
    spawnSync('git', ['init', '-q', repo]);
    await makeVault(join(repo, '.ecc', 'memory'), n);
    const env = { ...process.env, HOME: join(work, 'home'), ECC_MEMORY_USER_ROOT: join(work, 'home', 'mem'), ECC_MEMORY_HARNESS: 'cursor' };
    for (const k of Object.keys(env)) if (k.startsWith('ECC_MEMORY_PROJECT') || k === 'ECC_DRY_RUN' || k === 'ECC_MEMORY_ALLOW_USER_SCOPE') delete env[k];

    const startup = [];
    for (let i = 0; i < runs; i++) {
      const t = now();
      const c = await connect(repo, env);
      startup.push(now() - t);
      await c.close();
    }

    const client = await connect(repo, env);
    const firstSearch = await timeCalls(1, () => client.callTool({ name: 'memory_search', arguments: { query: 'redis rotation' } }));
    const search = await timeCalls(runs, (i) => client.callTool({ name: 'memory_search', arguments: { query: `${WORDS[i % WORDS.length]} deploy` } }));
    const saves = [];
    const save = await timeCalls(runs, async (i) => {
      const r = await client.callTool({
        name: 'memory_save',
        arguments: { title: `Bench save ${i}`, body: `Saved through MCP, run ${i}.`, kind: 'note', tags: ['bench'] },
      });
      saves.push(r.structuredContent?.id);
      return r;
    });
    const searchAfterSave = await timeCalls(1, () => client.callTool({ name: 'memory_search', arguments: { query: 'bench save' } }));
    const read = await timeCalls(runs, (i) => client.callTool({ name: 'memory_read', arguments: { id: saves[i % saves.length] } }));
    const doctor = await timeCalls(Math.min(runs, 3), () => client.callTool({ name: 'memory_doctor', arguments: {} }));
    const list = await timeCalls(Math.min(runs, 5), () => client.listResources());
    await client.close();

    const row = (what, ms) => `| ${what} | ${median(ms).toFixed(0)} | ${p90(ms).toFixed(0)} |`;
    return {
      title: `MCP server (\`vault mcp\`, ${n.toLocaleString('en')} memories)`,
      markdown: [
        `Driven by the MCP SDK's stdio client; wall time per request in ms, ${runs} runs unless noted. The vault has ${n.toLocaleString('en')} memories (a fifth of them routed to another harness and filtered out).`,
        '',
        '| Request | median ms | p90 ms |',
        '| --- | ---: | ---: |',
        row('start-up: spawn → `initialize` answered', startup),
        row('`memory_search`, first call (opens or builds the index; 1 run)', firstSearch),
        row('`memory_search`, warm', search),
        row('`memory_save` (validate, secret scan, duplicate check, create-only write, index refresh)', save),
        row('`memory_search` right after saves (index refresh; 1 run)', searchAfterSave),
        row('`memory_read` (through the index, fail-closed, + backlinks)', read),
        row('`memory_doctor` (every rule)', doctor),
        row('`resources/list` (scan, newest 1,000)', list),
      ].join('\n'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
