import { defaults } from '../config/defaults.js'
import { JSONRPC_VERSION, JsonRpcError, type JsonRpcParams, type JsonRpcRequest, type RequestId } from '../jsonrpc/index.js'
import type { PendingRequests } from './correlation.js'
import type { EndpointOptions } from './endpoint-options.js'
import { LocalError } from './errors.js'
import type { RequestOptions } from './request-options.js'
import { RequestTimer } from './timeouts.js'
import type { SendOptions, Transport } from './transport.js'

type Result = Record<string, unknown>

/** What sending a request needs from its endpoint. */
export interface OutgoingDeps {
  transport: Transport | undefined
  closed: boolean
  pending: PendingRequests
  /** The endpoint's options; unset limits fall back to `defaults.protocol`. */
  options: EndpointOptions
  sendCancelled(requestId: RequestId, reason: string, relatedRequestId: RequestId | undefined): Promise<void>
}

/**
 * One outgoing request, start to end: the capability and backlog checks, a fresh id, the
 * progress token, the timeout and the abort signal (both tell the peer with
 * notifications/cancelled), and the pending entry that the response settles.
 */
export function sendRequest(deps: OutgoingDeps, method: string, params: JsonRpcParams | undefined, options: RequestOptions): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    const transport = deps.transport
    if (transport === undefined || deps.closed) {
      reject(new LocalError('not_connected', `cannot send ${method}: not connected`))
      return
    }
    try {
      deps.options.assertCanRequest?.(method)
    } catch (error) {
      reject(error)
      return
    }
    if (deps.pending.size >= (deps.options.maxPendingRequests ?? defaults.protocol.maxPendingRequests)) {
      reject(new LocalError('too_many_pending_requests', `cannot send ${method}: ${deps.pending.size} requests are already waiting`))
      return
    }
    const { signal } = options
    if (signal?.aborted) {
      reject(new LocalError('request_cancelled', `${method} was cancelled before it was sent`, { cause: signal.reason }))
      return
    }

    const id = deps.pending.nextId()
    let sendParams = params
    if (options.onprogress !== undefined) {
      sendParams = { ...params, _meta: { ...(params?._meta as object | undefined), progressToken: id } }
    }
    const message: JsonRpcRequest = { jsonrpc: JSONRPC_VERSION, id, method }
    if (sendParams !== undefined) message.params = sendParams

    const abandon = (error: Error, reason: string) => {
      if (deps.pending.take(id) === undefined) return
      // initialize cannot be cancelled (MCP lifecycle); everything else tells the peer
      if (method !== 'initialize') void deps.sendCancelled(id, reason, options.relatedRequestId)
      reject(error)
    }

    const entry: Parameters<PendingRequests['add']>[1] = {
      method,
      resolve: (response) => {
        if ('error' in response) reject(JsonRpcError.fromObject(response.error))
        else resolve(response.result)
      },
      reject,
      timer: new RequestTimer(
        {
          timeoutMs: options.timeoutMs ?? deps.options.requestTimeoutMs ?? defaults.protocol.requestTimeoutMs,
          maxTotalTimeoutMs: options.maxTotalTimeoutMs ?? deps.options.maxTotalTimeoutMs ?? defaults.protocol.maxTotalTimeoutMs,
          resetOnProgress: options.resetTimeoutOnProgress ?? deps.options.resetTimeoutOnProgress ?? defaults.protocol.resetTimeoutOnProgress,
        },
        (reason) => abandon(new LocalError('request_timeout', `${method} timed out: ${reason}`), `timed out: ${reason}`),
      ),
    }
    if (options.onprogress !== undefined) entry.onprogress = options.onprogress
    if (signal !== undefined) {
      const onAbort = () => {
        const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted')
        abandon(new LocalError('request_cancelled', `${method} was cancelled: ${reason}`, { cause: signal.reason }), reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      entry.detach = () => signal.removeEventListener('abort', onAbort)
    }
    deps.pending.add(id, entry)

    const sendOptions: SendOptions = {}
    if (options.relatedRequestId !== undefined) sendOptions.relatedRequestId = options.relatedRequestId
    if (options.headers !== undefined) sendOptions.headers = options.headers
    let sending: Promise<void>
    try {
      sending = transport.send(message, sendOptions)
    } catch (error) {
      // a transport that throws instead of rejecting must not leave the entry pending
      sending = Promise.reject(error)
    }
    sending.catch((error: unknown) => {
      if (deps.pending.take(id) !== undefined) reject(error)
    })
  })
}
