import { defaults } from '../../../config/defaults.js'
import { JSONRPC_VERSION, type JsonRpcMessage, type JsonRpcPayload, type JsonRpcRequest, type RequestId } from '../../../jsonrpc/index.js'
import type { MessageExtra, SendOptions, Transport } from '../../../protocol/transport.js'
import { encodeHeaderValue } from '../../../schema/header-values.js'
import { META, NAME_FIELD, isStatelessRevision } from '../../../schema/revisions.js'
import { HttpTransportError } from '../../http/http-transport-error.js'
import { readSse } from '../../http/read-sse.js'
import { retryAfterOnce } from '../../http-client/retry-after-once.js'
import { withTraceContext } from '../../http-client/trace-context.js'

export interface StreamableHttpClientOptions {
  /** The fetch to use; an auth layer passes one that adds credentials. Default: globalThis.fetch. */
  fetch?: typeof fetch
  /** Extra headers on every request. */
  headers?: Record<string, string>
  /** Open the standalone GET stream after initialization (default true). */
  openGetStream?: boolean
  requestTimeoutMs?: number
  reconnectInitialDelayMs?: number
  reconnectMaxDelayMs?: number
  reconnectGrowth?: number
  reconnectMaxRetries?: number
}

/** What one SSE stream still owes us, and where to resume it. */
interface StreamState {
  owed: Set<RequestId>
  lastEventId: string | undefined
  retryMs: number | undefined
  standalone: boolean
}

const isResponse = (message: JsonRpcMessage): message is JsonRpcMessage & { id: RequestId } => 'result' in message || 'error' in message

