import { ErrorCode } from './codes.js'
import { JsonRpcError } from './error.js'
import {
  JSONRPC_VERSION,
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
  const fast = classifyWellFormed(record)
  if (fast !== undefined) return fast
  // the slow path: the zod schemas say precisely what is wrong
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

/**
 * The hot path: a plain structural check that accepts exactly what the zod schemas accept for
 * well-formed messages, without copying them. Anything it does not recognise (undefined) goes
 * to the schemas, which either accept it or explain the problem.
 */
function classifyWellFormed(record: Record<string, unknown>): ClassifiedMessage | undefined {
  if (record.jsonrpc !== JSONRPC_VERSION) return undefined
  const { id, method, params } = record
  if (params !== undefined && !isPlainObject(params)) return undefined
  if (typeof method === 'string') {
    if (id === undefined) return 'id' in record ? undefined : { kind: 'notification', message: record as JsonRpcNotification }
    return isRequestId(id) ? { kind: 'request', message: record as JsonRpcRequest } : undefined
  }
  if ('method' in record) return undefined
  const hasResult = 'result' in record
  const hasError = 'error' in record
  if (hasResult === hasError) return undefined
  if (hasResult) {
    return isRequestId(id) && isPlainObject(record.result) ? { kind: 'response', message: record as JsonRpcResultResponse } : undefined
  }
  const error = record.error as Record<string, unknown> | null
  return (isRequestId(id) || id === null) && isPlainObject(error) && Number.isInteger(error.code) && typeof error.message === 'string'
    ? { kind: 'response', message: record as JsonRpcErrorResponse }
    : undefined
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
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
