import { ErrorCode, JsonRpcError, errorResponse, type JsonRpcMessage, type JsonRpcParams, type RequestId } from '../jsonrpc/index.js'
import { defaults } from '../config/defaults.js'
import type { Transport } from '../protocol/transport.js'
import { duration } from './duration.js'

/** Where the messages of a child for one caller go: a stateful session, or one stateless request. */
export interface ChildRoute {
  /**
   * A message of the child for this caller: a response (its id the caller's own again), a progress
   * notification (its token the caller's), or, on an exclusive link, any request or notification.
   * `relatedRequestId` is the caller's request it belongs to, when one does.
   */
  deliver(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void
}

/** A request of a caller that the child has not answered yet. */
interface Pending {
  route: ChildRoute
  /** The caller's own id, given back on the response. */
  id: RequestId
  /** The caller's progress token, when the request carried one (the child sees the link's id instead). */
  token?: string | number
}

/** Why a child's link ended, as the callers are told. */
export interface ChildEnd {
  /** One sentence: what happened to the process. */
  reason: string
  /** Whether it ended unexpectedly (crash, flood), as opposed to being stopped by the gateway. */
  failed: boolean
}

export interface ChildLinkOptions {
  /**
   * The one caller of this child (a stateful session's own child): the child's requests
   * (sampling, elicitation, roots) and notifications go to it as they are. Without it the link is
   * multiplexed (a stateless principal's child, or `--shared`): what cannot be attributed to one
   * caller is refused or dropped.
   */
  exclusive?: ChildRoute
  /** Told what the gateway refuses or drops, and what the child did wrong (one line each). */
  log: (line: string) => void
  /** How the child ended, in words, once its transport closed (the exit code or signal). */
  describeExit: () => string
}

const NOTIFY_LIST_CHANGED = new Set(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'])

/**
 * The gateway's side of one child's JSON-RPC stream (stdio, or an upstream HTTP session). Every
 * request a caller forwards gets an id of the link's own (a number), so callers that share the
 * child never see each other's ids; progress tokens are rewritten the same way, and a
 * notifications/cancelled names the link's id. Responses and progress go back to the caller whose
 * request they answer, with its own id and token. When the child ends, every request it owed is
 * answered with an error that says what happened.
 */
export class ChildLink {
  readonly #transport: Transport
  readonly #options: ChildLinkOptions
  readonly #pending = new Map<number, Pending>()
  /** Multiplexed: callers told of list changes (the stateful sessions of a shared child). */
  readonly #listeners = new Set<ChildRoute>()
  /** Multiplexed: the callers subscribed to each resource URI (the child is subscribed once). */
  readonly #subscribers = new Map<string, Set<ChildRoute>>()
  #nextId = 1
  #noise = 0
  #droppedLogs = false
  #end: ChildEnd | undefined
  /** Called once when the child's stream ends (exit, crash, stop). */
  onended?: ((end: ChildEnd) => void) | undefined
  #resolveEnded: ((end: ChildEnd) => void) | undefined
  readonly #endedOnce = new Promise<ChildEnd>((resolve) => {
    this.#resolveEnded = resolve
  })

  constructor(transport: Transport, options: ChildLinkOptions) {
    this.#transport = transport
    this.#options = options
    transport.onmessage = (payload) => this.#receive(payload)
    transport.onerror = (error) => this.#onError(error)
    transport.onclose = () => this.#ended({ reason: options.describeExit(), failed: true })
  }

  /** Why the child ended, once it has. */
  get end(): ChildEnd | undefined {
    return this.#end
  }

  /** Settles when the child's stream ends, for observers beside the one `onended` (the admin list). */
  get ended(): Promise<ChildEnd> {
    return this.#endedOnce
  }

  /** Requests the child has not answered yet. */
  get inFlight(): number {
    return this.#pending.size
  }

  start(): Promise<void> {
    return this.#transport.start()
  }

