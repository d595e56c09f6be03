import { EventEmitter } from 'node:events'
import { defaults } from '../config/defaults.js'
import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { RequestContext } from '../protocol/context.js'
import { Endpoint } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type { Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation, InitializeResult, ServerCapabilities } from '../schema/capabilities.js'
import type {
  CallToolParams,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  Tool,
} from '../schema/features.js'
import { JsonSchemaValidator } from '../schema/json-schema.js'
import { INPUT_REQUIRED_METHODS, isStatelessRevision } from '../schema/revisions.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../schema/versions.js'
import { paramHeaderProblem, paramHeaders } from '../schema/x-mcp-header.js'
import { clientEndpointOptions } from './client-endpoint-options.js'
import { routeServerNotifications, type McpClientEvents } from './client-events.js'
import { ClientHandlers, type ElicitationHandler, type SamplingHandler } from './client-handlers.js'
import type { ConnectOptions, McpClientOptions } from './client-options.js'
import { discoverSession, versionRefusal } from './discover-session.js'
import { initializeSession } from './initialize-session.js'
import { requestWithInputRounds } from './input-rounds.js'
import { ListenStream, type ListenFilter } from './listen-stream.js'
import { withRequestMeta, type RequestEnvelope } from './request-envelope.js'
import { listAllPages } from './list-pages.js'
import type { ListParams, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult } from './list-results.js'
import { optionalObject, readNextCursor, requireArray, requireObject } from './response-shape.js'
import { ToolOutputSchemas } from './tool-output-schemas.js'

type Result = Record<string, unknown>

/** A listen stream stays open as long as the connection: the longest timer node can arm. */
const OPEN_ENDED_MS = 2_147_483_647

/**
 * An MCP client: connects over any Transport, negotiates the protocol version, calls the
 * server's tools, resources and prompts, and answers the server's sampling, elicitation and
 * roots requests. Server notifications arrive as events.
 *
 * It speaks the stateless revision (2026-07-28) first: `server/discover`, then `_meta` and the
 * request headers on every request, input-required rounds answered through the same
 * elicitation, sampling and roots handlers, and a `subscriptions/listen` stream for change
 * notices. A server without it gets `initialize` with the newest handshake-era revision it
 * speaks; `protocolVersion` pins one revision.
 *
 * @example
 * const client = new McpClient({ name: 'my-app', version: '1.0.0' })
 * client.on('logging', ({ level, data }) => console.log(level, data))
 * await client.connect(transport)
 * const { content } = await client.callTool('add', { a: 1, b: 2 })
 * await client.close()
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 */
export class McpClient extends EventEmitter<McpClientEvents> {
  readonly #clientInfo: Implementation
  readonly #options: McpClientOptions
  readonly #handlers = new ClientHandlers()
  readonly #validator = new JsonSchemaValidator()
  readonly #outputSchemas = new ToolOutputSchemas(this.#validator)
  #endpoint: Endpoint | undefined
  #open = false
  #declared: ClientCapabilities | undefined
  #server: InitializeResult | undefined
  /** Set in the stateless era: what every request says about this client. */
  #envelope: RequestEnvelope | undefined
  #listen: ListenStream | undefined
  readonly #subscriptions = new Set<string>()
  /** Input schemas of listed tools, for the `Mcp-Param-*` headers of tools/call. */
  readonly #inputSchemas = new Map<string, object>()

  /** Receives errors nobody else handles, while no 'error' listener is attached. */
  onerror?: (error: Error) => void

  constructor(clientInfo: Implementation, options: McpClientOptions = {}) {
    super()
    this.#clientInfo = clientInfo
    this.#options = options
  }

  /** What the server declared at initialize; undefined before connect. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#server?.capabilities
  }
  get serverInfo(): Implementation | undefined {
    return this.#server?.serverInfo
  }
  /** The negotiated protocol version. */
  get protocolVersion(): string | undefined {
    return this.#server?.protocolVersion
  }
  get instructions(): string | undefined {
    return this.#server?.instructions
  }

