import type { AuthInfo } from '../auth-info/auth-info.js'
import type { JsonRpcParams, RequestId } from '../jsonrpc/index.js'
import type { ProgressToken } from '../schema/features.js'
import type { RequestOptions } from './request-options.js'

export type { AuthInfo }

/**
 * What a request handler receives beside the params: the abort signal that fires on
 * `notifications/cancelled` or disconnect, a progress reporter, and ways to talk to the peer
 * on behalf of this request.
 */
export interface RequestContext {
  requestId: RequestId
  method: string
  signal: AbortSignal
  sessionId?: string | undefined
  authInfo?: AuthInfo | undefined
  headers?: Readonly<Record<string, string | string[] | undefined>> | undefined
  /** `params._meta` of the request. */
  meta?: Record<string, unknown> | undefined
  progressToken?: ProgressToken | undefined
  /**
   * Report progress when the caller asked for it (a no-op otherwise). Progress must increase
   * with each call; a value that does not is refused with a RangeError.
   */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>
  /** Send a notification tied to this request. */
  sendNotification(method: string, params?: JsonRpcParams): Promise<void>
  /** Send a request to the peer tied to this request. */
  sendRequest(method: string, params?: JsonRpcParams, options?: RequestOptions): Promise<Record<string, unknown>>
}
