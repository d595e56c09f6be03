import type { JsonRpcParams, JsonRpcRequest, RequestId } from '../jsonrpc/index.js'
import type { ProgressToken } from '../schema/features.js'
import type { InFlightRequest } from './cancellation.js'
import type { AuthInfo, RequestContext } from './context.js'
import { createProgressReporter, readProgressToken } from './progress.js'
import type { RequestOptions } from './request-options.js'
import type { MessageExtra, SendOptions } from './transport.js'

/** What a request context needs from its endpoint to talk to the peer. */
export interface ContextIo {
  notify(method: string, params: JsonRpcParams | undefined, options: SendOptions): Promise<void>
  request(method: string, params: JsonRpcParams | undefined, options: RequestOptions): Promise<Record<string, unknown>>
}

/**
 * The RequestContext of one inbound request. A class with its methods on the prototype, not an
 * object of fresh closures: it is built for every request, on the hot path.
 */
export class InboundRequestContext implements RequestContext {
  readonly requestId: RequestId
  readonly method: string
  readonly sessionId: string | undefined
  readonly authInfo: AuthInfo | undefined
  readonly headers: MessageExtra['headers']
  readonly meta: Record<string, unknown> | undefined
  readonly progressToken: ProgressToken | undefined
  readonly #io: ContextIo
  readonly #entry: InFlightRequest
  #reporter: ReturnType<typeof createProgressReporter> | undefined

  constructor(io: ContextIo, entry: InFlightRequest, request: JsonRpcRequest, extra: MessageExtra | undefined, sessionId: string | undefined) {
    this.#io = io
    this.#entry = entry
    this.requestId = request.id
    this.method = request.method
    this.sessionId = sessionId
    this.authInfo = extra?.authInfo
    this.headers = extra?.headers
    this.meta = request.params?._meta as Record<string, unknown> | undefined
    this.progressToken = readProgressToken(this.meta)
  }

  get signal(): AbortSignal {
    return this.#entry.signal
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    this.#reporter ??= createProgressReporter(this.progressToken, (params) =>
      this.#io.notify('notifications/progress', params as unknown as JsonRpcParams, { relatedRequestId: this.requestId }),
    )
    return this.#reporter(progress, total, message)
  }

  sendNotification(method: string, params?: JsonRpcParams): Promise<void> {
    return this.#io.notify(method, params, { relatedRequestId: this.requestId })
  }

  sendRequest(method: string, params?: JsonRpcParams, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.#io.request(method, params, { ...options, relatedRequestId: this.requestId, signal: options?.signal ?? this.signal })
  }
}
