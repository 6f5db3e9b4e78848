/**
 * Hardening item 8: the stdio transport's limits, through a real `vault mcp` subprocess. One
 * message over 10 MiB used to end the server (the SDK's stdio transport closes the connection);
 * now a line over 1 MiB (the reference server's limit) gets a JSON-RPC error and the server goes
 * on with the next line.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, gitRepo } from '../helpers/cli.js';
import { runRawMcp } from '../helpers/mcp-client.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'transport-test', version: '1.0.0' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const MiB = 1024 * 1024;

/** A tools/call line of about `bytes` bytes (the query is padded). */
function bigSearch(id: number, bytes: number): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"`;
  const tail = '"}}}';
  return head + 'a'.repeat(bytes - head.length - tail.length) + tail;
}

function answers(stdout: Buffer): any[] {
  const text = stdout.toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('vault mcp: transport limits', () => {
  it('refuses a 12 MiB message with -32700 "message is too large" and keeps serving the next lines', async () => {
    const messages = [
      INIT,
      INITIALIZED,
      ping(2),
      bigSearch(3, 12 * MiB),
      ping(4),
      bigSearch(5, MiB - 64), // under the limit: read and answered (the query itself is too long for the tool)
      'this line is not JSON',
      '{"jsonrpc":"2.0","id":6,"method":5}',
      '',
      `${JSON.stringify(ping(7))}\r`,
    ];
    const r = await runRawMcp(gitRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), messages);
    expect(r.code, r.stderr).toBe(0);
    const out = answers(r.stdout);
    const byId = new Map(out.filter((m) => m.id !== null).map((m) => [m.id, m]));
    expect(byId.get(2).result).toEqual({});
    expect(byId.get(4).result).toEqual({});
    expect(byId.get(7).result).toEqual({});
    expect(byId.has(3)).toBe(false); // refused before its id could be trusted
    expect(byId.get(5)).toBeDefined();
    expect(JSON.stringify(byId.get(5))).not.toContain('too large');
    expect(byId.get(6).error).toEqual({ code: -32600, message: 'Invalid Request' });
    const anonymous = out.filter((m) => m.id === null);
    expect(anonymous).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'message is too large', data: { maxBytes: MiB } } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]);
    // the order of the stream is kept: the refusal comes between the pings around it
    const order = out.map((m) => m.id);
    expect(order.indexOf(null)).toBeGreaterThan(order.indexOf(2));
    expect(order.indexOf(null)).toBeLessThan(order.indexOf(4));
    expect(r.stderr).toContain(`refused a message of more than ${MiB} bytes`);
  });

  it.runIf(process.platform === 'linux')('skips the rest of an oversized line without buffering it (96 MiB line, peak memory checked)', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: gitRepo(), env: cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const check = () => (new RegExp(`"id":${id}[,}]`).test(stdout) ? resolve() : setTimeout(check, 10));
        check();
      });
    const peakKiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
    const write = (s: string) => new Promise<void>((resolve) => (child.stdin.write(s) ? resolve() : child.stdin.once('drain', () => resolve())));
    await write(`${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n${JSON.stringify(ping(2))}\n`);
    await answered(2);
    const before = peakKiB();
    await write('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"');
    const block = 'x'.repeat(MiB);
    for (let i = 0; i < 96; i++) await write(block);
    await write(`"}}\n${JSON.stringify(ping(4))}\n`);
    await answered(4);
    const growthMiB = (peakKiB() - before) / 1024;
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    expect(stdout).toContain('"message is too large"');
    // garbage chunks wait for the collector, so memory grows some (1 MiB chunks are large objects,
    // freed only by a full collection, which lags on a loaded machine: 48 MiB was exceeded once);
    // holding the line would be 96 MiB and more, so anything under 80 MiB proves it was skipped
    expect(growthMiB, `peak memory grew by ${growthMiB.toFixed(1)} MiB`).toBeLessThan(80);
  });
});
