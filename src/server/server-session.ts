import { ErrorCode, JsonRpcError, type JsonRpcMessage, type JsonRpcParams, type JsonRpcRequest } from '../jsonrpc/index.js'
import { Endpoint, type EndpointOptions, type RequestHandler } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import { ServerLifecycle, negotiateProtocolVersion } from '../protocol/lifecycle.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type { SendOptions, Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation, InitializeResult, ServerCapabilities } from '../schema/capabilities.js'
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, LoggingLevel } from '../schema/features.js'
import { clientSupports, serverMayNotify } from '../schema/methods.js'
import { allowsBatch } from '../schema/versions.js'
import { createServerContext, type ServerContext } from './context.js'
import { isAtLeast, isLoggingLevel } from './logging.js'
import type { ServerCore } from './server-core.js'
import { featureMethod } from './feature-methods.js'
import { traceMcpRequest } from '../observe/tracing.js'
import { metaProtocolVersion } from '../schema/meta-protocol-version.js'
import type { HostedSession, SessionHost } from '../session-host/session-host.js'
import type { SharedSessionState } from '../sessions/shared-session-state.js'
import { readRequestMeta } from '../session-host/read-request-meta.js'
import { RequestContextIo } from './sessionless/request-context-io.js'

/** What serves 2026-07-28 requests arriving on a session (the McpServer): handed in, so this file does not import the serving. */
type SessionlessHost = Pick<SessionHost, 'checkStateless' | 'serveStateless'>
import { optionalObject, requireString } from './params.js'

type SessionHandler = (session: ServerSession, params: JsonRpcParams, context: ServerContext) => unknown

/**
 * One connection between an McpServer and a client: the negotiated version, what the client
 * declared, its log level and subscriptions. Server → client requests (sampling, elicitation,
 * roots) go through here; the server's tools, resources and prompts are shared by all sessions.
 */
export class ServerSession implements HostedSession {
  readonly #core: ServerCore<ServerSession>
  /** Serves 2026-07-28 requests that arrive on this connection without an initialize. */
  readonly #sessionless: SessionlessHost | undefined
  readonly #endpoint: Endpoint
  readonly #lifecycle: ServerLifecycle
  /** Made on the first resources/subscribe: most sessions never subscribe. */
  #subscriptions: Set<string> | undefined
  #protocolVersion: string | undefined
  #clientCapabilities: ClientCapabilities | undefined
  #clientInfo: Implementation | undefined
  #logLevel: LoggingLevel | undefined
  /** What the server declared when this session began: decides which methods it answers. */
  readonly #capabilities: ServerCapabilities

  /** Called once the client sent notifications/initialized. */
  oninitialized?: () => void
  onclose?: () => void
  onerror?: (error: Error) => void

  constructor(core: ServerCore<ServerSession>, options: { strictLifecycle: boolean; sessionless?: SessionlessHost }) {
    this.#core = core
    this.#sessionless = options.sessionless
    this.#capabilities = core.capabilities()
    this.#lifecycle = new ServerLifecycle({ strict: options.strictLifecycle })
    this.#endpoint = new Endpoint(new ServerSession.#Hooks(this))
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.#clientCapabilities
  }
  get clientInfo(): Implementation | undefined {
    return this.#clientInfo
  }
  get sessionId(): string | undefined {
    return this.#endpoint.transport?.sessionId
  }
  get initialized(): boolean {
    return this.#lifecycle.initialized
  }