  /**
   * Stop the child (stdin closed, then SIGTERM, then SIGKILL); what it owed is answered with
   * `reason`. `failed`: the gateway stops it for misbehaving (counts towards the restart back-off).
   */
  async stop(reason: string, failed = false): Promise<void> {
    if (this.#end === undefined) this.#ended({ reason, failed })
    await this.#transport.close()
  }

  /** Tell `route` of the child's list changes (a multiplexed link's stateful sessions). */
  listen(route: ChildRoute): void {
    this.#listeners.add(route)
  }

  /** Forget `route`: its requests are no longer answered, its subscriptions end. */
  detach(route: ChildRoute): void {
    this.#listeners.delete(route)
    for (const [uri, routes] of this.#subscribers) {
      if (routes.delete(route) && routes.size === 0) {
        this.#subscribers.delete(uri)
        this.#sendOwn('resources/unsubscribe', { uri })
      }
    }
    for (const [id, pending] of this.#pending) if (pending.route === route) this.#pending.delete(id)
  }

  /**
   * Forward a caller's message: a request (answered through `route`), a notification (a
   * notifications/cancelled is re-addressed to the link's id), or, on an exclusive link, the
   * caller's answer to one of the child's requests.
   */
  forward(message: JsonRpcMessage, route: ChildRoute): void {
    if (this.#end !== undefined) {
      if ('method' in message && 'id' in message) route.deliver(this.#endedError(message.id), message.id)
      return
    }
    if (!('method' in message)) {
      // the caller's answer to a request of the child: only an exclusive link lets them through
      if (this.#options.exclusive !== undefined) this.#send(message)
      return
    }
    if (!('id' in message)) {
      this.#notify(message.method, message.params, route)
      return
    }
    if (this.#options.exclusive === undefined) {
      const local = this.#subscription(message.method, message.params, route)
      if (local) {
        route.deliver({ jsonrpc: '2.0', id: message.id, result: {} }, message.id)
        return
      }
    }
    const id = this.#nextId++
    const pending: Pending = { route, id: message.id }
    let params = message.params
    const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken
    if (typeof token === 'string' || typeof token === 'number') {
      pending.token = token
      params = { ...params, _meta: { ...(params!._meta as object), progressToken: id } }
    }
    this.#pending.set(id, pending)
    this.#send(params === undefined ? { jsonrpc: '2.0', id, method: message.method } : { jsonrpc: '2.0', id, method: message.method, params })
  }

  /** A request of the gateway's own (initialize), answered as a promise of its result. */
  request(method: string, params: JsonRpcParams, timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id)
        reject(new JsonRpcError(ErrorCode.RequestTimeout, `the MCP server did not answer ${method} within ${duration(timeoutMs)}`))
      }, timeoutMs)
      const route: ChildRoute = {
        deliver: (message) => {
          if (!('id' in message) || 'method' in message) return
          clearTimeout(timer)
          if ('error' in message) reject(new JsonRpcError(message.error.code, message.error.message, message.error.data))
          else resolve(message.result as Record<string, unknown>)
        },
      }
      const id = this.#nextId++
      if (this.#end !== undefined) {
        clearTimeout(timer)
        reject(new JsonRpcError(ErrorCode.InternalError, this.#end.reason))
        return
      }
      this.#pending.set(id, { route, id })
      this.#send({ jsonrpc: '2.0', id, method, params })
    })
  }

  /** A notification of the gateway's own (notifications/initialized). */
  notify(method: string, params?: JsonRpcParams): void {
    if (this.#end === undefined) this.#send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params })
  }

  #notify(method: string, params: JsonRpcParams | undefined, route: ChildRoute): void {
    if (method === 'notifications/cancelled') {
      const requestId = params?.requestId
      for (const [id, pending] of this.#pending) {
        if (pending.route !== route || pending.id !== requestId) continue
        // the caller gets no answer now (MCP cancellation); the child is told with its own id
        this.#pending.delete(id)
        this.#send({ jsonrpc: '2.0', method, params: { ...params, requestId: id } })
        return
      }
      return
    }
    if (this.#options.exclusive !== undefined || method === 'notifications/progress') {
      // what the one caller says goes as it is, and so does any caller's progress on a request of the child
      this.#send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params })
      return
    }
    // the gateway initialized a multiplexed child itself
    if (method === 'notifications/initialized') return
    // roots/list_changed and the like, from one of several callers: the child cannot tell whose
    this.#options.log(`gateway: dropped ${method} from a caller of a shared child (not attributable to one caller)`)
  }

  /**
   * A multiplexed child is subscribed to a resource once for all its callers: a caller's
   * subscribe or unsubscribe that does not change that is answered here (true).
   */
  #subscription(method: string, params: JsonRpcParams | undefined, route: ChildRoute): boolean {
    if (method !== 'resources/subscribe' && method !== 'resources/unsubscribe') return false
    const uri = params?.uri
    if (typeof uri !== 'string') return false
    let routes = this.#subscribers.get(uri)
    if (method === 'resources/subscribe') {
      const first = routes === undefined
      if (routes === undefined) this.#subscribers.set(uri, (routes = new Set()))
      routes.add(route)
      return !first
    }
    if (routes === undefined || !routes.delete(route)) return true
    if (routes.size > 0) return true
    this.#subscribers.delete(uri)
    return false
  }

  #sendOwn(method: string, params: JsonRpcParams): void {
    if (this.#end !== undefined) return
    const id = this.#nextId++
    this.#pending.set(id, { route: { deliver: () => {} }, id })
    this.#send({ jsonrpc: '2.0', id, method, params })
  }

