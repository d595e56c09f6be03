import type { JsonRpcPayload, RequestId } from '../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../protocol/transport.js'
import { HttpTransportError } from '../transports/http/http-transport-error.js'
import { SseClientTransport } from '../transports/sse-legacy/client/sse-client-transport.js'
import { StreamableHttpClientTransport } from '../transports/streamable-http/client/streamable-http-client-transport.js'

/** How the gateway speaks to an upstream HTTP server: Streamable HTTP, the 2024-11-05 HTTP+SSE transport, or the first that works. */
export type UpstreamTransportKind = 'streamable-http' | 'sse' | 'auto'

export interface UpstreamTransportOptions {
  kind: UpstreamTransportKind
  /** Every request to the upstream goes through it (it adds the principal JWT). */
  fetch: typeof fetch
  /**
   * Told of what went wrong on a stream that owes nothing in particular (the GET stream, a
   * resumption): logged here rather than handed to the ChildLink, whose errors are a stdio
   * child's output.
   */
  log: (line: string) => void
}

/**
 * One session with an upstream HTTP MCP server, as a child's `Transport`. `auto` opens Streamable
 * HTTP and falls back to HTTP+SSE when the first POST (initialize) is answered with a 4xx other
 * than 401/403, as `connectHttp` does for clients. A request the upstream cannot take (unreachable,
 * an HTTP error that is not a JSON-RPC answer) ends the session: the ChildLink answers what it owed
 * with {@link failure}, and the next request starts a new session. The negotiated protocol version
 * is handed to the HTTP transport (MCP-Protocol-Version), as a client would after initialize.
 */
export class UpstreamTransport implements Transport {
  readonly #url: URL
  readonly #options: UpstreamTransportOptions
  #inner: StreamableHttpClientTransport | SseClientTransport
  /** Decided once the first message went out (auto: which transport answered). */
  #settled: boolean
  #failure: string | undefined
  #closed = false
  #notified = false
  /** Ids of initialize requests sent, to read the negotiated version off their answer. */
  readonly #initializing = new Set<RequestId>()

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(url: URL, options: UpstreamTransportOptions) {
    this.#url = url
    this.#options = options
    this.#settled = options.kind !== 'auto'
    this.#inner = this.#wire(options.kind === 'sse' ? new SseClientTransport(url, { fetch: options.fetch }) : new StreamableHttpClientTransport(url, { fetch: options.fetch }))
  }

  /** Why the session ended, when the upstream failed it (undefined: it closed normally). */
  get failure(): string | undefined {
    return this.#failure
  }

  get sessionId(): string | undefined {
    return this.#inner instanceof StreamableHttpClientTransport ? this.#inner.sessionId : undefined
  }

  async start(): Promise<void> {
    try {
      await this.#inner.start()
    } catch (error) {
      throw new Error(this.#describe(error), { cause: error })
    }
  }

  async send(payload: JsonRpcPayload): Promise<void> {
    if (this.#closed) return
    for (const message of Array.isArray(payload) ? payload : [payload])
      if ('method' in message && message.method === 'initialize' && 'id' in message) this.#initializing.add(message.id)
    try {
      await this.#sendSettling(payload)
    } catch (error) {
      this.#failure = this.#describe(error)
      await this.close()
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#inner.close().catch(() => {})
    // a transport that never opened may not report its close: the link must still hear of it
    this.#ended()
  }

  #ended(): void {
    if (this.#notified) return
    this.#notified = true
    this.onclose?.()
  }

  async #sendSettling(payload: JsonRpcPayload): Promise<void> {
    if (this.#settled) return this.#inner.send(payload)
    this.#settled = true
    try {
      await this.#inner.send(payload)
    } catch (error) {
      if (!(error instanceof HttpTransportError) || !isFallbackStatus(error.status)) throw error
      const streamable = this.#inner
      streamable.onclose = undefined
      await streamable.close().catch(() => {})
      this.#inner = this.#wire(new SseClientTransport(this.#url, { fetch: this.#options.fetch }))
      await this.#inner.start()
      await this.#inner.send(payload)
    }
  }

  #wire<T extends Transport>(inner: T): T {
    inner.onmessage = (payload, extra) => {
      if (this.#initializing.size > 0) this.#negotiated(payload)
      this.onmessage?.(payload, extra)
    }
    inner.onerror = (error) => this.#options.log(`gateway: ${this.#describe(error)}: ${error.message}`)
    inner.onclose = () => {
      this.#closed = true
      this.#ended()
    }
    return inner
  }

  #negotiated(payload: unknown): void {
    const message = payload as { id?: RequestId; result?: { protocolVersion?: unknown } }
    if (message.id === undefined || !this.#initializing.delete(message.id)) return
    const version = message.result?.protocolVersion
    if (typeof version === 'string' && this.#inner instanceof StreamableHttpClientTransport) this.#inner.setProtocolVersion(version)
  }

  #describe(error: unknown): string {
    if (error instanceof HttpTransportError && error.status !== undefined) return `the upstream MCP server ${this.#url.href} answered HTTP ${error.status}`
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
    return `the upstream MCP server ${this.#url.href} could not be reached (${error instanceof Error ? error.message : String(error)}${cause})`
  }
}

/** A 4xx that says "not this transport" (401/403 are an auth layer's, not a fallback). */
function isFallbackStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403
}
