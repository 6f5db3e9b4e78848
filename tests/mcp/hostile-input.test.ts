/**
 * Hardening item 1 through MCP: one hostile memory file used to freeze the whole server (a
 * `memory_read` parsed it for 70 s on the event loop, and nothing else was answered meanwhile).
 *
 * The server handles a tool call on its event loop, so while a call runs a ping waits for it;
 * what bounds that wait is the call itself: every file's parse is bounded (the parser's limits,
 * and no second parse to explain an error), so a read, search or doctor over a vault of every
 * hostile shape takes about a second, and a ping sent while it runs is answered within it.
 */
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../helpers/cli.js';
import { hostileRepo } from '../helpers/hostile-vault.js';
import { callTool, startMcp, textOf } from '../helpers/mcp-client.js';

const CALL_BOUND_MS = 5000;

describe('vault mcp over a vault of hostile files (hardening item 1)', () => {
  it(`memory_read, memory_search and memory_doctor answer in under ${CALL_BOUND_MS / 1000} s, and a ping sent meanwhile is answered within that call`, async () => {
    const s = await startMcp(hostileRepo(), cliEnv({ ECC_MEMORY_HARNESS: 'cursor' }));
    const calls: [string, Record<string, unknown>, (text: string, isError: boolean) => void][] = [
      ['memory_read', { id: 'mem_hostile_000' }, (text, isError) => expect(isError && JSON.parse(text).error.code).toBe('MEMORY_READ_INCOMPLETE')],
      ['memory_search', { query: 'body' }, (text, isError) => expect(!isError && JSON.parse(text).diagnostics[0]).toMatch(/not a usable memory/)],
      ['memory_doctor', {}, (text, isError) => expect(!isError && JSON.parse(text).counts.errors).toBeGreaterThanOrEqual(50)],
    ];
    for (const [name, args, check] of calls) {
      const started = Date.now();
      const call = callTool(s, name, args);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the call has started
      const pingSent = Date.now();
      await s.client.ping();
      const pingMs = Date.now() - pingSent;
      const r = await call;
      const callMs = Date.now() - started;
      check(textOf(r), r.isError === true);
      expect(callMs, `${name} took ${callMs} ms`).toBeLessThan(CALL_BOUND_MS);
      expect(pingMs, `a ping during ${name} waited ${pingMs} ms`).toBeLessThan(CALL_BOUND_MS);
    }
    expect(s.stderr()).not.toMatch(/internal error/);
  });
});
