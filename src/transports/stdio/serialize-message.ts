import type { JsonRpcPayload } from '../../jsonrpc/index.js'

/**
 * One message as a stdio line: its JSON text and a newline. JSON.stringify escapes every control
 * character inside strings, so the text itself never holds a raw newline.
 *
 * @example
 * serializeMessage({ jsonrpc: '2.0', id: 1, method: 'ping' }) // '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
export function serializeMessage(payload: JsonRpcPayload): string {
  return `${JSON.stringify(payload)}\n`
}
