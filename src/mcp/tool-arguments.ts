/**
 * Strict tool arguments, as the reference ecc.memory.v1 server has them: a `tools/call` whose
 * arguments hold a key the tool does not declare, or break its schema, is refused with the
 * JSON-RPC error -32602 before the tool runs. Nothing is silently dropped: a client that sends
 * `harness`, `sourceHarness`, `trust` or `status` learns that the server decides those.
 *
 * The SDK's McpServer turns its own argument errors into tool results (`isError: true`) and
 * catches whatever its tools/call handler throws, so the check runs before the request reaches
 * it: the stdio transport screens each message with {@link toolCallRefusal}. (The input schemas
 * are strict for the SDK too, so an unscreened transport still refuses, as a tool error.)
 */
import { isJSONRPCRequest, type JSONRPCErrorResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { ProtocolError } from './protocol-error.js';
import { boundInput, quoteInput } from '../document/echo-input.js';

/** JSON-RPC 2.0 "Invalid params". */
const INVALID_PARAMS = -32602;

/** Why a key a client may try is not an argument (the server decides it). */
function noteFor(tool: string, key: string): string | undefined {
  if (/harness/i.test(key)) return "the harness identity comes from the server's environment at launch (ECC_MEMORY_HARNESS), never from the client";
  if (key === 'trust') return 'every memory is saved as "unreviewed"; people review it in git';
  if (key === 'status' && tool === 'memory_save') return 'a new memory is always "active"; changing a status is a person\'s edit (vault retire)';
  return undefined;
}

/** A client-chosen name, bounded and without credential shapes, for an error message. */
function shown(name: string): string {
  return quoteInput(name, 64);
}

/** The input schema of tool `name`; an unknown tool is refused (-32602, as in the reference). */
function schemaOf(name: string, inputs: Readonly<Record<string, z.ZodObject>>): z.ZodObject {
  const schema = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
  if (!schema) {
    throw new ProtocolError(INVALID_PARAMS, `Unknown tool ${shown(name)}; this server has ${Object.keys(inputs).join(', ')}`, { tool: boundInput(name, 64) });
  }
  return schema;
}

/**
 * Checks the arguments of one tools/call.
 *
 * @param params the request's params (already checked to be a tools/call request)
 * @param inputs each tool's strict input schema, by tool name
 * @throws ProtocolError -32602 naming the tool and the unknown key(s) or the first broken field
 */
export function checkToolArguments(
  params: { name: string; arguments?: Record<string, unknown> | undefined },
  inputs: Readonly<Record<string, z.ZodObject>>,
): void {
  const { name } = params;
  const schema = schemaOf(name, inputs);
  const args = params.arguments ?? {};
  const allowed = Object.keys(schema.shape);
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(schema.shape, k));
  if (unknown.length > 0) {
    const notes = [...new Set(unknown.map((k) => noteFor(name, k)).filter((n) => n !== undefined))];
    const keys = unknown.slice(0, 8).map(shown).join(', ') + (unknown.length > 8 ? `, and ${unknown.length - 8} more` : '');
    throw new ProtocolError(
      INVALID_PARAMS,
      `Invalid arguments for ${name}: unknown argument${unknown.length > 1 ? 's' : ''} ${keys}${notes.length ? ` (${notes.join('; ')})` : ''}; allowed: ${allowed.join(', ')}`,
      { tool: name, unknown: unknown.slice(0, 8).map((k) => boundInput(k, 64)) },
    );
  }
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    // zod's messages name the rule and the expected type, never the value
    throw new ProtocolError(INVALID_PARAMS, `Invalid arguments for ${name}: ${field ? `${field}: ` : ''}${issue.message}`, {
      tool: name,
      ...(field ? { field } : {}),
    });
  }
}

/**
 * The answer the server gives itself to a tools/call whose arguments break its tool's schema, for
 * the transport to send instead of passing the request on ({@link LineStdioTransport}'s screen).
 *
 * @param message any incoming JSON-RPC message
 * @param inputs each tool's strict input schema, by tool name
 * @returns a -32602 error response, or undefined when the message is not a refused tools/call
 */
export function toolCallRefusal(message: JSONRPCMessage, inputs: Readonly<Record<string, z.ZodObject>>): JSONRPCErrorResponse | undefined {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  try {
    if (typeof params?.name !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: tools/call needs the name of a tool');
    const args = params.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      schemaOf(params.name, inputs); // an unknown tool is named as such
      throw new ProtocolError(INVALID_PARAMS, `Invalid arguments for ${params.name}: arguments must be an object`, { tool: params.name });
    }
    checkToolArguments({ name: params.name, arguments: args as Record<string, unknown> | undefined }, inputs);
    return undefined;
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    return { jsonrpc: '2.0', id: message.id, error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } };
  }
}