  #send(message: JsonRpcMessage): void {
    this.#transport.send(message).catch((error: unknown) => this.#onError(error instanceof Error ? error : new Error(String(error))))
  }

  #receive(payload: unknown): void {
    if (Array.isArray(payload)) {
      for (const item of payload) this.#receiveOne(item)
      return
    }
    this.#receiveOne(payload)
  }

  #receiveOne(value: unknown): void {
    if (typeof value !== 'object' || value === null) return this.#noisy('a JSON value that is not a JSON-RPC message')
    const message = value as Record<string, unknown>
    const id = message.id
    const method = message.method
    if (typeof method !== 'string') {
      if (typeof id !== 'number' || !('result' in message || 'error' in message)) return this.#noisy('a JSON value that is not a JSON-RPC message')
      const pending = this.#pending.get(id)
      if (pending === undefined) return
      this.#pending.delete(id)
      message.id = pending.id
      pending.route.deliver(message as JsonRpcMessage, pending.id)
      return
    }
    if (id !== undefined) return this.#childRequest(message as JsonRpcMessage & { id: RequestId; method: string })
    this.#childNotification(method, message as JsonRpcMessage)
  }

  /** The child asks its client something (sampling, elicitation, roots, ping). */
  #childRequest(message: JsonRpcMessage & { id: RequestId; method: string }): void {
    const exclusive = this.#options.exclusive
    if (exclusive !== undefined) {
      // over stdio a request names no request of the caller's; with one in flight it belongs there
      exclusive.deliver(message, this.#onlyPendingId())
      return
    }
    if (message.method === 'ping') {
      this.#send({ jsonrpc: '2.0', id: message.id, result: {} })
      return
    }
    this.#options.log(`gateway: refused ${message.method} from a child that serves several callers (not attributable to one caller over stdio)`)
    this.#send(
      errorResponse(
        message.id,
        new JsonRpcError(
          ErrorCode.MethodNotFound,
          `${message.method} is not available: this server runs behind the mcp-auth gateway for several callers at once, and a request over stdio cannot be attributed to one of them`,
        ),
      ),
    )
  }

  #childNotification(method: string, message: JsonRpcMessage): void {
    const params = (message as { params?: JsonRpcParams }).params
    if (method === 'notifications/progress') {
      const pending = typeof params?.progressToken === 'number' ? this.#pending.get(params.progressToken) : undefined
      if (pending?.token === undefined) return
      params!.progressToken = pending.token
      pending.route.deliver(message, pending.id)
      return
    }
    const exclusive = this.#options.exclusive
    if (exclusive !== undefined) {
      exclusive.deliver(message, undefined)
      return
    }
    if (NOTIFY_LIST_CHANGED.has(method)) {
      for (const route of this.#listeners) route.deliver(message, undefined)
      return
    }
    if (method === 'notifications/resources/updated') {
      const uri = params?.uri
      for (const route of (typeof uri === 'string' ? this.#subscribers.get(uri) : undefined) ?? []) route.deliver(message, undefined)
      return
    }
    if (method === 'notifications/message' && !this.#droppedLogs) {
      this.#droppedLogs = true
      this.#options.log('gateway: dropped the log notifications of a child that serves several callers (not attributable to one caller; further ones are dropped silently)')
    }
  }

  #onlyPendingId(): RequestId | undefined {
    if (this.#pending.size !== 1) return undefined
    for (const pending of this.#pending.values()) return pending.id
    return undefined
  }

  #onError(error: Error): void {
    const code = (error as { code?: unknown }).code
    if (code === 'line_too_long') {
      // a child that floods its stdout without a newline is stopped: its answers cannot be read
      void this.stop(`the MCP server wrote a line longer than the gateway reads (${error.message}); it was stopped`, true).catch(() => {})
      return
    }
    if (code === 'not_connected') return
    this.#noisy(error.message)
  }

  #noisy(what: string): void {
    this.#noise++
    const max = defaults.gateway.maxLoggedNoise
    if (this.#noise <= max) this.#options.log(`gateway: the MCP server wrote something that is not JSON-RPC on stdout (${what}); ignored`)
    else if (this.#noise === max + 1) this.#options.log('gateway: the MCP server keeps writing what is not JSON-RPC on stdout; further lines are ignored without a log line')
  }

  #endedError(id: RequestId): JsonRpcMessage {
    return errorResponse(id, new JsonRpcError(ErrorCode.InternalError, `Internal error: ${this.#end?.reason ?? 'the MCP server is not running'}`))
  }

  #ended(end: ChildEnd): void {
    if (this.#end !== undefined) return
    this.#end = end
    const owed = [...this.#pending.values()]
    this.#pending.clear()
    for (const pending of owed) pending.route.deliver(this.#endedError(pending.id), pending.id)
    this.#resolveEnded?.(end)
    this.onended?.(end)
  }
}
