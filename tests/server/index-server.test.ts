/**
 * The resident index server (`vault watch`), end to end through the real binary: it answers
 * exactly what the files answer, sees every change before the next request, and a client that
 * finds no usable server (none, stale, foreign, killed) falls back to the files.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeMemory } from '../../src/document/serialize.js';
import { nodeRuntime } from '../../src/io/runtime.js';
import { askServer, similarServedOrOnDisk } from '../../src/search/resident/resident-client.js';
import { recallText } from '../../src/sessions/prompt-recall.js';
import { PROTOCOL_VERSION } from '../../src/search/resident/resident-protocol.js';
import { findSimilarMemories } from '../../src/search/query/similar-memories.js';
import { resolveRoots } from '../../src/store/roots.js';
import { cliEnv, git, gitRepo, runBin, tempDir } from '../helpers/cli.js';
import { killServersAfterEach } from '../helpers/servers.js';
import { contextOf, hook } from '../helpers/hooks.js';
import { callOk, startMcp } from '../helpers/mcp-client.js';
import { memory, memoryPath, putMemories } from '../helpers/search.js';

const started = killServersAfterEach();

function serverEnv(): Record<string, string> {
  const run = tempDir('vault-run-');
  chmodSync(run, 0o700);
  return cliEnv({ XDG_RUNTIME_DIR: run });
}

async function detach(cwd: string, env: Record<string, string>): Promise<{ pid: number; socket: string }> {
  const r = await runBin(['watch', '--detach', '--json', '--scope', 'team', 'project'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout) as { pid: number; socket: string; started: boolean };
  expect(s.started).toBe(true);
  started.push(s.pid);
  // the server runs from the one-file bundle (src/cli/server-entry.ts), not the module graph
  const cmdline = readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').split('\0');
  expect(
    cmdline.some((a) => /dist\/cli\/watch-bundle\.cjs$/.test(a)),
    cmdline.join(' '),
  ).toBe(true);
  return s;
}

async function status(cwd: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await runBin(['watch', '--status', '--json'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** What a search and a read answer, with the server and with the files (ECC_VAULT_SERVER=off), minus index repair reports. */
async function answers(cwd: string, env: Record<string, string>, query: string, id: string) {
  const one = async (e: Record<string, string>) => {
    const s = await runBin(['search', query, '--json', '--scope', 'team', 'project'], { cwd, env: e });
    const r = await runBin(['read', id, '--json'], { cwd, env: e });
    const search = JSON.parse(s.stdout) as { results: unknown; total: number; diagnostics: Record<string, unknown> };
    return { results: search.results, total: search.total, invalid: search.diagnostics.invalidFiles, read: r.code === 0 ? JSON.parse(r.stdout) : r.code };
  };
  const files = await one({ ...env, ECC_VAULT_SERVER: 'off' });
  const served = await one(env);
  return { files, served };
}