/**
 * The client side of Streamable HTTP over `fetch`: POSTs every message, reads JSON or SSE
 * answers, keeps the session id and sends MCP-Protocol-Version, re-initializes once when the
 * server forgot the session (404), opens the standalone GET stream, resumes dropped streams with
 * Last-Event-ID honouring `retry:`, and ends the session with DELETE on close.
 *
 * In a stateless revision (2026-07-28: set by setProtocolVersion, or named by a message's own
 * `_meta`) every message is a POST of its own: no session, no GET stream, no resumption; the
 * headers mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and the caller's
 * `Mcp-Param-*`); a refusal that answers the request in JSON-RPC (HTTP 400/404 with the
 * request's id) is handed on as the answer; `notifications/cancelled` aborts the request's POST.
 *
 * @example
 * const client = new McpClient({ name: 'app', version: '1.0.0' })
 * await client.connect(new StreamableHttpClientTransport(new URL('http://127.0.0.1:3000/mcp')))
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export class StreamableHttpClientTransport implements Transport {
  readonly #url: URL
  readonly #fetch: typeof fetch
  readonly #options: Required<Omit<StreamableHttpClientOptions, 'fetch' | 'headers'>> & Pick<StreamableHttpClientOptions, 'headers'>
  readonly #closing = new AbortController()
  #sessionId: string | undefined
  #protocolVersion: string | undefined
  /** Remembered to re-initialize transparently when the server forgets the session. */
  #initializeParams: JsonRpcRequest['params'] | undefined
  #initialized = false
  #reinitializations = 0
  #closed = false
  /** A stateless revision was negotiated: every message is a request of its own. */
  #stateless = false
  /** Stateless requests whose answer is still coming, to abort on notifications/cancelled. */
  readonly #inFlight = new Map<RequestId, AbortController>()

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(url: URL | string, options: StreamableHttpClientOptions = {}) {
    const d = defaults.httpClient
    this.#url = new URL(url)
    this.#fetch = retryAfterOnce(withTraceContext(options.fetch ?? globalThis.fetch))
    this.#options = {
      openGetStream: options.openGetStream ?? true,
      requestTimeoutMs: options.requestTimeoutMs ?? d.requestTimeoutMs,
      reconnectInitialDelayMs: options.reconnectInitialDelayMs ?? d.reconnectInitialDelayMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? d.reconnectMaxDelayMs,
      reconnectGrowth: options.reconnectGrowth ?? d.reconnectGrowth,
      reconnectMaxRetries: options.reconnectMaxRetries ?? d.reconnectMaxRetries,
      headers: options.headers,
    }
  }

  get sessionId(): string | undefined {
    return this.#sessionId
  }

  /** The version negotiated (or probed); sent as MCP-Protocol-Version from then on. */
  setProtocolVersion(version: string | undefined): void {
    this.#protocolVersion = version
    this.#stateless = isStatelessRevision(version)
  }

  async start(): Promise<void> {}

  async send(payload: JsonRpcPayload, options: SendOptions = {}): Promise<void> {
    if (this.#closed) throw new HttpTransportError('closed', 'the transport is closed')
    const statelessVersion = this.#statelessVersionOf(payload)
    if (statelessVersion !== undefined) return this.#sendStateless(payload as JsonRpcMessage, statelessVersion, options.headers)
    const messages = Array.isArray(payload) ? payload : [payload]
    const initialize = messages.find((m): m is JsonRpcRequest => 'method' in m && m.method === 'initialize' && 'id' in m)
    if (initialize !== undefined) this.#initializeParams = initialize.params
    const res = await this.#post(payload)
    if (res.status === 404 && this.#sessionId !== undefined && initialize === undefined && this.#reinitializations === 0) {
      // the server forgot the session: initialize again once, then retry this message
      this.#reinitializations++
      await this.#reinitialize()
      await this.#answer(await this.#post(payload), payload)
      return
    }
    await this.#answer(res, payload)
    if (!this.#initialized && messages.some((m) => 'method' in m && m.method === 'notifications/initialized')) {
      this.#initialized = true
      if (this.#options.openGetStream) void this.#openGetStream()
    }
  }

  /** The stateless revision a message goes out in: its own `_meta` first, else the negotiated one. */
  #statelessVersionOf(payload: JsonRpcPayload): string | undefined {
    if (Array.isArray(payload)) return undefined
    const meta = 'params' in payload ? (payload.params?._meta as Record<string, unknown> | undefined) : undefined
    const own = meta?.[META.protocolVersion]
    if (typeof own === 'string' && isStatelessRevision(own)) return own
    return this.#stateless ? this.#protocolVersion : undefined
  }

  /** One message of a stateless revision: its own POST, answered in full before this resolves. */
  async #sendStateless(message: JsonRpcMessage, version: string, extra: Readonly<Record<string, string>> | undefined): Promise<void> {
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      // HTTP cancels by ending the request's connection; the server sees the disconnect
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId
      const controller = requestId === undefined ? undefined : this.#inFlight.get(requestId)
      if (controller !== undefined) {
        controller.abort(new HttpTransportError('closed', 'the request was cancelled'))
        return
      }
    }
    const headers: Record<string, string> = {
      ...this.#options.headers,
      ...extra,
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': version,
    }
    if ('method' in message) {
      headers['Mcp-Method'] = message.method
      const field = NAME_FIELD[message.method]
      const name = field === undefined ? undefined : message.params?.[field]
      if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name)
    }
    const requestId = 'method' in message && 'id' in message ? message.id : undefined
    const controller = new AbortController()
    if (requestId !== undefined) this.#inFlight.set(requestId, controller)
    try {
      const res = await this.#request({ method: 'POST', headers, body: JSON.stringify(message) }, controller.signal)
      await this.#answerStateless(res, requestId)
    } finally {
      if (requestId !== undefined && this.#inFlight.get(requestId) === controller) this.#inFlight.delete(requestId)
    }
  }

  /**
   * Deliver a stateless answer: JSON, or an SSE stream read to its end (no resumption in this
   * revision, so a stream that ends before the response fails the request). An error status
   * whose body answers the request in JSON-RPC is the answer; any other is an HttpTransportError.
   */
  async #answerStateless(res: Response, requestId: RequestId | undefined): Promise<void> {
    const type = res.headers.get('content-type') ?? ''
    if (res.status === 202 || (requestId === undefined && res.ok)) {
      await res.body?.cancel()
      return
    }
    if (!res.ok) {
      const refusal = await this.#refusal(res, requestId === undefined ? [] : [requestId])
      if (refusal !== undefined) throw refusal
      return
    }
    if (type.startsWith('application/json')) {
      const body: unknown = await res.json()
      for (const message of Array.isArray(body) ? body : [body]) this.onmessage?.(message)
      return
    }
    if (!type.startsWith('text/event-stream')) {
      await res.body?.cancel()
      throw new HttpTransportError('unexpected_content_type', `unexpected Content-Type ${JSON.stringify(type)} from ${this.#url.href}`, { status: res.status })
    }
    let answered = false
    await readSse(res.body!, {
      onEvent: (event) => {
        if (event.data === '') return
        const message = parseJson(event.data)
        if (message === undefined) {
          this.onerror?.(new HttpTransportError('stream_failed', 'an SSE event did not hold JSON'))
          return
        }
        if (isResponse(message as JsonRpcMessage) && (message as { id: RequestId }).id === requestId) answered = true
        this.onmessage?.(message)
      },
    })
    if (!answered && !this.#closed) throw new HttpTransportError('stream_failed', `the SSE stream from ${this.#url.href} ended before the response`)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#closing.abort(new HttpTransportError('closed', 'the transport closed'))
    if (this.#sessionId !== undefined) {
      try {
        const res = await this.#fetch(this.#url, { method: 'DELETE', headers: this.#headers({}), signal: AbortSignal.timeout(this.#options.requestTimeoutMs) })
        await res.body?.cancel()
      } catch {
        // the server may be gone already; the session ends with it
      }
    }
    this.onclose?.()
  }

  /** POST one payload; the answer's headers are in when this resolves. */
  async #post(payload: JsonRpcPayload): Promise<Response> {
    const res = await this.#request({
      method: 'POST',
      headers: this.#headers({ Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' }),
      body: JSON.stringify(payload),
    })
    const sessionId = res.headers.get('mcp-session-id')
    if (sessionId !== null) this.#sessionId = sessionId
    return res
  }

  /** Deliver what a POST answered: nothing (202), JSON, or an SSE stream read in the background. */
  async #answer(res: Response, payload: JsonRpcPayload): Promise<void> {
    if (res.status === 202) {
      await res.body?.cancel()
      return
    }
    const owed = new Set<RequestId>()
    for (const message of Array.isArray(payload) ? payload : [payload]) if ('method' in message && 'id' in message) owed.add(message.id)
    if (!res.ok) {
      const refusal = await this.#refusal(res, [...owed])
      if (refusal !== undefined) throw refusal
      return
    }
    const type = res.headers.get('content-type') ?? ''
    if (type.startsWith('application/json')) {
      const body: unknown = await res.json()
      for (const message of Array.isArray(body) ? body : [body]) this.onmessage?.(message)
      return
    }
    if (type.startsWith('text/event-stream')) {
      void this.#consume(res, { owed, lastEventId: undefined, retryMs: undefined, standalone: false })
      return
    }
    await res.body?.cancel()
    if (owed.size === 0) return
    throw new HttpTransportError('unexpected_content_type', `unexpected Content-Type ${JSON.stringify(type)} from ${this.#url.href}`, { status: res.status })
  }

  /** Read one SSE stream; when it ends while responses are still owed, resume it with GET. */
  async #consume(res: Response, state: StreamState): Promise<void> {
    let failures = 0
    let current: Response | undefined = res
    while (!this.#closed) {
      if (current !== undefined) {
        try {
          await readSse(current.body!, {
            onEvent: (event) => {
              if (event.id !== undefined) state.lastEventId = event.id
              if (event.data === '') return // priming event: only an id to resume from
              let message: JsonRpcMessage
              try {
                message = JSON.parse(event.data) as JsonRpcMessage
              } catch (cause) {
                this.onerror?.(new HttpTransportError('stream_failed', 'an SSE event did not hold JSON', { cause }))
                return
              }
              if (isResponse(message)) state.owed.delete(message.id)
              failures = 0
              this.onmessage?.(message)
            },
            onRetry: (ms) => {
              state.retryMs = ms
            },
          })
        } catch (error) {
          if (this.#closed) return
          this.onerror?.(new HttpTransportError('stream_failed', `the SSE stream broke: ${(error as Error).message}`, { cause: error }))
        }
      }
      // finished: everything owed arrived (a POST stream), or nothing to resume from
      if (this.#closed || (!state.standalone && state.owed.size === 0)) return
      if (state.lastEventId === undefined && !state.standalone) return
      if (failures >= this.#options.reconnectMaxRetries) {
        this.onerror?.(new HttpTransportError('stream_failed', `gave up resuming an SSE stream after ${failures} attempts`))
        return
      }
      const delay = state.retryMs ?? Math.min(this.#options.reconnectInitialDelayMs * this.#options.reconnectGrowth ** failures, this.#options.reconnectMaxDelayMs)
      failures++
      await sleep(delay, this.#closing.signal)
      if (this.#closed) return
      current = await this.#resume(state)
      if (current === undefined && state.standalone) return
    }
  }

  /** GET the stream again (with Last-Event-ID when we have one). Undefined when the server has none to give. */
  async #resume(state: StreamState): Promise<Response | undefined> {
    const headers = this.#headers({ Accept: 'text/event-stream' })
    if (state.lastEventId !== undefined) headers['Last-Event-ID'] = state.lastEventId
    let res: Response
    try {
      res = await this.#request({ method: 'GET', headers })
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error)
      return undefined
    }
    if (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res
    await res.body?.cancel()
    // 404/405/406: the server offers no (more) stream here; not an error for the standalone one
    if (!state.standalone || ![404, 405, 406].includes(res.status)) {
      this.onerror?.(new HttpTransportError('http_status', `resuming an SSE stream got HTTP ${res.status}`, { status: res.status }))
    }
    return undefined
  }

  async #openGetStream(): Promise<void> {
    const state: StreamState = { owed: new Set(), lastEventId: undefined, retryMs: undefined, standalone: true }
    const res = await this.#resume(state)
    if (res !== undefined) await this.#consume(res, state)
  }

  async #reinitialize(): Promise<void> {
    this.#sessionId = undefined
    const request: JsonRpcRequest = { jsonrpc: JSONRPC_VERSION, id: `reinitialize-${this.#reinitializations}`, method: 'initialize' }
    if (this.#initializeParams !== undefined) request.params = this.#initializeParams
    const res = await this.#post(request)
    if (!res.ok) throw await this.#statusError(res)
    await res.body?.cancel() // the answer repeats what the client already knows
    const initialized = await this.#post({ jsonrpc: JSONRPC_VERSION, method: 'notifications/initialized' })
    await initialized.body?.cancel()
  }

  /** fetch with a timeout until the response headers arrive, and abort on close. */
  async #request(init: RequestInit, cancel?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.#options.requestTimeoutMs)
    const headersIn = new AbortController()
    const signal = AbortSignal.any(cancel === undefined ? [this.#closing.signal, headersIn.signal] : [this.#closing.signal, headersIn.signal, cancel])
    const onTimeout = () => headersIn.abort(new HttpTransportError('timeout', `no answer from ${this.#url.href} within ${this.#options.requestTimeoutMs} ms`))
    timeout.addEventListener('abort', onTimeout, { once: true })
    try {
      return await this.#fetch(this.#url, { ...init, signal })
    } catch (error) {
      if (signal.aborted && signal.reason instanceof HttpTransportError) throw signal.reason
      throw error
    } finally {
      timeout.removeEventListener('abort', onTimeout)
    }
  }

  #headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.#options.headers, ...extra }
    if (this.#sessionId !== undefined) headers['Mcp-Session-Id'] = this.#sessionId
    if (this.#protocolVersion !== undefined) headers['MCP-Protocol-Version'] = this.#protocolVersion
    return headers
  }

  /**
   * An error status: a JSON-RPC error answering one of `ids` (a refusal in the protocol's own
   * format, such as -32022 with the revisions the server speaks) is handed on as the answer and
   * undefined returned; anything else, and every auth challenge (401, 403: an auth layer acts on
   * those), becomes the HttpTransportError to throw.
   */
  async #refusal(res: Response, ids: readonly RequestId[]): Promise<HttpTransportError | undefined> {
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json')
    if (ids.length === 0 || !json || res.status === 401 || res.status === 403) return this.#statusError(res)
    const text = await res.text().catch(() => '')
    const answer = parseJson(text) as { id?: unknown } | undefined
    if (typeof answer === 'object' && answer !== null && 'error' in answer && ids.includes(answer.id as RequestId)) {
      this.onmessage?.(answer)
      return undefined
    }
    return this.#httpError(res, text)
  }

  async #statusError(res: Response): Promise<HttpTransportError> {
    return this.#httpError(res, await res.text().catch(() => ''))
  }

  #httpError(res: Response, text: string): HttpTransportError {
    return new HttpTransportError('http_status', `HTTP ${res.status} from ${this.#url.href}${text ? `: ${text.slice(0, 500)}` : ''}`, {
      status: res.status,
      wwwAuthenticate: res.headers.get('www-authenticate'),
    })
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}
