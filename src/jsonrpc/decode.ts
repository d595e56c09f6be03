import { ErrorCode } from './codes.js'
import { JsonRpcError } from './error.js'
import { JSONRPC_VERSION, type JsonRpcErrorResponse, type RequestId } from './messages.js'

/**
 * Decode one JSON text. Throws JsonRpcError(-32700) on anything that is not JSON; what the value
 * means is for `classifyMessage` and the endpoint to decide.
 */
export function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new JsonRpcError(ErrorCode.ParseError, 'Parse error: the message is not valid JSON', undefined, { cause })
  }
}

/** Build an error response; `id` is null when the request's id could not be determined. */
export function errorResponse(id: RequestId | null, error: JsonRpcError): JsonRpcErrorResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error: error.toJSON() }
}
