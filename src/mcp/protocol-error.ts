/**
 * A JSON-RPC error that the SDK sends as it is. The SDK's McpError puts "MCP error <code>: " in
 * front of its message, and the client's SDK adds that prefix again when it reads the answer, so
 * a thrown McpError reached people as "MCP error -32002: MCP error -32002: ...". The protocol
 * layer only reads `code`, `message` and `data` from what a handler throws.
 */
export class ProtocolError extends Error {
  /**
   * @param code the JSON-RPC error code (e.g. -32602 invalid params, -32002 resource not found)
   * @param message one line, sent as the error's `message`
   * @param data sent as the error's `data` when defined
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}