  /** The resources this client subscribed to (resources/subscribe). */
  get subscriptions(): string[] {
    return this.#subscriptions === undefined ? [] : [...this.#subscriptions]
  }
  /** The level the client set with logging/setLevel (undefined: every level). */
  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel
  }

  /**
   * Adopt a negotiated state without an initialize on this connection: a stateless HTTP request
   * (version from its MCP-Protocol-Version header), or a session restored from a shared store.
   */
  restore(state: { protocolVersion: string; clientCapabilities?: ClientCapabilities | undefined; clientInfo?: Implementation | undefined } & SharedSessionState): void {
    this.#protocolVersion = state.protocolVersion
    this.#clientCapabilities = state.clientCapabilities ?? {}
    this.#clientInfo = state.clientInfo
    this.#lifecycle.markReady()
    this.#endpoint.transport?.setProtocolVersion?.(state.protocolVersion)
    this.applySharedState(state)
  }

  /**
   * Take what the client changed through another process serving the same session (subscriptions
   * and log level), so notifications sent from here follow it.
   */
  applySharedState(state: SharedSessionState): void {
    this.#subscriptions = state.subscriptions === undefined || state.subscriptions.length === 0 ? undefined : new Set(state.subscriptions)
    this.#logLevel = state.logLevel
  }

  async connect(transport: Transport): Promise<void> {
    await this.#endpoint.connect(transport)
  }

  /** Feed a decoded payload directly (HTTP transports that route per request). */
  receive(payload: unknown, extra?: Parameters<Endpoint['receive']>[1]): void {
    this.#endpoint.receive(payload, extra)
  }

  /** Feed messages the transport already checked as JSON-RPC (see Endpoint.receiveMessages). */
  receiveMessages(messages: readonly JsonRpcMessage[], batch: boolean, extra?: Parameters<Endpoint['receive']>[1]): void {
    this.#endpoint.receiveMessages(messages, batch, extra)
  }

  close(): Promise<void> {
    return this.#endpoint.close()
  }

  isSubscribed(uri: string): boolean {
    return this.#subscriptions?.has(uri) ?? false
  }

  ping(options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.#endpoint.request('ping', undefined, options)
  }

  async createMessage(params: CreateMessageParams, options?: RequestOptions): Promise<CreateMessageResult> {
    const result = await this.#endpoint.request('sampling/createMessage', params, options)
    if (typeof result.model !== 'string' || typeof result.role !== 'string' || typeof result.content !== 'object') {
      throw new LocalError('invalid_response', 'the client answered sampling/createMessage without role, content and model')
    }
    return result as CreateMessageResult
  }

  async elicit(params: ElicitParams, options?: RequestOptions): Promise<ElicitResult> {
    if (params.mode === 'url' && this.#clientCapabilities?.elicitation?.url === undefined) {
      throw new LocalError('capability_not_supported', 'the client does not support URL-mode elicitation')
    }
    const result = await this.#endpoint.request('elicitation/create', params as unknown as JsonRpcParams, options)
    if (result.action !== 'accept' && result.action !== 'decline' && result.action !== 'cancel') {
      throw new LocalError('invalid_response', 'the client answered elicitation/create without a valid action')
    }
    return result as unknown as ElicitResult
  }

  async listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    const result = await this.#endpoint.request('roots/list', undefined, options)
    if (!Array.isArray(result.roots)) throw new LocalError('invalid_response', 'the client answered roots/list without a roots array')
    return result as unknown as ListRootsResult
  }

  /** Send a log message when it passes the level the client set (all levels until it sets one). */
  async log(level: LoggingLevel, data: unknown, logger?: string, options?: SendOptions): Promise<void> {
    if (this.#logLevel !== undefined && !isAtLeast(level, this.#logLevel)) return
    const params: JsonRpcParams = logger === undefined ? { level, data } : { level, logger, data }
    await this.#endpoint.notify('notifications/message', params, options)
  }

  /** Send a notification to this client (list_changed, resources/updated, custom ones). */
  notify(method: string, params?: JsonRpcParams, options?: SendOptions): Promise<void> {
    return this.#endpoint.notify(method, params, options)
  }

  /**
   * The methods that keep state per session, once for all sessions (a session is built per
   * stateless request, so per-session closures would cost on every call). The shared feature
   * methods (tools, resources, prompts, completion) are in feature-methods.ts.
   */
  static readonly #methods: Record<string, { offered: (caps: ServerCapabilities) => boolean; run: SessionHandler }> = {
    initialize: {
      offered: () => true,
      run: (session, params) => session.#initialize(params),
    },
    'resources/subscribe': {
      offered: (caps) => !!caps.resources?.subscribe,
      run: (session, params) => {
        const uri = requireString(params, 'uri')
        if (!session.#core.resources.has(uri)) throw new JsonRpcError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri })
        ;(session.#subscriptions ??= new Set()).add(uri)
        return {}
      },
    },
    'resources/unsubscribe': {
      offered: (caps) => !!caps.resources?.subscribe,
      run: (session, params) => {
        session.#subscriptions?.delete(requireString(params, 'uri'))
        return {}
      },
    },
    'logging/setLevel': {
      offered: (caps) => !!caps.logging,
      run: (session, params) => {
        if (!isLoggingLevel(params.level)) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: unknown logging level ${JSON.stringify(params.level)}`)
        session.#logLevel = params.level
        return {}
      },
    },
  }

  /**
   * The endpoint's options and hooks for one session: one small object whose methods reach the
   * session, instead of a closure per hook (a server holds thousands of idle sessions).
   */
  static readonly #Hooks = class implements EndpointOptions {
    readonly #session: ServerSession
    constructor(session: ServerSession) {
      this.#session = session
    }
    get requestTimeoutMs(): number | undefined {
      return this.#session.#core.endpointOptions.requestTimeoutMs
    }
    get resetTimeoutOnProgress(): boolean | undefined {
      return this.#session.#core.endpointOptions.resetTimeoutOnProgress
    }
    get maxTotalTimeoutMs(): number | undefined {
      return this.#session.#core.endpointOptions.maxTotalTimeoutMs
    }
    get maxPendingRequests(): number | undefined {
      return this.#session.#core.endpointOptions.maxPendingRequests
    }
    resolveRequestHandler(method: string): RequestHandler | undefined {
      return this.#session.#resolve(method)
    }
    acceptsBatch(): boolean {
      return allowsBatch(this.#session.#protocolVersion)
    }
    beforeRequest(request: JsonRpcRequest): void {
      this.#session.#lifecycle.beforeRequest(request)
    }
    routeRequest(request: JsonRpcRequest): RequestHandler | undefined {
      return this.#session.#routeSessionless(request)
    }
    assertCanRequest(method: string): void {
      if (!clientSupports(method, this.#session.#clientCapabilities ?? {})) {
        throw new LocalError('capability_not_supported', `the client does not support ${method}: it did not declare the capability`)
      }
    }
    assertCanNotify(method: string): void {
      if (!serverMayNotify(method, this.#session.#core.capabilities())) {
        throw new LocalError('capability_not_supported', `this server did not declare the capability for ${method}`)
      }
    }
    /** notifications/initialized, the one notification a session handles itself (initialize is in the method table). */
    unhandledNotification(method: string): void {
      if (method !== 'notifications/initialized') return
      this.#session.#lifecycle.markReady()
      this.#session.oninitialized?.()
    }
    closed(): void {
      const session = this.#session
      session.#subscriptions?.clear()
      session.#core.sessionClosed(session)
      session.onclose?.()
    }
    failed(error: Error): void {
      const session = this.#session
      if (session.onerror === undefined) session.#core.reportError(error)
      else session.onerror(error)
    }
  }

  /** The handler of an MCP method this server offers (what it declared when the session began). */
  #resolve(method: string): RequestHandler | undefined {
    const feature = featureMethod(method)
    if (feature !== undefined) {
      if (!feature.offered(this.#capabilities)) return undefined
      // a span per request when an OpenTelemetry SDK is registered (the HTTP request's child)
      return (params, base) => traceMcpRequest(method, params, () => feature.run(this.#core, params, createServerContext(this, base), this.#protocolVersion))
    }
    const entry = Object.hasOwn(ServerSession.#methods, method) ? ServerSession.#methods[method] : undefined
    if (entry === undefined || !entry.offered(this.#capabilities)) return undefined
    return (params, base) => entry.run(this, params, createServerContext(this, base))
  }

  /**
   * A 2026-07-28 request (its `_meta` names a protocol version) on a connection no initialize
   * claimed: served statelessly, so one pipe carries both eras as the revision allows.
   */
  #routeSessionless(request: JsonRpcRequest): RequestHandler | undefined {
    if (this.#sessionless === undefined || this.#protocolVersion !== undefined || metaProtocolVersion(request.params) === undefined) return undefined
    return async (params, context) => {
      const meta = readRequestMeta(params)
      this.#sessionless!.checkStateless(meta, request.method)
      return this.#sessionless!.serveStateless(request, meta, new RequestContextIo(context))
    }
  }

  #initialize(params: JsonRpcParams): InitializeResult {
    const clientInfo = optionalObject(params, 'clientInfo')
    const capabilities = optionalObject(params, 'capabilities')
    if (typeof params.protocolVersion !== 'string' || clientInfo === undefined || typeof clientInfo.name !== 'string' || capabilities === undefined) {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo')
    }
    this.#protocolVersion = negotiateProtocolVersion(params.protocolVersion, this.#core.handshakeProtocolVersions)
    this.#clientCapabilities = capabilities as ClientCapabilities
    this.#clientInfo = clientInfo as unknown as Implementation
    this.#lifecycle.markInitializing()
    this.#endpoint.transport?.setProtocolVersion?.(this.#protocolVersion)
    const result: InitializeResult = {
      protocolVersion: this.#protocolVersion,
      capabilities: this.#core.capabilities(),
      serverInfo: this.#core.serverInfo,
    }
    if (this.#core.instructions !== undefined) result.instructions = this.#core.instructions
    return result
  }
}
