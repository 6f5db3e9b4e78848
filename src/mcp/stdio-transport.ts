/**
 * The server's stdio transport: one JSON-RPC message per line, each line bounded. It replaces the
 * SDK's StdioServerTransport, which buffers a whole line before looking at it and closes the
 * connection when a line passes 10 MiB (one oversized message ended the server).
 *
 * - A line longer than {@link MAX_MESSAGE_BYTES} is answered `-32700` "message is too large" as
 *   soon as it passes the limit; the rest of it is skipped as it arrives (never buffered), and
 *   reading resumes after its newline. The limit is the reference ecc.memory.v1 server's.
 * - A line that is not JSON is answered `-32700` "Parse error"; JSON that is not a JSON-RPC
 *   message is answered `-32600` "Invalid Request" (JSON-RPC 2.0 §5.1; `id` when it has a usable
 *   one, else null). The server keeps serving after either.
 * - A trailing CR is tolerated and blank lines are skipped.
 * - An error answer is sent without the SDK's "MCP error <code>: " prefix (the client adds one).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { redactSecretShapes } from '../secrets/scan-secrets.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Longest accepted message line in bytes, newline excluded (1 MiB, as the reference server). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** JSON-RPC error codes used by the transport (JSON-RPC 2.0 §5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

interface Readable {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
  listenerCount(event: string): number;
  pause(): unknown;
}

interface Writable {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * The message without the "MCP error <code>: " that the SDK's McpError puts before its text: the
 * client's SDK adds it again, and people read "MCP error -32602: MCP error -32602: ...".
 */
function withoutCodePrefix(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; message?: unknown } }).error;
  if (!error || typeof error.message !== 'string') return message;
  const prefix = `MCP error ${String(error.code)}: `;
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  // the SDK's own answers quote what the client sent ("Prompt <name> not found", "Resource <uri> not found"): no credential is echoed
  const clean = redactSecretShapes(text).text;
  return clean === error.message ? message : ({ ...message, error: { ...error, message: clean } } as JSONRPCMessage);
}

/** A bounded newline-delimited JSON-RPC transport over a readable and a writable stream. */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** pieces of the current line, at most `maxBytes` in total */
  private pieces: Buffer[] = [];
  private pending = 0;
  /** true while the rest of an oversized line is being skipped */
  private skipping = false;
  private started = false;

  private readonly maxBytes: number;
  private readonly screen: ((message: JSONRPCMessage) => JSONRPCMessage | undefined) | undefined;

  /**
   * @param input where messages arrive (process.stdin)
   * @param output where answers go (process.stdout)
   * @param options `maxBytes`: longest accepted line in bytes (default {@link MAX_MESSAGE_BYTES});
   *   `screen`: returns the answer to a message the server refuses before handling it (the
   *   message is then not passed on), or undefined
   */
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: { maxBytes?: number; screen?: (message: JSONRPCMessage) => JSONRPCMessage | undefined } = {},
  ) {
    this.maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
    this.screen = options.screen;
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.skipping && end > start) {
        if (this.pending + (end - start) > this.maxBytes) {
          this.pieces = [];
          this.pending = 0;
          this.skipping = true;
          this.onerror?.(new Error(`refused a message of more than ${this.maxBytes} bytes`));
          this.reply(null, PARSE_ERROR, 'message is too large', { maxBytes: this.maxBytes });
        } else {
          this.pieces.push(chunk.subarray(start, end));
          this.pending += end - start;
        }
      }
      if (newline === -1) break;
      if (!this.skipping) this.handleLine(Buffer.concat(this.pieces, this.pending));
      this.pieces = [];
      this.pending = 0;
      this.skipping = false;
      start = newline + 1;
    }
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private handleLine(bytes: Buffer): void {
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.reply(null, PARSE_ERROR, 'Parse error');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const usable = (typeof id === 'string' && id.length <= 128) || (typeof id === 'number' && Number.isSafeInteger(id));
      this.reply(usable ? (id as string | number) : null, INVALID_REQUEST, 'Invalid Request');
      return;
    }
    let refusal: JSONRPCMessage | undefined;
    try {
      refusal = this.screen?.(parsed.data);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err))); // a broken screen lets the server decide
    }
    if (refusal) this.send(refusal).catch(() => undefined);
    else this.onmessage?.(parsed.data);
  }

  private reply(id: string | number | null, code: number, message: string, data?: unknown): void {
    const error = data === undefined ? { code, message } : { code, message, data };
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`).catch(() => undefined);
  }

  private write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(withoutCodePrefix(message))}\n`);
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pieces = [];
    this.pending = 0;
    this.onclose?.();
  }
}