describe('vault watch: the resident index server', () => {
  it('answers like the files and sees every kind of change before the next request', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const a = memory({ title: 'Harbour crane', body: 'the crane lifts containers' });
    const b = memory({ title: 'Dock schedule', body: 'crane shifts start at dawn' });
    putMemories(repo, a, b);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'two memories');
    const { pid } = await detach(repo, env);
    const check = async (id: string) => {
      const { files, served } = await answers(repo, env, 'crane', id);
      expect(served).toEqual(files);
      return served;
    };
    expect((await check(a.id)).total).toBe(2);
    const before = (await status(repo, env)).requests as number;
    await check(a.id);
    expect((await status(repo, env)).requests as number).toBeGreaterThan(before + 1); // the server answered

    // save through the CLI
    const saved = await runBin(['save', '--scope', 'team', '--kind', 'note', '--title', 'Crane manual', '--body', 'how to drive the crane', '--json'], {
      cwd: repo,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect((await check(a.id)).total).toBe(3);
    // a file made by hand
    const c = memory({ title: 'Hand note', body: 'a crane note written by hand' });
    putMemories(repo, c);
    expect((await check(c.id)).total).toBe(4);
    // an in-place write (same inode, mtime put back in the past, same size)
    writeFileSync(memoryPath(repo, c), serializeMemory({ ...c, body: 'a boat note written by hand' }));
    expect((await check(c.id)).total).toBe(3);
    // a delete and a rename (out of the vault and back)
    rmSync(memoryPath(repo, c));
    expect((await check(c.id)).read).toBe(4);
    const aside = join(repo, 'aside.md');
    renameSync(memoryPath(repo, b), aside);
    expect((await check(b.id)).total).toBe(2);
    renameSync(aside, memoryPath(repo, b));
    expect((await check(b.id)).total).toBe(3);
    // git checkout of a branch with other memories, and back
    git(repo, 'stash', '-u', '-q');
    git(repo, 'checkout', '-q', '-b', 'other');
    const d = memory({ title: 'Other branch crane', body: 'crane on another branch' });
    putMemories(repo, d);
    rmSync(memoryPath(repo, a));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'other');
    expect((await check(d.id)).total).toBe(2);
    git(repo, 'checkout', '-q', 'main');
    expect((await check(a.id)).total).toBe(2);

    const s = await status(repo, env);
    expect(s).toMatchObject({ running: true, pid, watcher: { mode: 'fs.watch' } });
    expect(s.memories).toMatchObject({ team: 2 });
    const stop = await runBin(['watch', '--stop'], { cwd: repo, env });
    expect(stop.stdout).toContain(`stopped the index server (pid ${pid})`);
    expect(await status(repo, env)).toEqual({ running: false, vault: expect.any(String) });
  });

  it('falls back to the files for a killed server, a stale socket, a foreign socket and a file in its place', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const a = memory({ title: 'Fallback crane', body: 'crane words' });
    putMemories(repo, a);
    const { pid, socket } = await detach(repo, env);
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    // the socket file stays behind: nobody listens on it
    const killed = await runBin(['search', 'crane', '--json'], { cwd: repo, env });
    expect(killed.code).toBe(0);
    expect(JSON.parse(killed.stdout).total).toBe(1);
    expect((await runBin(['read', a.id], { cwd: repo, env })).code).toBe(0);
    expect((await status(repo, env)).running).toBe(false);
    // a new server replaces the stale socket
    const again = await detach(repo, env);
    expect((await status(repo, env)).pid).toBe(again.pid);
    await runBin(['watch', '--stop'], { cwd: repo, env });

    // a foreign server on the socket path: it answers another protocol
    const foreign = createServer((s) => s.end('{"v":999,"ok":true,"result":{"results":[],"total":0}}\n'));
    await new Promise<void>((r) => foreign.listen(socket, () => r()));
    try {
      const r = await runBin(['search', 'crane', '--json'], { cwd: repo, env });
      expect(JSON.parse(r.stdout).total).toBe(1);
      expect((await runBin(['read', a.id], { cwd: repo, env })).code).toBe(0);
    } finally {
      foreign.close();
    }
    rmSync(socket, { force: true });
    // a listener of our protocol version whose answers hold no pid: --stop stops nothing, no stack trace
    const odd = createServer((s) => s.end(`{"v":${PROTOCOL_VERSION},"ok":true,"pid":1}\n`));
    await new Promise<void>((r) => odd.listen(socket, () => r()));
    try {
      const stop = await runBin(['watch', '--stop'], { cwd: repo, env });
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stdout + stop.stderr).not.toMatch(/internal error|TypeError|at /);
      expect(stop.stdout).toMatch(/no index server runs/);
      // --detach and a foreground start refuse it clearly (it answers, so it is not a stale socket)
      for (const args of [['watch', '--detach'], ['watch']]) {
        const start = await runBin(args, { cwd: repo, env });
        expect(start.code, args.join(' ')).toBe(7);
        expect(start.stdout + start.stderr).not.toMatch(/internal error|TypeError|\bat /);
        expect(start.stderr).toMatch(
          /^error: cannot start the index server: .* is held by a listener that is not the vault's index server\nhint: stop the program listening on /,
        );
      }
    } finally {
      odd.close();
    }
    rmSync(socket, { force: true });
    // a plain file where the socket would be
    writeFileSync(socket, 'not a socket');
    expect(JSON.parse((await runBin(['search', 'crane', '--json'], { cwd: repo, env })).stdout).total).toBe(1);
    rmSync(socket);
  });

  it('puts the socket in a private short folder when the index folder path is too long', async () => {
    const deep = join(tempDir('vault-long-'), 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    const repo = deep;
    git(repo, 'init', '-q', '-b', 'main');
    const env = serverEnv();
    const a = memory({ title: 'Long path crane', body: 'crane words' });
    putMemories(repo, a);
    const { socket } = await detach(repo, env);
    expect(socket.startsWith(env.XDG_RUNTIME_DIR!)).toBe(true);
    const { files, served } = await answers(repo, env, 'crane', a.id);
    expect(served).toEqual(files);
    expect((await status(repo, env)).requests).toBeGreaterThan(2);
  });

  it('watches a scope folder that appears after the start', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    await detach(repo, env);
    expect((await status(repo, env)).watcher).toMatchObject({ mode: 'fs.watch', absent: ['team', 'project'] });
    const a = memory({ title: 'Late crane', body: 'crane words' });
    putMemories(repo, a);
    const { files, served } = await answers(repo, env, 'crane', a.id);
    expect(served).toEqual(files);
    expect(served.total).toBe(1);
    const b = memory({ title: 'Later crane', body: 'crane words again' });
    putMemories(repo, b);
    expect((await answers(repo, env, 'crane', b.id)).served.total).toBe(2);
    expect((await status(repo, env)).watcher).toMatchObject({ mode: 'fs.watch', absent: ['project'] });
  });

  it("answers the MCP server's memory_search like the files", async () => {
    const repo = gitRepo();
    const env = serverEnv();
    putMemories(repo, memory({ title: 'MCP crane', body: 'crane words' }), memory({ title: 'Other', body: 'nothing' }));
    await detach(repo, env);
    const served = await startMcp(repo, { ...env, ECC_MEMORY_HARNESS: 'cursor' });
    const files = await startMcp(repo, { ...env, ECC_MEMORY_HARNESS: 'cursor', ECC_VAULT_SERVER: 'off' });
    const before = (await status(repo, env)).requests as number;
    const a = await callOk(served, 'memory_search', { query: 'crane' });
    expect(a).toEqual(await callOk(files, 'memory_search', { query: 'crane' }));
    expect(a.total).toBe(1);
    expect((await status(repo, env)).requests).toBe(before + 2);
  });

  it("answers vault save's similar-memory check like the files (CLI save, --unique, and the library call)", async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const a = memory({ title: 'Harbour crane', body: 'the crane lifts containers from the ships onto the quay at night' });
    const b = memory({ title: 'Dock schedule', body: 'crane shifts start at dawn and end at dusk every day of the week' });
    putMemories(repo, a, b, memory({ title: 'Unrelated', body: 'nothing in common here' }));
    await detach(repo, env);
    const save = async (title: string, body: string, e: Record<string, string>, ...more: string[]) => {
      const r = await runBin(['save', '--scope', 'team', '--kind', 'note', '--title', title, '--body', body, '--json', ...more], { cwd: repo, env: e });
      return { code: r.code, out: r.code === 0 ? JSON.parse(r.stdout) : r.stdout + r.stderr };
    };
    const before = (await status(repo, env)).requests as number;
    // same title, then a near-identical body: through the server
    const t = await save('harbour  CRANE!', 'a different body about cranes', env);
    expect(t.code).toBe(0);
    expect(t.out.similar).toEqual([{ id: a.id, path: `team/notes/${a.id}.md`, reason: 'same-title' }]);
    const requests = (await status(repo, env)).requests as number;
    expect(requests).toBeGreaterThan(before + 1); // the similar check went to the server
    const s = await save('Shift plan', b.body, env);
    expect(s.out.similar).toEqual([{ id: b.id, path: `team/notes/${b.id}.md`, reason: 'similar-body' }]);
    // --unique refuses alike with and without the server
    const off = { ...env, ECC_VAULT_SERVER: 'off' };
    const u1 = await save('Dock Schedule', 'again', env, '--unique');
    const u2 = await save('Dock Schedule', 'again', off, '--unique');
    expect(u1.code).not.toBe(0);
    expect(u1).toEqual(u2);
    expect(u1.out).toContain(`a similar memory already exists: ${b.id} (same-title)`);
    // the whole answer (similarity figures included) equals the files' for probes of every kind
    const rt = nodeRuntime({ cwd: repo, env });
    const roots = resolveRoots(rt);
    for (const probe of [
      { title: 'Harbour crane', body: 'x', scope: 'team' as const },
      { title: 'Other', body: b.body, scope: 'team' as const },
      { title: 'Other', body: b.body, scope: 'team' as const, id: s.out.id as string },
      { title: 'Nothing alike', body: 'zebra', scope: 'team' as const },
      { title: 'Harbour crane', body: a.body, scope: 'project' as const },
    ]) {
      const served = await similarServedOrOnDisk(roots, probe, rt);
      expect(served, JSON.stringify(probe)).toEqual(await findSimilarMemories(roots, probe));
    }
    // one save, one refused save, five probes and this status: all answered by the server
    expect((await status(repo, env)).requests as number).toBe(requests + 8);
  });

  it('answers the hooks (prompt recall, session-start digest) like the files', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const redis = memory({ kind: 'decision', title: 'Redis keeps the login sessions', body: 'Login sessions live in Redis with a 14 day expiry.' });
    putMemories(repo, redis, memory({ kind: 'preference', title: 'Tabs in Go files', body: 'gofmt decides.' }));
    await detach(repo, env);
    const off = { ...env, ECC_VAULT_SERVER: 'off' };
    const recall = (e: Record<string, string>, session: string) =>
      hook('user-prompt-submit', { session_id: session, cwd: repo, prompt: 'why do the login sessions live in redis?' }, { cwd: repo, env: e });
    const start = (e: Record<string, string>, session: string) =>
      hook('session-start', { session_id: session, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' }, { cwd: repo, env: e });
    const before = (await status(repo, env)).requests as number;
    const served = { recall: (await recall(env, 'a')).stdout, start: contextOf((await start(env, 'b')).stdout) };
    // one search for the prompt; the digest's context search and its newest-first search
    expect((await status(repo, env)).requests).toBeGreaterThanOrEqual(before + 3);
    expect(served.recall).toContain(redis.id);
    expect(served.start).toContain(redis.id);
    expect(served).toEqual({ recall: (await recall(off, 'c')).stdout, start: contextOf((await start(off, 'd')).stdout) });
    // through the binary: the server recalls (a `recall` request), and the session's record keeps
    // what was injected, so the same prompt again injects nothing, served or not
    const binRecall = async (e: Record<string, string>, session: string) =>
      (
        await hook(
          'user-prompt-submit',
          { session_id: session, cwd: repo, prompt: 'why do the login sessions live in redis?' },
          { cwd: repo, env: e, bin: true },
        )
      ).stdout;
    const twice = async (e: Record<string, string>, session: string) => [await binRecall(e, session), await binRecall(e, session)];
    const servedTwice = await twice(env, 'e');
    expect(servedTwice[0]).toBe(served.recall);
    expect(servedTwice[1]).not.toContain(redis.id);
    expect(servedTwice).toEqual(await twice(off, 'f'));
    // the server's answer to a recall request is prompt recall's on the files
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env }));
    const who = { uid: process.getuid!(), env };
    const query = 'why do the login sessions live in redis?';
    const asked = await askServer(roots, { op: 'recall', query, harness: 'claude', exclude: [], fullCheckIntervalS: 60 }, who);
    expect(asked).toMatchObject({ ok: true, result: await recallText(roots, query, { harness: 'claude', exclude: new Set() }) });
    expect(asked).toMatchObject({ result: { ids: [redis.id] } });
    const bad = await askServer(roots, { op: 'recall', query, harness: 'claude', exclude: [1], fullCheckIntervalS: -1 } as never, who);
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-input', field: 'recall' } });
  });

  it('prompt recall asks a server that does not answer once, then recalls from the files (one timeout, not two)', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const redis = memory({ kind: 'decision', title: 'Redis keeps the login sessions', body: 'Login sessions live in Redis with a 14 day expiry.' });
    putMemories(repo, redis);
    // a listener of this user at the server's socket path that takes requests and never answers
    const socket = join(repo, '.git', 'ecc-memory-index', 'server.sock');
    mkdirSync(join(repo, '.git', 'ecc-memory-index'), { recursive: true });
    const connections: Socket[] = [];
    const mute = createServer((c) => connections.push(c));
    await new Promise<void>((r) => mute.listen(socket, () => r()));
    try {
      const r = await hook(
        'user-prompt-submit',
        { session_id: 's', cwd: repo, prompt: 'why do the login sessions live in redis?' },
        { cwd: repo, env, bin: true },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(redis.id);
      expect(connections).toHaveLength(1);
    } finally {
      for (const c of connections) c.destroy();
      await new Promise<void>((r) => mute.close(() => r()));
    }
  }, 30_000);

  it('a server that does not reply costs a command one timeout (ECC_VAULT_SERVER_TIMEOUT_MS), and a reply of another shape falls back to the files', async () => {
    const repo = gitRepo();
    const env = { ...serverEnv(), ECC_VAULT_SERVER_TIMEOUT_MS: '800' };
    const m = memory({ kind: 'decision', title: 'Redis keeps the login sessions', body: 'Login sessions live in Redis.' });
    putMemories(repo, m);
    const off = { ...env, ECC_VAULT_SERVER: 'off' };
    const want = { search: await runBin(['search', 'redis'], { cwd: repo, env: off }), read: await runBin(['read', m.id], { cwd: repo, env: off }) };
    const socket = join(repo, '.git', 'ecc-memory-index', 'server.sock');
    mkdirSync(join(repo, '.git', 'ecc-memory-index'), { recursive: true });
    for (const reply of [undefined, { hits: [] }, { memory: { title: 3 } }, null]) {
      const connections: Socket[] = [];
      const listener = createServer((c) => {
        connections.push(c);
        // never answers, or answers our protocol with a result of another shape
        if (reply !== undefined) c.once('data', () => c.end(`${JSON.stringify({ v: PROTOCOL_VERSION, ok: true, result: reply })}\n`));
      });
      await new Promise<void>((r) => listener.listen(socket, () => r()));
      try {
        for (const [what, args] of [
          ['search', ['search', 'redis']],
          ['read', ['read', m.id]],
        ] as const) {
          const before = connections.length;
          const got = await runBin([...args], { cwd: repo, env });
          expect({ code: got.code, stdout: got.stdout }, `${what}, reply ${JSON.stringify(reply)}`).toEqual({ code: 0, stdout: want[what].stdout });
          if (reply === undefined) expect(connections.length - before, `${what}: asked a mute server more than once`).toBe(1);
        }
      } finally {
        for (const c of connections) c.destroy();
        await new Promise<void>((r) => listener.close(() => r()));
      }
    }
  }, 60_000);

  it('falls back to full checks when watching fails (the inotify limit, ENOSPC) and says so in --status', async () => {
    const repo = gitRepo();
    const env = { ...serverEnv(), ECC_VAULT_WATCH_FAULT: 'ENOSPC' };
    const a = memory({ title: 'Limit crane', body: 'crane words' });
    putMemories(repo, a);
    await detach(repo, env);
    const s = await status(repo, env);
    expect(s.watcher).toMatchObject({ mode: 'full-checks', reason: expect.stringContaining('ENOSPC') });
    const text = await runBin(['watch', '--status'], { cwd: repo, env });
    expect(text.stdout).toMatch(/watcher: failed \(cannot watch .*ENOSPC\); every request checks the files in full/);
    // nothing is watched, yet every answer is the files': an in-place write to an unreturned file included
    const b = memory({ title: 'Quiet note', body: 'nothing here' });
    putMemories(repo, b);
    expect((await answers(repo, env, 'crane', b.id)).served).toEqual((await answers(repo, env, 'crane', b.id)).files);
    writeFileSync(memoryPath(repo, b), serializeMemory({ ...b, body: 'a crane after all' }));
    // (the files' own folder check would see this write only at its next full check: compare with one now)
    const { files, served } = await answers(repo, { ...env, ECC_INDEX_FULL_CHECK_S: '0' }, 'crane', b.id);
    expect(served).toEqual(files);
    expect(served.total).toBe(2);
    expect((await status(repo, env)).fullChecks as number).toBeGreaterThanOrEqual(6);
  });

  it('catches events inotify dropped (queue overflow) with the periodic full check', async () => {
    const repo = gitRepo();
    const env = { ...serverEnv(), ECC_VAULT_WATCH_FAULT: 'drop-events', ECC_INDEX_FULL_CHECK_S: '1' };
    putMemories(repo, memory({ title: 'Overflow crane', body: 'crane words' }));
    await detach(repo, env);
    const s = await status(repo, env);
    expect(s.watcher).toMatchObject({ mode: 'fs.watch', fullCheckEveryS: 1 });
    expect((await runBin(['watch', '--status'], { cwd: repo, env })).stdout).toContain('full check every 1 s');
    const search = async () => JSON.parse((await runBin(['search', 'crane', '--json', '--scope', 'team'], { cwd: repo, env })).stdout).total as number;
    expect(await search()).toBe(1);
    const b = memory({ title: 'Unseen crane', body: 'crane again' });
    putMemories(repo, b); // its event is dropped: the kept index does not know it yet
    const until = Date.now() + 10_000;
    let total = await search();
    while (total !== 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      total = await search();
    }
    expect(total).toBe(2);
    expect(((await status(repo, env)).watcher as { periodicChecks: number }).periodicChecks).toBeGreaterThan(0);
  });

  it('warms up with requests of its own after the start, not counted as requests, and answers status meanwhile', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    const m = memory({ kind: 'decision', title: 'Warm cache', body: 'A decision about caches.' });
    putMemories(repo, m);
    await detach(repo, env);
    let s = await status(repo, env);
    for (let i = 0; i < 100 && typeof s.warmUpMs !== 'number'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await status(repo, env);
    }
    expect(typeof s.warmUpMs).toBe('number');
    // --detach's own status polls and these: no search, read or recall of the warm-up is counted
    const before = s.requests as number;
    const r = await runBin(['search', 'caches', '--json'], { cwd: repo, env });
    expect((JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((h) => h.id)).toEqual([m.id]);
    expect((await status(repo, env)).requests).toBe(before + 2);
  });

  it('refuses a second server for the same vault', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    putMemories(repo, memory());
    const { pid } = await detach(repo, env);
    const second = await runBin(['watch', '--scope', 'team'], { cwd: repo, env });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`already runs for this vault (pid ${pid})`);
  });

  it('a server whose socket path another server took (after a protocol change) leaves that socket in place when it stops', async () => {
    const repo = gitRepo();
    const env = serverEnv();
    putMemories(repo, memory());
    const { pid, socket } = await detach(repo, env);
    // what a newer server does with a socket whose server speaks another protocol: remove it, listen there
    rmSync(socket);
    const newer = createServer((c) => c.end());
    await new Promise<void>((r) => newer.listen(socket, () => r()));
    try {
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          break; // it stopped
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(() => process.kill(pid, 0), 'the old server did not stop').toThrow();
      expect(lstatSync(socket).isSocket(), 'the newer server lost its socket').toBe(true);
    } finally {
      await new Promise<void>((r) => newer.close(() => r()));
    }
  }, 30_000);
});