  /**
   * Connect and run the initialize handshake. Rejects (and closes the transport) when the server
   * answers a protocol version this client does not support.
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<InitializeResult> {
    if (this.#open) throw new LocalError('invalid_state', 'this client is already connected; close it first')
    const declared = this.#handlers.capabilities(this.#options.capabilities ?? {})
    const endpoint = this.#createEndpoint(declared)
    this.#endpoint = endpoint
    this.#declared = declared
    this.#server = undefined
    this.#envelope = undefined
    this.#listen = undefined
    this.#subscriptions.clear()
    this.#inputSchemas.clear()
    this.#outputSchemas.forget()
    this.#open = true
    try {
      await endpoint.connect(transport)
    } catch (error) {
      this.#open = false
      throw error
    }
    const pinned = this.#options.protocolVersion
    const supported = this.#options.supportedProtocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS
    const stateless = pinned === undefined ? supported.filter((v) => isStatelessRevision(v)) : isStatelessRevision(pinned) ? [pinned] : []
    const handshake = supported.filter((v) => !isStatelessRevision(v))
    if (stateless.length > 0) {
      let discovered: InitializeResult | undefined
      try {
        discovered = await discoverSession(endpoint, transport, {
          clientInfo: this.#clientInfo,
          capabilities: declared,
          versions: stateless,
          pinned: pinned !== undefined || handshake.length === 0,
          signal: options.signal,
        })
      } catch (error) {
        await endpoint.close().catch(() => undefined)
        throw error
      }
      if (discovered !== undefined) {
        this.#server = discovered
        this.#envelope = { protocolVersion: discovered.protocolVersion, capabilities: declared, clientInfo: this.#clientInfo }
        this.#startListening(endpoint)
        return discovered
      }
    }
    const result = await initializeSession(endpoint, transport, {
      clientInfo: this.#clientInfo,
      capabilities: declared,
      protocolVersion: pinned ?? handshake[0]!,
      supportedProtocolVersions: handshake,
      signal: options.signal,
    })
    this.#server = result
    return result
  }

  /** Close the connection; pending requests reject with LocalError('connection_closed'). */
  async close(): Promise<void> {
    this.#listen?.close()
    await this.#endpoint?.close()
  }

  /** A round trip to the server: `ping`, or in 2026-07-28 (which has no ping) `server/discover`. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.#request(this.#envelope === undefined ? 'ping' : 'server/discover', undefined, options)
  }

  /** One page of tools/list. Remembers output schemas so callTool can check results. */
  async listTools(params?: ListParams, options?: RequestOptions): Promise<ListToolsResult> {
    const result = (await this.#listPage('tools/list', 'tools', params, options)) as unknown as ListToolsResult
    result.tools = result.tools.filter((tool) => {
      const problem = paramHeaderProblem(tool?.inputSchema)
      if (problem !== undefined) this.emit('warning', `tool ${JSON.stringify(tool.name)} is left out: ${problem}`)
      return problem === undefined
    })
    for (const tool of result.tools) if (typeof tool.inputSchema === 'object' && tool.inputSchema !== null) this.#inputSchemas.set(tool.name, tool.inputSchema)
    this.#outputSchemas.remember(result.tools)
    return result
  }

  /** Every tool, following nextCursor across pages. */
  listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return listAllPages('tools/list', async (cursor) => {
      const { tools, nextCursor } = await this.listTools(cursorParams(cursor), options)
      return { items: tools, nextCursor }
    })
  }

  /**
   * Call a tool. A tool error comes back as a result with `isError: true`; a result that breaks
   * the outputSchema of a tool listed earlier is refused with LocalError('invalid_response').
   * Ours is `callTool(name, args)`; the official SDK's `callTool({ name, arguments })` works too.
   *
   * @example
   * await client.callTool('add', { a: 1, b: 2 })
   * await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })
   */
  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult>
  callTool(params: CallToolParams, options?: RequestOptions): Promise<CallToolResult>
  callTool(first: string | CallToolParams, second?: Record<string, unknown> | RequestOptions, third?: RequestOptions): Promise<CallToolResult> {
    if (typeof first === 'string') return this.#callTool(first, second as Record<string, unknown> | undefined, third)
    if (typeof first !== 'object' || first === null || typeof first.name !== 'string') throw new TypeError('callTool: pass (name, args) or ({ name, arguments })')
    return this.#callTool(first.name, first.arguments, second as RequestOptions | undefined)
  }

