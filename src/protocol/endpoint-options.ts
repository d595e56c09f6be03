import type { JsonRpcParams, JsonRpcRequest } from '../jsonrpc/index.js'
import type { RequestContext } from './context.js'
import type { MessageExtra } from './transport.js'

export type RequestHandler = (params: JsonRpcParams, context: RequestContext) => unknown
export type NotificationHandler = (params: JsonRpcParams, extra: MessageExtra | undefined) => void | Promise<void>

/**
 * Limits and hooks of one endpoint. The endpoint keeps this object (it does not copy it) and
 * calls the hooks as its methods, so one object of a class can hold them all: a server with
 * thousands of sessions then holds no closure per hook and session. Unset limits fall back to
 * `defaults.protocol`.
 */
export interface EndpointOptions {
  requestTimeoutMs?: number
  resetTimeoutOnProgress?: boolean
  maxTotalTimeoutMs?: number
  maxPendingRequests?: number
  /** Throws when we may not send this request (the peer did not declare the capability). */
  assertCanRequest?: (method: string) => void
  /** Throws when we may not send this notification (we did not declare the capability). */
  assertCanNotify?: (method: string) => void
  /**
   * Handlers looked up on demand, after those set with setRequestHandler: lets many endpoints
   * share one method table instead of registering closures each.
   */
  resolveRequestHandler?: (method: string) => RequestHandler | undefined
  /** Whether a JSON-RPC batch is acceptable now (2025-03-26 sessions only). */
  acceptsBatch?: () => boolean
  /**
   * Runs before any inbound request's handler; throwing a JsonRpcError refuses the request
   * (lifecycle rules: nothing but ping before initialize).
   */
  beforeRequest?: (request: JsonRpcRequest) => void
  /**
   * Looked at first for every inbound request: a handler returned here serves it instead of the
   * method table, and beforeRequest does not apply (a stateless 2026-07-28 request on a pipe
   * that also carries a handshake-era session).
   */
  routeRequest?: (request: JsonRpcRequest) => RequestHandler | undefined
  /** Notifications no handler is registered for, unless `fallbackNotificationHandler` is set. */
  unhandledNotification?: (method: string, params: JsonRpcParams, extra: MessageExtra | undefined) => void
  /** The connection closed (called before the endpoint's `onclose`). */
  closed?: () => void
  /** An error no response can carry (an invalid message, a failed send); before `onerror`. */
  failed?: (error: Error) => void
}
