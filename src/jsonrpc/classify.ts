import { ErrorCode } from './codes.js'
import { JsonRpcError } from './error.js'
import {
  JSONRPC_VERSION,
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
  // the slow path: say precisely what is wrong
  if ('method' in record) {
    const hasId = 'id' in record
    throw invalid([...envelopeProblems(record, hasId ? 'request' : 'notification'), ...methodProblems(record)], hasId ? record.id : undefined)
  }
  const hasResult = 'result' in record
  if (hasResult !== 'error' in record) {
    throw invalid(hasResult ? [...envelopeProblems(record, 'result'), ...resultProblems(record)] : [...envelopeProblems(record, 'error'), ...errorProblems(record)])
  }
  throw new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: not a request, notification or response')
}

/**
 * The hot path: a plain structural check that accepts well-formed messages without copying
 * them. Anything it does not recognise (undefined) is invalid, and the problem functions below
 * say why.
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

type Kind = 'request' | 'notification' | 'result' | 'error'

/** What is wrong with the members every message shares: `jsonrpc` and, but for notifications, `id`. */
function envelopeProblems(record: Record<string, unknown>, kind: Kind): string[] {
  const problems: string[] = []
  if (record.jsonrpc !== JSONRPC_VERSION) problems.push(`jsonrpc: must be "${JSONRPC_VERSION}", got ${describe(record.jsonrpc)}`)
  if (kind !== 'notification' && !isRequestId(record.id) && !(kind === 'error' && record.id === null)) {
    problems.push(`id: must be a string or an integer${kind === 'error' ? ' (or null)' : ''}, got ${describe(record.id)}`)
  }
  return problems
}

function methodProblems(record: Record<string, unknown>): string[] {
  const problems: string[] = []
  if (typeof record.method !== 'string') problems.push(`method: must be a string, got ${describe(record.method)}`)
  if (record.params !== undefined && !isPlainObject(record.params)) problems.push(`params: must be an object, got ${describe(record.params)}`)
  return problems
}

function resultProblems(record: Record<string, unknown>): string[] {
  return isPlainObject(record.result) ? [] : [`result: must be an object, got ${describe(record.result)}`]
}

function errorProblems(record: Record<string, unknown>): string[] {
  const error = record.error
  if (!isPlainObject(error)) return [`error: must be an object, got ${describe(error)}`]
  const problems: string[] = []
  if (!Number.isInteger(error.code)) problems.push(`error.code: must be an integer, got ${describe(error.code)}`)
  if (typeof error.message !== 'string') problems.push(`error.message: must be a string, got ${describe(error.message)}`)
  return problems
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a fractional number'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function invalid(problems: readonly string[], id?: unknown): JsonRpcError {
  const detail = problems.length > 0 ? problems.join('; ') : 'not a well-formed JSON-RPC 2.0 message'
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
