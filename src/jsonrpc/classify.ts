import { ErrorCode } from './codes.js'
import { JsonRpcError } from './error.js'
import {
  JsonRpcErrorResponseSchema,
  JsonRpcNotificationSchema,
  JsonRpcRequestSchema,
  JsonRpcResultResponseSchema,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  type RequestId,
} from './messages.js'

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }

/**
 * Validate one decoded JSON value as a JSON-RPC 2.0 message and say which kind it is.
 * Throws a JsonRpcError (-32600) that carries the request id when one could be read.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object')
  }
  const record = value as Record<string, unknown>
  if ('method' in record) {
    if ('id' in record) {
      const parsed = JsonRpcRequestSchema.safeParse(value)
      if (parsed.success) return { kind: 'request', message: parsed.data }
      throw invalid(parsed.error.issues, record.id)
    }
    const parsed = JsonRpcNotificationSchema.safeParse(value)
    if (parsed.success) return { kind: 'notification', message: parsed.data }
    throw invalid(parsed.error.issues)
  }
  if ('result' in record && !('error' in record)) {
    const parsed = JsonRpcResultResponseSchema.safeParse(value)
    if (parsed.success) return { kind: 'response', message: parsed.data as JsonRpcResultResponse }
    throw invalid(parsed.error.issues)
  }
  if ('error' in record && !('result' in record)) {
    const parsed = JsonRpcErrorResponseSchema.safeParse(value)
    if (parsed.success) return { kind: 'response', message: parsed.data as JsonRpcErrorResponse }
    throw invalid(parsed.error.issues)
  }
  throw new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: not a request, notification or response')
}

/** The id of a message whose shape is otherwise invalid, when it is a usable id. */
export function salvageId(value: unknown): RequestId | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isInteger(value)) return value
  return null
}

function invalid(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, id?: unknown): JsonRpcError {
  const detail = issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ')
  return new JsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: ${detail}`, { id: salvageId(id) })
}

/** Type guards for code that already holds a validated message. */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message
}
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message)
}
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message)
}
