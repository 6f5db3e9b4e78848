/**
 * Drives `vault mcp` (the built binary, as a subprocess) with the MCP SDK's own stdio client.
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { BIN } from './cli.js';

export interface McpSession {
  client: Client;
  /** everything the server wrote to stderr so far */
  stderr(): string;
  close(): Promise<void>;
}

const open: McpSession[] = [];
afterEach(async () => {
  while (open.length)
    await open
      .pop()!
      .close()
      .catch(() => undefined);
});

/** Starts `vault mcp [extraArgs]` in `cwd` with `env` and connects the SDK client to it. */
export async function startMcp(cwd: string, env: Record<string, string>, extraArgs: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...extraArgs], cwd, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'vault-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const session: McpSession = { client, stderr: () => stderr, close: () => client.close() };
  open.push(session);
  return session;
}

/** Calls a tool and returns its result (tool errors are results, not exceptions). */
export async function callTool(s: McpSession, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await s.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured content of a successful call; fails the test with the error text otherwise. */
export async function callOk<T = Record<string, any>>(s: McpSession, name: string, args: Record<string, unknown>): Promise<T> {
  const r = await callTool(s, name, args);
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r.structuredContent as T;
}

/** The `error` object of a failed call; fails the test if the call succeeded. */
export async function callError(
  s: McpSession,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string; reason: string; field?: string; hint?: string; raw: string }> {
  const r = await callTool(s, name, args);
  if (!r.isError) throw new Error(`${name} unexpectedly succeeded: ${textOf(r)}`);
  const raw = textOf(r);
  return { ...JSON.parse(raw).error, raw };
}

/**
 * The JSON-RPC error a call is refused with (a protocol error, not a tool result); fails the test
 * if the call was answered with a result.
 */
export async function callRefused(s: McpSession, name: string, args: Record<string, unknown>): Promise<{ code: number; message: string; data?: any }> {
  try {
    const r = await s.client.callTool({ name, arguments: args });
    throw new Error(`${name} was not refused: ${JSON.stringify(r)}`);
  } catch (e) {
    if (!(e instanceof McpError)) throw e;
    return { code: e.code, message: e.message, data: e.data };
  }
}

/** The concatenated text content of a result. */
export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export interface RawRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `vault mcp` with a hand-written JSON-RPC exchange on stdin (one message per line) and
 * returns the raw stdout bytes, for checks on the protocol stream itself.
 */
export function runRawMcp(cwd: string, env: Record<string, string>, messages: unknown[], extraArgs: string[] = [], timeoutMs = 30_000): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp', ...extraArgs], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr });
    });
    child.stdin.end(`${messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join('\n')}\n`);
  });
}
