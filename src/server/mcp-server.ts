import { defaults } from '../config/defaults.js'
import type { CallEndedListener } from './call-observer.js'
import type { JsonRpcParams, JsonRpcRequest } from '../jsonrpc/index.js'
import type { EndpointOptions } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import type { Transport } from '../protocol/transport.js'
import type { Implementation, ServerCapabilities } from '../schema/capabilities.js'
import type { LoggingLevel, Prompt, Resource, ResourceTemplate, Tool } from '../schema/features.js'
import { JsonSchemaValidator } from '../schema/json-schema.js'
import { isStatelessRevision } from '../schema/revisions.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../schema/versions.js'
import { PromptRegistry, type GetPrompt } from './prompt-registry.js'
import { ResourceRegistry, type Completer, type ReadResource, type Removable, type TemplateCallbacks } from './resource-registry.js'
import type { ServerCore } from './server-core.js'
import { ServerSession } from './server-session.js'
import { SERVER_WIDE } from '../session-host/server-wide.js'
import { SHARED_NOTIFICATIONS_CHANNEL, SharedNotifications } from './shared-notifications.js'
import type { MessageBus } from '../sessions/message-bus.js'
import type { RequestMeta, SessionHost, SessionlessIo } from '../session-host/session-host.js'
import { readRequestMeta } from '../session-host/read-request-meta.js'
import { RequestStateSealer } from './sessionless/request-state.js'
import { checkSessionlessRequest, serveSessionlessRequest, type CacheHint, type SessionlessServer } from './sessionless/serve-sessionless-request.js'
import { SubscriptionHub } from './sessionless/subscription-hub.js'
import { ToolRegistry, type RegisteredTool, type ToolDefinition, type ToolHandler } from './tool-registry.js'
import { fromSdkTool, type SdkSchema, type SdkToolConfig, type SdkToolHandler } from './sdk-tool-config.js'

export interface McpServerOptions {
  /** Shown to the client at initialize. */
  instructions?: string
  /** Capabilities to declare beyond those implied by what is registered. */
  capabilities?: ServerCapabilities
  /** Versions to accept, newest first. */
  supportedProtocolVersions?: readonly string[]
  /** Items per page of list results. */
  pageSize?: number
  /**
   * Refuse requests before initialize (the default). Stateless HTTP turns this off: each request
   * may arrive on a fresh session.
   */
  strictLifecycle?: boolean
  requestTimeoutMs?: number
  resetTimeoutOnProgress?: boolean
  maxTotalTimeoutMs?: number
  /**
   * 32 bytes that seal multi-round `requestState` (2026-07-28). Random per process by default:
   * give every process behind one load balancer the same key.
   */
  requestStateKey?: Uint8Array
  /** How long a `requestState` stays valid (ms). */
  requestStateTtlMs?: number
  /** Caching hints (`ttlMs`, `cacheScope`) per method on 2026-07-28 results, over the defaults. */
  cacheHints?: Partial<Record<'server/discover' | 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read', CacheHint>>
}

/**
 * An MCP server: tools, resources, prompts and completions registered once and served to every
 * connected session (stdio, or each HTTP session). Adding or removing a feature at run time
 * tells every initialized client with a list_changed notification.
 *
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' })
 * server.registerTool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
 *   ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }))
 * await server.connect(new StdioServerTransport())
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server
 */
export class McpServer implements SessionHost {
  readonly #core: ServerCore<ServerSession>
  readonly #sessions = new Set<ServerSession>()
  readonly #options: McpServerOptions
  readonly #sessionless: SessionlessServer
  #capabilities: ServerCapabilities | undefined
  /** Set by shareNotifications: the other servers of the deployment. */
  #shared: SharedNotifications | undefined

  onerror?: (error: Error) => void