  async #callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    const params: JsonRpcParams = args === undefined ? { name } : { name, arguments: args }
    let result: Result
    try {
      result = await this.#request('tools/call', params, this.#withParamHeaders(name, args, options))
    } catch (error) {
      // a tool that mirrors parameters into headers, called before it was listed: learn its
      // schema once and call again with the headers (2026-07-28)
      if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.HeaderMismatch || this.#inputSchemas.has(name)) throw error
      await this.listAllTools(options)
      if (!this.#inputSchemas.has(name)) throw error
      result = await this.#request('tools/call', params, this.#withParamHeaders(name, args, options))
    }
    requireArray(result, 'content', 'tools/call')
    optionalObject(result, 'structuredContent', 'tools/call')
    this.#outputSchemas.check(name, result as unknown as CallToolResult)
    return result as unknown as CallToolResult
  }

  async listResources(params?: ListParams, options?: RequestOptions): Promise<ListResourcesResult> {
    return (await this.#listPage('resources/list', 'resources', params, options)) as unknown as ListResourcesResult
  }

  listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return listAllPages('resources/list', async (cursor) => {
      const { resources, nextCursor } = await this.listResources(cursorParams(cursor), options)
      return { items: resources, nextCursor }
    })
  }

  async listResourceTemplates(params?: ListParams, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return (await this.#listPage('resources/templates/list', 'resourceTemplates', params, options)) as unknown as ListResourceTemplatesResult
  }

  listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return listAllPages('resources/templates/list', async (cursor) => {
      const { resourceTemplates, nextCursor } = await this.listResourceTemplates(cursorParams(cursor), options)
      return { items: resourceTemplates, nextCursor }
    })
  }

  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    const result = await this.#request('resources/read', { uri }, options)
    requireArray(result, 'contents', 'resources/read')
    return result as unknown as ReadResourceResult
  }

  /**
   * Ask for notifications/resources/updated (the 'resourceUpdated' event) about one resource. In
   * 2026-07-28 this reopens the listen stream with the URI in its filter and resolves once the
   * server acknowledged it.
   */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.#envelope === undefined) return void (await this.#request('resources/subscribe', { uri }, options))
    assertPeerSupports(this.#server?.capabilities.resources?.subscribe === true, 'resource subscriptions')
    this.#subscriptions.add(uri)
    this.#connected('subscriptions/listen')
    await this.#listenFor()
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.#envelope === undefined) return void (await this.#request('resources/unsubscribe', { uri }, options))
    if (!this.#subscriptions.delete(uri)) return
    this.#connected('subscriptions/listen')
    await this.#listenFor()
  }

  async listPrompts(params?: ListParams, options?: RequestOptions): Promise<ListPromptsResult> {
    return (await this.#listPage('prompts/list', 'prompts', params, options)) as unknown as ListPromptsResult
  }

  listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return listAllPages('prompts/list', async (cursor) => {
      const { prompts, nextCursor } = await this.listPrompts(cursorParams(cursor), options)
      return { items: prompts, nextCursor }
    })
  }

  async getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    const params: JsonRpcParams = args === undefined ? { name } : { name, arguments: args }
    const result = await this.#request('prompts/get', params, options)
    requireArray(result, 'messages', 'prompts/get')
    return result as unknown as GetPromptResult
  }

  async complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    const result = await this.#request('completion/complete', params as unknown as JsonRpcParams, options)
    requireObject(result, 'completion', 'completion/complete')
    requireArray(result.completion as Result, 'values', 'completion/complete')
    return result as unknown as CompleteResult
  }

  /**
   * Ask the server to send log messages at `level` and above (the 'logging' event). In 2026-07-28
   * the level travels in every later request's `_meta` instead, and logs come with its answer.
   */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    if (this.#envelope === undefined) return void (await this.#request('logging/setLevel', { level }, options))
    this.#connected('logging/setLevel')
    assertPeerSupports(this.#server?.capabilities.logging !== undefined, 'logging')
    this.#envelope.logLevel = level
  }

  /** Answer sampling/createMessage. Set it before connect so `sampling` is declared. */
  setSamplingHandler(handler: SamplingHandler): void {
    this.#assertDeclaredIfOpen('sampling', 'setSamplingHandler')
    this.#handlers.setSampling(handler)
  }

  /** Answer elicitation/create. Set it before connect so `elicitation` is declared. */
  setElicitationHandler(handler: ElicitationHandler): void {
    this.#assertDeclaredIfOpen('elicitation', 'setElicitationHandler')
    this.#handlers.setElicitation(handler)
  }

  /**
   * The roots roots/list answers with. Before connect this declares `roots.listChanged`; once
   * initialized, each call sends notifications/roots/list_changed (when declared).
   */
  async setRoots(roots: readonly Root[]): Promise<void> {
    this.#assertDeclaredIfOpen('roots', 'setRoots')
    this.#handlers.setRoots(roots)
    // 2026-07-28 has no roots notification: the server asks for roots in each request that needs them
    if (this.#open && this.#server !== undefined && this.#envelope === undefined && this.#declared?.roots?.listChanged === true) {
      await this.#connected('notifications/roots/list_changed').notify('notifications/roots/list_changed')
    }
  }

  #createEndpoint(declared: ClientCapabilities): Endpoint {
    const endpoint = new Endpoint(clientEndpointOptions(this.#options, declared, () => this.#server))
    this.#handlers.install(endpoint, declared, this.#validator)
    routeServerNotifications(
      endpoint,
      (event, ...args) => this.emit(event, ...(args as never)),
      () => this.#outputSchemas.forget(),
    )
    endpoint.setNotificationHandler('notifications/subscriptions/acknowledged', (params) => {
      this.#listen?.acknowledged()
      this.emit('notification', 'notifications/subscriptions/acknowledged', params)
    })
    endpoint.onerror = (error) => this.#reportError(error)
    endpoint.onclose = () => {
      if (this.#endpoint === endpoint) this.#open = false
      this.emit('close')
    }
    return endpoint
  }

  async #request(method: string, params: JsonRpcParams | undefined, options: RequestOptions | undefined): Promise<Result> {
    const endpoint = this.#connected(method)
    if (this.#envelope === undefined) return endpoint.request(method, params, options)
    return this.#statelessRequest(endpoint, method, params, options ?? {}, false)
  }

  /**
   * One call in the stateless era: `_meta` on every request, input-required rounds answered
   * through the handlers, and one retry in another revision when the server answers -32022 with
   * one we share.
   */
  async #statelessRequest(endpoint: Endpoint, method: string, params: JsonRpcParams | undefined, options: RequestOptions, retried: boolean): Promise<Result> {
    const envelope = this.#envelope!
    const send = (current: JsonRpcParams | undefined) => endpoint.request(method, withRequestMeta(current, envelope), options)
    try {
      if (!INPUT_REQUIRED_METHODS.has(method)) return await send(params)
      const declared = this.#declared ?? {}
      const answer = (key: string, asked: string, askedParams: JsonRpcParams) =>
        this.#handlers.answerInput(asked, askedParams, inputContext(key, asked, askedParams, options.signal), declared, this.#validator)
      return await requestWithInputRounds(method, params, send, answer, this.#options.maxInputRounds ?? defaults.client.maxInputRounds)
    } catch (error) {
      const other = retried ? undefined : versionRefusal(error, this.#options.supportedProtocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS)?.retry
      if (other === undefined) throw error
      envelope.protocolVersion = other
      endpoint.transport?.setProtocolVersion?.(other)
      if (this.#server !== undefined) this.#server = { ...this.#server, protocolVersion: other }
      return this.#statelessRequest(endpoint, method, params, options, true)
    }
  }

  /** The `Mcp-Param-*` headers of a tools/call, from the tool's listed input schema. */
  #withParamHeaders(name: string, args: Record<string, unknown> | undefined, options: RequestOptions | undefined): RequestOptions | undefined {
    const schema = this.#inputSchemas.get(name)
    if (this.#envelope === undefined || schema === undefined || args === undefined) return options
    const headers = paramHeaders(schema, args)
    if (Object.keys(headers).length === 0) return options
    return { ...options, headers: { ...options?.headers, ...headers } }
  }

  /** Open the listen stream for the list changes the server declares, unless told not to. */
  #startListening(endpoint: Endpoint): void {
    this.#listen = new ListenStream(
      (filter, signal) =>
        endpoint.request('subscriptions/listen', withRequestMeta({ notifications: filter as JsonRpcParams }, this.#envelope!), {
          signal,
          timeoutMs: OPEN_ENDED_MS,
          maxTotalTimeoutMs: OPEN_ENDED_MS,
        }),
      (error) => this.#reportError(error),
    )
    if (this.#options.listenForChanges === false) return
    this.#listenFor().catch((error: unknown) => this.#reportError(error instanceof Error ? error : new Error(String(error))))
  }

  /** (Re)open the listen stream with what this client wants to hear about now. */
  #listenFor(): Promise<void> {
    const capabilities = this.#server?.capabilities ?? {}
    const filter: ListenFilter = {}
    if (this.#options.listenForChanges !== false) {
      if (capabilities.tools?.listChanged === true) filter.toolsListChanged = true
      if (capabilities.prompts?.listChanged === true) filter.promptsListChanged = true
      if (capabilities.resources?.listChanged === true) filter.resourcesListChanged = true
    }
    if (this.#subscriptions.size > 0) filter.resourceSubscriptions = [...this.#subscriptions]
    return this.#listen?.update(filter) ?? Promise.resolve()
  }

  #connected(method: string): Endpoint {
    const endpoint = this.#endpoint
    if (endpoint === undefined || !this.#open) throw new LocalError('not_connected', `cannot send ${method}: the client is not connected`)
    return endpoint
  }

  async #listPage(method: string, field: string, params: ListParams | undefined, options: RequestOptions | undefined): Promise<Result> {
    const result = await this.#request(method, params?.cursor === undefined ? undefined : { cursor: params.cursor }, options)
    requireArray(result, field, method)
    if (readNextCursor(result, method) === undefined) delete result.nextCursor
    return result
  }

  /** Handlers decide what is declared; once connected, a capability cannot be added. */
  #assertDeclaredIfOpen(capability: 'sampling' | 'elicitation' | 'roots', call: string): void {
    if (this.#open && this.#declared?.[capability] === undefined) {
      throw new LocalError('invalid_state', `${call} after connect cannot declare ${capability}; call it before connect or declare the capability in the options`)
    }
  }

  #reportError(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error)
    else this.onerror?.(error)
  }
}

/** What an elicitation, sampling or roots handler gets for a question of an input-required result. */
function inputContext(key: string, method: string, params: JsonRpcParams, signal: AbortSignal | undefined): RequestContext {
  const cannot = () => Promise.reject(new LocalError('invalid_state', 'a question of an input-required result cannot send messages of its own'))
  return {
    requestId: key,
    method,
    signal: signal ?? new AbortController().signal,
    meta: params._meta as Record<string, unknown> | undefined,
    sendProgress: async () => {},
    sendNotification: cannot,
    sendRequest: cannot,
  }
}

function assertPeerSupports(declared: boolean, what: string): void {
  if (!declared) throw new LocalError('capability_not_supported', `the server does not support ${what}: it did not declare the capability for it`)
}

function cursorParams(cursor: string | undefined): ListParams {
  return cursor === undefined ? {} : { cursor }
}
