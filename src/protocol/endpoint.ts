import {
  ErrorCode,
  JSONRPC_VERSION,
  JsonRpcError,
  classifyMessage,
  errorResponse,
  salvageId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc/index.js'
import type { CancelledParams, ProgressParams } from '../schema/features.js'
import { InFlightRequests } from './cancellation.js'
import { PendingRequests } from './correlation.js'
import { LocalError } from './errors.js'
import type { EndpointOptions, NotificationHandler, RequestHandler } from './endpoint-options.js'
import { receiveBatch } from './batch.js'
import { InboundRequestContext } from './inbound-context.js'
import { sendRequest } from './outgoing-request.js'
import { deliverProgress } from './progress.js'
import type { RequestOptions } from './request-options.js'
import type { MessageExtra, SendOptions, Transport, TransportSink } from './transport.js'

// declared in endpoint-options.ts, which outgoing-request.ts also reads (no import circle)
export type { EndpointOptions, NotificationHandler, RequestHandler }

type Result = Record<string, unknown>
/** Where an inbound request's response goes: straight to the transport, or into a batch. */
type Reply = (response: JsonRpcResponse) => void

const NO_OPTIONS: EndpointOptions = {}

/** The request handlers every endpoint starts with, shared until one sets or removes its own. */
const BUILT_IN_REQUESTS: ReadonlyMap<string, RequestHandler> = new Map([['ping', () => ({})]])

/**
 * One side of a JSON-RPC connection: dispatches inbound requests and notifications to handlers
 * and correlates outgoing requests with their responses. McpServer and McpClient sit on top; the
 * concerns it coordinates (ids, timeouts, cancellation, progress) each live in their own module.
 */
export class Endpoint {
  readonly #options: EndpointOptions
  // Made when an endpoint registers its own handlers: until then the built-ins are shared, so a
  // server's idle sessions (thousands of them) hold no handler tables or closures of their own
  #requestHandlers: Map<string, RequestHandler> | undefined
  #notificationHandlers: Map<string, NotificationHandler> | undefined
  readonly #pending = new PendingRequests()
  readonly #inFlight = new InFlightRequests()
  #transport: Transport | undefined
  #closed = false

  onclose?: () => void
  onerror?: (error: Error) => void
  /** Receives notifications no handler is registered for (otherwise they are ignored). */
  fallbackNotificationHandler?: (method: string, params: JsonRpcParams, extra: MessageExtra | undefined) => void

  constructor(options: EndpointOptions = NO_OPTIONS) {
    // kept, not copied: sessions of one server share one object, or hold one of their own
    this.#options = options
  }

  /**
   * Hands a transport's events to its endpoint (transports with `attach`): one small object per
   * connection instead of three closures.
   */
  static readonly #Sink = class implements TransportSink {
    readonly #endpoint: Endpoint
    constructor(endpoint: Endpoint) {
      this.#endpoint = endpoint
    }
    receive(payload: unknown, extra?: MessageExtra): void {
      this.#endpoint.receive(payload, extra)
    }
    error(error: Error): void {
      this.#endpoint.#reportError(error)
    }
    closed(): void {
      this.#endpoint.#onTransportClosed()
    }
  }

  /** Built-in notification handlers, run with the endpoint as `this` unless it registers its own. */
  static readonly #builtInNotifications: Readonly<Record<string, (this: Endpoint, params: JsonRpcParams) => void>> = {
    'notifications/cancelled'(params) {
      const { requestId, reason } = params as CancelledParams
      if (requestId !== undefined) this.#inFlight.cancel(requestId, reason)
    },
    'notifications/progress'(params) {
      this.#onProgress(params as unknown as ProgressParams)
    },
  }

  get transport(): Transport | undefined {
    return this.#transport
  }

  /** Attach to a transport and start it. One endpoint, one transport. */
  async connect(transport: Transport): Promise<void> {
    if (this.#transport !== undefined) throw new LocalError('invalid_state', 'this endpoint is already connected')
    this.#transport = transport
    if (transport.attach !== undefined) {
      transport.attach(new Endpoint.#Sink(this))
    } else {
      transport.onmessage = (payload, extra) => this.receive(payload, extra)
      transport.onerror = (error) => this.#reportError(error)
      transport.onclose = () => this.#onTransportClosed()
    }
    await transport.start()
  }

  async close(): Promise<void> {
    try {
      await this.#transport?.close()
    } finally {
      // transports call onclose themselves; make sure the state is final either way, even when
      // the transport fails to close
      this.#onTransportClosed()
    }
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.#ownRequestHandlers().set(method, handler)
  }

  removeRequestHandler(method: string): void {
    this.#ownRequestHandlers().delete(method)
  }

  hasRequestHandler(method: string): boolean {
    return (this.#requestHandlers ?? BUILT_IN_REQUESTS).has(method) || this.#options.resolveRequestHandler?.(method) !== undefined
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    ;(this.#notificationHandlers ??= new Map()).set(method, handler)
  }

  #ownRequestHandlers(): Map<string, RequestHandler> {
    return (this.#requestHandlers ??= new Map(BUILT_IN_REQUESTS))
  }

  /** Send a request and wait for its result. Rejects with the peer's JsonRpcError or a LocalError. */
  request(method: string, params?: JsonRpcParams, options: RequestOptions = {}): Promise<Result> {
    return sendRequest(
      {
        transport: this.#transport,
        closed: this.#closed,
        pending: this.#pending,
        options: this.#options,
        sendCancelled: (id, reason, related) => this.#sendCancelled(id, reason, related),
      },
      method,
      params,
      options,
    )
  }

  /** Send a notification. */
  async notify(method: string, params?: JsonRpcParams, options: SendOptions = {}): Promise<void> {
    const transport = this.#transport
    if (transport === undefined || this.#closed) throw new LocalError('not_connected', `cannot send ${method}: not connected`)
    this.#options.assertCanNotify?.(method)
    const message: JsonRpcNotification = { jsonrpc: JSONRPC_VERSION, method }
    if (params !== undefined) message.params = params
    await transport.send(message, options)
  }

  /**
   * Handle one decoded payload from the transport: a message or a batch. Public so transports
   * that do their own routing (HTTP) can feed it; anything invalid is answered, never thrown.
   */
  receive(payload: unknown, extra?: MessageExtra): void {
    if (Array.isArray(payload)) {
      this.#receiveBatch(payload, extra)
      return
    }
    this.#receiveOne(payload, extra, (response) => this.#send(response, response.id ?? undefined))
  }

  /**
   * Messages a transport already checked as JSON-RPC (the HTTP transports classify a body once,
   * with its batch rules, before routing it): dispatched without checking them again.
   */
  receiveMessages(messages: readonly JsonRpcMessage[], batch: boolean, extra?: MessageExtra): void {
    if (!batch) {
      const message = messages[0]
      if (message !== undefined)
        this.#dispatch(
          message,
          extra,
          (response) => this.#send(response, response.id ?? undefined),
          () => {},
        )
      return
    }
    receiveBatch([...messages], {
      accepted: true,
      receiveOne: (item, reply, finished) => this.#dispatch(item as JsonRpcMessage, extra, reply, finished),
      refuse: (message) => this.#send(errorResponse(null, new JsonRpcError(ErrorCode.InvalidRequest, message))),
      sendAll: (responses) => void this.#sendPayload(responses, undefined),
    })
  }

  #receiveBatch(items: unknown[], extra: MessageExtra | undefined): void {
    receiveBatch(items, {
      accepted: this.#options.acceptsBatch?.() ?? false,
      receiveOne: (item, reply, finished) => this.#receiveOne(item, extra, reply, finished),
      refuse: (message) => this.#send(errorResponse(null, new JsonRpcError(ErrorCode.InvalidRequest, message))),
      sendAll: (responses) => void this.#sendPayload(responses, undefined),
    })
  }

  /**
   * `reply` sends the response of a request; `finished` is called once when the item needs no
   * (further) response, so a batch knows when it is complete.
   */
  #receiveOne(value: unknown, extra: MessageExtra | undefined, reply: Reply, finished: () => void = () => {}): void {
    let classified
    try {
      classified = classifyMessage(value)
    } catch (error) {
      const rpcError = JsonRpcError.from(error)
      const id = salvageId((rpcError.data as { id?: unknown } | undefined)?.id)
      this.#reportError(new Error(`invalid message received: ${rpcError.message}`))
      this.#rejectMalformedResponse(value, rpcError)
      // Responses are never answered (JSON-RPC 2.0 §5), not even malformed ones (an error with
      // id null, say): two peers answering each other's errors would never stop.
      if (looksLikeResponse(value)) {
        finished()
        return
      }
      reply(errorResponse(id, new JsonRpcError(rpcError.code, rpcError.message)))
      return
    }
    this.#dispatch(classified.message, extra, reply, finished)
  }

  /** A message already checked as JSON-RPC, to its request, notification or response path. */
  #dispatch(message: JsonRpcMessage, extra: MessageExtra | undefined, reply: Reply, finished: () => void): void {
    if ('method' in message) {
      if ('id' in message) return this.#handleRequest(message, extra, reply, finished)
      this.#handleNotification(message, extra)
    } else {
      this.#handleResponse(message)
    }
    finished()
  }

  #handleRequest(request: JsonRpcRequest, extra: MessageExtra | undefined, reply: Reply, finished: () => void): void {
    const { id, method } = request
    const params = request.params ?? {}
    const routed = this.#options.routeRequest?.(request)
    const handler = routed ?? (this.#requestHandlers ?? BUILT_IN_REQUESTS).get(method) ?? this.#options.resolveRequestHandler?.(method)
    if (handler === undefined) {
      reply(errorResponse(id, new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`)))
      return
    }
    if (this.#inFlight.has(id)) {
      reply(errorResponse(id, new JsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: request id ${JSON.stringify(id)} is already in use`)))
      return
    }
    if (routed === undefined) {
      try {
        this.#options.beforeRequest?.(request)
      } catch (error) {
        reply(errorResponse(id, JsonRpcError.from(error)))
        return
      }
    }

    // initialize cannot be cancelled (MCP lifecycle): notifications/cancelled for it is ignored
    const entry = this.#inFlight.begin(id, { cancellable: method !== 'initialize' })
    // the context sends through this endpoint's own notify and request (ContextIo)
    const context = new InboundRequestContext(this, entry, request, extra, this.#transport?.sessionId)

    let outcome: Promise<unknown>
    try {
      outcome = Promise.resolve(handler(params, context))
    } catch (error) {
      outcome = Promise.reject(error)
    }
    outcome.then(
      (result) => {
        this.#inFlight.end(id, entry)
        // a cancelled request gets no response (MCP cancellation)
        if (entry.aborted) return finished()
        if (result !== undefined && result !== null && (typeof result !== 'object' || Array.isArray(result))) {
          // a non-object result would make the peer refuse the response and wait for its timeout
          reply(errorResponse(id, new JsonRpcError(ErrorCode.InternalError, `Internal error: the ${method} handler returned a result that is not an object`)))
          return
        }
        reply({ jsonrpc: JSONRPC_VERSION, id, result: (result ?? {}) as Result })
      },
      (error: unknown) => {
        this.#inFlight.end(id, entry)
        if (entry.aborted) return finished()
        reply(errorResponse(id, JsonRpcError.from(error)))
      },
    )
  }

  #handleNotification(notification: JsonRpcNotification, extra: MessageExtra | undefined): void {
    const { method } = notification
    const registered = this.#notificationHandlers?.get(method)
    const builtIn = registered === undefined && Object.hasOwn(Endpoint.#builtInNotifications, method) ? Endpoint.#builtInNotifications[method] : undefined
    const fallback = this.fallbackNotificationHandler
    const options = this.#options
    // unknown notifications are ignored unless a fallback wants them
    if (registered === undefined && builtIn === undefined && fallback === undefined && options.unhandledNotification === undefined) return
    const handler: NotificationHandler =
      registered ??
      (builtIn === undefined
        ? fallback === undefined
          ? (params, extra) => options.unhandledNotification?.(method, params, extra)
          : (params, extra) => fallback(method, params, extra)
        : (params) => builtIn.call(this, params))
    try {
      const result = handler(notification.params ?? {}, extra)
      if (result instanceof Promise) result.catch((error: unknown) => this.#reportError(asError(error)))
    } catch (error) {
      this.#reportError(asError(error))
    }
  }

  #handleResponse(response: JsonRpcResponse): void {
    const id = response.id
    const entry = id === null ? undefined : this.#pending.take(id)
    if (entry === undefined) {
      if ('error' in response && id === null) {
        this.#reportError(new Error(`the peer reported an error: ${response.error.message}`))
      } else {
        this.#reportError(new Error(`received a response for unknown request id ${JSON.stringify(id)}`))
      }
      return
    }
    entry.resolve(response)
  }

  /**
   * A response we cannot read that answers one of our pending requests settles it at once, so the
   * caller does not wait for its timeout. Its id is not salvaged into our reply: it is our id.
   */
  #rejectMalformedResponse(value: unknown, rpcError: JsonRpcError): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return
    const record = value as Record<string, unknown>
    if ('method' in record || !('result' in record || 'error' in record)) return
    const id = salvageId(record.id)
    const entry = id === null ? undefined : this.#pending.take(id)
    entry?.reject(new LocalError('invalid_response', `the peer answered ${entry.method} with a malformed response: ${rpcError.message}`, { cause: rpcError }))
  }

  #onProgress(params: ProgressParams): void {
    const problem = deliverProgress(this.#pending, params)
    if (problem !== undefined) this.#reportError(problem)
  }

  async #sendCancelled(requestId: RequestId, reason: string, relatedRequestId: RequestId | undefined): Promise<void> {
    try {
      await this.notify('notifications/cancelled', { requestId, reason }, relatedRequestId === undefined ? {} : { relatedRequestId })
    } catch {
      // the connection may already be gone; nothing more to tell
    }
  }

  #send(message: JsonRpcMessage, relatedRequestId?: RequestId): void {
    void this.#sendPayload(message, relatedRequestId)
  }

  async #sendPayload(payload: JsonRpcMessage | JsonRpcMessage[], relatedRequestId: RequestId | undefined): Promise<void> {
    if (this.#transport === undefined || this.#closed) return
    try {
      await this.#transport.send(payload, relatedRequestId === undefined ? {} : { relatedRequestId })
    } catch (error) {
      this.#reportError(asError(error))
    }
  }

  #onTransportClosed(): void {
    if (this.#closed) return
    this.#closed = true
    this.#pending.rejectAll(() => new LocalError('connection_closed', 'the connection closed before a response arrived'))
    this.#inFlight.abortAll('the connection closed')
    this.#options.closed?.()
    this.onclose?.()
  }

  #reportError(error: Error): void {
    this.#options.failed?.(error)
    this.onerror?.(error)
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

function looksLikeResponse(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return !('method' in value) && ('result' in value || 'error' in value)
}
