import { JsonRpcError, classifyMessage, errorResponse, salvageId, type JsonRpcMessage, type RequestId } from '../jsonrpc/index.js'

/**
 * A payload no transport checked yet (one message or a batch), split into the messages that are
 * JSON-RPC and the error responses owed for those that are not (a request's id when it can be read).
 */
export function classifyPayload(payload: unknown): { messages: JsonRpcMessage[]; refusals: Array<{ id: RequestId; response: JsonRpcMessage }> } {
  const messages: JsonRpcMessage[] = []
  const refusals: Array<{ id: RequestId; response: JsonRpcMessage }> = []
  for (const item of Array.isArray(payload) ? payload : [payload]) {
    try {
      messages.push(classifyMessage(item).message)
    } catch (error) {
      const id = typeof item === 'object' && item !== null ? salvageId((item as { id?: unknown }).id) : null
      if (id !== null) refusals.push({ id, response: errorResponse(id, JsonRpcError.from(error)) })
    }
  }
  return { messages, refusals }
}
