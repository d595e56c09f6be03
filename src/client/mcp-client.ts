import { EventEmitter } from 'node:events'
import type { JsonRpcParams } from '../jsonrpc/index.js'
import { Endpoint } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type { Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation, InitializeResult, ServerCapabilities } from '../schema/capabilities.js'
import type {
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
import { HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_PROTOCOL_VERSION } from '../schema/versions.js'
import { clientEndpointOptions } from './client-endpoint-options.js'
import { routeServerNotifications, type McpClientEvents } from './client-events.js'
import { ClientHandlers, type ElicitationHandler, type SamplingHandler } from './client-handlers.js'
import type { ConnectOptions, McpClientOptions } from './client-options.js'
import { initializeSession } from './initialize-session.js'
import { listAllPages } from './list-pages.js'
import type { ListParams, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult } from './list-results.js'
import { optionalObject, readNextCursor, requireArray, requireObject } from './response-shape.js'
import { ToolOutputSchemas } from './tool-output-schemas.js'

type Result = Record<string, unknown>

/**
 * An MCP client: connects over any Transport, negotiates the protocol version, calls the
 * server's tools, resources and prompts, and answers the server's sampling, elicitation and
 * roots requests. Server notifications arrive as events.
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
    this.#outputSchemas.forget()
    this.#open = true
    try {
      await endpoint.connect(transport)
    } catch (error) {
      this.#open = false
      throw error
    }
    const result = await initializeSession(endpoint, transport, {
      clientInfo: this.#clientInfo,
      capabilities: declared,
      protocolVersion: this.#options.protocolVersion ?? LATEST_HANDSHAKE_PROTOCOL_VERSION,
      supportedProtocolVersions: this.#options.supportedProtocolVersions ?? HANDSHAKE_PROTOCOL_VERSIONS,
      signal: options.signal,
    })
    this.#server = result
    return result
  }

  /** Close the connection; pending requests reject with LocalError('connection_closed'). */
  async close(): Promise<void> {
    await this.#endpoint?.close()
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#request('ping', undefined, options)
  }

  /** One page of tools/list. Remembers output schemas so callTool can check results. */
  async listTools(params?: ListParams, options?: RequestOptions): Promise<ListToolsResult> {
    const result = (await this.#listPage('tools/list', 'tools', params, options)) as unknown as ListToolsResult
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
   */
  async callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    const params: JsonRpcParams = args === undefined ? { name } : { name, arguments: args }
    const result = await this.#request('tools/call', params, options)
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

  /** Ask for notifications/resources/updated (the 'resourceUpdated' event) about one resource. */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#request('resources/subscribe', { uri }, options)
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#request('resources/unsubscribe', { uri }, options)
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

  /** Ask the server to send log messages at `level` and above (the 'logging' event). */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.#request('logging/setLevel', { level }, options)
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
    if (this.#open && this.#server !== undefined && this.#declared?.roots?.listChanged === true) {
      await this.#connected('notifications/roots/list_changed').notify('notifications/roots/list_changed')
    }
  }

  #createEndpoint(declared: ClientCapabilities): Endpoint {
    const endpoint = new Endpoint(clientEndpointOptions(this.#options, declared, () => this.#server))
    this.#handlers.install(endpoint, declared, this.#validator)
    routeServerNotifications(endpoint, (event, ...args) => this.emit(event, ...(args as never)), () => this.#outputSchemas.forget())
    endpoint.onerror = (error) => this.#reportError(error)
    endpoint.onclose = () => {
      if (this.#endpoint === endpoint) this.#open = false
      this.emit('close')
    }
    return endpoint
  }

  async #request(method: string, params: JsonRpcParams | undefined, options: RequestOptions | undefined): Promise<Result> {
    return this.#connected(method).request(method, params, options)
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

function cursorParams(cursor: string | undefined): ListParams {
  return cursor === undefined ? {} : { cursor }
}