  constructor(serverInfo: Implementation, options: McpServerOptions = {}) {
    this.#options = options
    const validator = new JsonSchemaValidator()
    const endpointOptions: EndpointOptions = {}
    if (options.requestTimeoutMs !== undefined) endpointOptions.requestTimeoutMs = options.requestTimeoutMs
    if (options.resetTimeoutOnProgress !== undefined) endpointOptions.resetTimeoutOnProgress = options.resetTimeoutOnProgress
    if (options.maxTotalTimeoutMs !== undefined) endpointOptions.maxTotalTimeoutMs = options.maxTotalTimeoutMs
    const supportedProtocolVersions = options.supportedProtocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS
    this.#core = {
      serverInfo,
      instructions: options.instructions,
      supportedProtocolVersions,
      handshakeProtocolVersions: supportedProtocolVersions.filter((v) => !isStatelessRevision(v)),
      pageSize: options.pageSize ?? defaults.server.pageSize,
      maxCompletionValues: defaults.server.maxCompletionValues,
      endpointOptions,
      validator,
      callEnded: [],
      tools: new ToolRegistry(validator, () => this.#listChanged('notifications/tools/list_changed')),
      resources: new ResourceRegistry(() => this.#listChanged('notifications/resources/list_changed')),
      prompts: new PromptRegistry(() => this.#listChanged('notifications/prompts/list_changed')),
      capabilities: () => this.capabilities,
      sessionClosed: (session) => this.#sessions.delete(session),
      reportError: (error) => this.onerror?.(error),
    }
    const d = defaults.server
    this.#sessionless = {
      core: this.#core,
      sealer: new RequestStateSealer({ key: options.requestStateKey, maxBytes: d.maxRequestStateBytes }),
      subscriptions: new SubscriptionHub(),
      requestStateTtlMs: options.requestStateTtlMs ?? d.requestStateTtlMs,
      maxInputRounds: d.maxInputRounds,
      cacheHints: { ...d.cacheHints, ...options.cacheHints } as Record<string, CacheHint>,
    }
  }

  /**
   * Hears of every `tools/call`, `resources/read` and `prompts/get` this server answers, in every
   * session and stateless request: who asked, its outcome (ok, isError, a JSON-RPC error code) and
   * its duration. What the protected app's audit of allowed calls listens to. Costs nothing while
   * nobody listens.
   *
   * @example
   * server.onCallEnded((call) => console.log(call.method, call.target, call.status, call.durationMs))
   */
  onCallEnded(listener: CallEndedListener): void {
    this.#core.callEnded.push(listener)
  }

  /** Open `subscriptions/listen` streams (2026-07-28). */
  get subscriptionCount(): number {
    return this.#sessionless.subscriptions.size
  }

  /**
   * Admit one request of the sessionless revision (2026-07-28): its `_meta` (-32602 when a required
   * member is missing), its revision (-32022) and its method (-32601). Transports call this before
   * serveStateless, and may check their own headers against the returned metadata in between.
   */
  readStatelessMeta(params: JsonRpcParams | undefined): RequestMeta {
    return readRequestMeta(params)
  }

  checkStateless(meta: RequestMeta, method: string): void {
    checkSessionlessRequest(this.#core, meta, method)
  }

  /** Serve one admitted 2026-07-28 request; rejects with a JsonRpcError for the wire. */
  serveStateless(request: JsonRpcRequest, meta: RequestMeta, io: SessionlessIo): Promise<Record<string, unknown>> {
    return serveSessionlessRequest(this.#sessionless, request, meta, io)
  }

  /** What this server declares at initialize: implied by what is registered, plus the options. */
  get capabilities(): ServerCapabilities {
    if (this.#capabilities === undefined) {
      const core = this.#core
      const caps: ServerCapabilities = { logging: {} }
      if (core.tools.size > 0) caps.tools = { listChanged: true }
      if (core.resources.size > 0) caps.resources = { subscribe: true, listChanged: true }
      if (core.prompts.size > 0) caps.prompts = { listChanged: true }
      if (core.prompts.size > 0 || core.resources.size > 0) caps.completions = {}
      this.#capabilities = { ...caps, ...this.#options.capabilities }
    }
    return this.#capabilities
  }

  /** Sessions currently connected. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions
  }

  /** The definition of the tool `name`, as listed (undefined when there is none). */
  getTool(name: string): Tool | undefined {
    return this.#core.tools.get(name)?.tool
  }

  /**
   * Register a tool: ours, `registerTool({ name, inputSchema, ... }, handler)` with JSON Schema,
   * or the official SDK's, `registerTool(name, { title, description, inputSchema, outputSchema,
   * annotations }, handler)` with a zod (or any Standard Schema) object, a raw shape of zod
   * fields, or JSON Schema; as in the SDK, a handler of a tool without inputSchema gets only the context.
   *
   * @example
   * server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) },
   *   async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
   */
  registerTool(definition: ToolDefinition, handler: ToolHandler): RegisteredTool
  registerTool<Input extends SdkSchema | undefined = undefined, Output extends SdkSchema | undefined = undefined>(
    name: string,
    config: SdkToolConfig<Input, Output>,
    handler: SdkToolHandler<Input>,
  ): RegisteredTool
  registerTool(first: ToolDefinition | string, second: ToolHandler | SdkToolConfig, third?: (...args: never[]) => unknown): RegisteredTool {
    if (typeof first !== 'string') return this.#core.tools.register(first, second as ToolHandler)
    if (typeof third !== 'function') throw new TypeError(`registerTool(${JSON.stringify(first)}, config, handler): the handler is missing`)
    const { definition, handler } = fromSdkTool(first, second as SdkToolConfig, third)
    return this.#core.tools.register(definition, handler)
  }

  registerResource(resource: Resource, read: ReadResource): Removable {
    return this.#core.resources.register(resource, read)
  }

  registerResourceTemplate(template: ResourceTemplate, callbacks: TemplateCallbacks): Removable {
    return this.#core.resources.registerTemplate(template, callbacks)
  }

  registerPrompt(prompt: Prompt, get: GetPrompt, complete?: Record<string, Completer>): Removable {
    return this.#core.prompts.register(prompt, get, complete)
  }

  /** A session for one connection, not yet connected (HTTP transports drive it themselves). */
  createSession(options: { strictLifecycle?: boolean } = {}): ServerSession {
    const session = new ServerSession(this.#core, { strictLifecycle: options.strictLifecycle ?? this.#options.strictLifecycle ?? true, sessionless: this })
    // the session tells the core when it closes and reports its errors there (no closures per session)
    this.#sessions.add(session)
    return session
  }

  /** Serve one connection (stdio, in-memory, or a transport that owns a whole session). */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = this.createSession()
    await session.connect(transport)
    return session
  }

  /**
   * Share server-wide notifications (list changes, resource updates) with every server listening
   * on `bus`: the processes of one deployment behind a load balancer, each running this server.
   * What one raises then reaches the sessions and `subscriptions/listen` streams of all, each
   * exactly once: every server sends its copy only on the streams its own process holds (the
   * Streamable HTTP handler, given the same bus, forwards nothing else for them). Resolves once
   * the bus listens; `close` stops it. Delivery is at most once, as Redis pub/sub is.
   *
   * @example
   * const redis = await RedisConnection.connect({ url: process.env.REDIS_URL })
   * const server = createDemoServer()
   * await server.shareNotifications(redis)
   * const mcp = new StreamableHttpHandler(server, { allowedHosts, ...redisMcpOptions(redis) })
   * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification
   */
  async shareNotifications(bus: MessageBus, options: { channel?: string } = {}): Promise<void> {
    if (this.#shared !== undefined) throw new LocalError('invalid_state', 'this server already shares its notifications')
    this.#shared = await SharedNotifications.connect(bus, options.channel ?? SHARED_NOTIFICATIONS_CHANNEL, (method, params) => this.#deliver(method, params))
  }

  /** Tell every client subscribed to `uri` that it changed (notifications/resources/updated). */
  async notifyResourceUpdated(uri: string): Promise<void> {
    const params = { uri }
    await Promise.all([this.#deliver('notifications/resources/updated', params), this.#publish('notifications/resources/updated', params)])
  }

  /** Log to every initialized session, each filtered by its own level. */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    await Promise.all([...this.#sessions].filter((s) => s.initialized).map((s) => s.log(level, data, logger).catch(() => {})))
  }

  async close(): Promise<void> {
    const shared = this.#shared
    this.#shared = undefined
    this.#sessionless.subscriptions.closeAll()
    await Promise.all([...[...this.#sessions].map((s) => s.close()), shared?.close()])
  }

  #listChanged(method: string): void {
    this.#capabilities = undefined
    void this.#deliver(method, undefined)
    void this.#publish(method, undefined)
  }

  /** A server-wide notification to this process's listen streams and sessions (raised here or by another server). */
  #deliver(method: string, params: JsonRpcParams | undefined): Promise<void> {
    // registries may report changes while the constructor still runs
    const hub = this.#sessionless?.subscriptions
    if (method === 'notifications/resources/updated') {
      const uri = String(params?.uri)
      hub?.resourceUpdated(uri)
      return this.#broadcast(method, params, (s) => s.isSubscribed(uri))
    }
    hub?.listChanged(method)
    return this.#broadcast(method, params, () => true)
  }

  async #publish(method: string, params: JsonRpcParams | undefined): Promise<void> {
    try {
      await this.#shared?.publish(method, params)
    } catch (error) {
      // the local sessions have it; the others miss it, as with any message the bus drops
      this.onerror?.(asError(error))
    }
  }

  async #broadcast(method: string, params: JsonRpcParams | undefined, filter: (session: ServerSession) => boolean): Promise<void> {
    const sends = []
    // with a shared bus each process sends its own copy: the transports must not forward it
    const options = this.#shared === undefined ? undefined : SERVER_WIDE
    for (const session of this.#sessions) {
      if (!session.initialized || !filter(session)) continue
      sends.push(session.notify(method, params, options).catch((error: unknown) => this.onerror?.(asError(error))))
    }
    await Promise.all(sends)
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
