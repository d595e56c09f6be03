import { defaults } from '../../../config/defaults.js'
import type { JsonRpcPayload } from '../../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../../protocol/transport.js'
import { HttpTransportError } from '../../http/http-transport-error.js'
import { readSse } from '../../http/read-sse.js'
import { withTraceContext } from '../../http-client/trace-context.js'

export interface SseClientOptions {
  fetch?: typeof fetch
  headers?: Record<string, string>
  requestTimeoutMs?: number
}

/**
 * The client side of the 2024-11-05 HTTP+SSE transport: GET opens the stream, whose first
 * `endpoint` event names where to POST (refused when it is on another origin); answers arrive as
 * `message` events on the stream.
 *
 * @example
 * await client.connect(new SseClientTransport(new URL('http://127.0.0.1:3000/sse')))
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
export class SseClientTransport implements Transport {
  readonly #url: URL
  readonly #fetch: typeof fetch
  readonly #headers: Record<string, string>
  readonly #timeoutMs: number
  readonly #closing = new AbortController()
  #endpoint: URL | undefined
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(url: URL | string, options: SseClientOptions = {}) {
    this.#url = new URL(url)
    this.#fetch = withTraceContext(options.fetch ?? globalThis.fetch)
    this.#headers = options.headers ?? {}
    this.#timeoutMs = options.requestTimeoutMs ?? defaults.httpClient.requestTimeoutMs
  }

  /** Open the stream and wait for the `endpoint` event. */
  async start(): Promise<void> {
    const res = await this.#fetch(this.#url, {
      method: 'GET',
      headers: { ...this.#headers, Accept: 'text/event-stream' },
      signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#timeoutMs)]),
    }).catch((cause: unknown) => {
      throw new HttpTransportError('timeout', `could not open ${this.#url.href}: ${(cause as Error).message}`, { cause })
    })
    if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel()
      throw new HttpTransportError('http_status', `GET ${this.#url.href} answered HTTP ${res.status}`, {
        status: res.status,
        wwwAuthenticate: res.headers.get('www-authenticate'),
      })
    }
    await new Promise<void>((resolve, reject) => {
      const reading = readSse(res.body!, {
        onEvent: (event) => {
          if (event.event === 'endpoint') {
            const endpoint = new URL(event.data, this.#url)
            if (endpoint.origin !== this.#url.origin) {
              reject(new HttpTransportError('invalid_endpoint', `the server named an endpoint on another origin (${endpoint.origin}); refused`))
              void this.close()
              return
            }
            this.#endpoint = endpoint
            resolve()
            return
          }
          try {
            this.onmessage?.(JSON.parse(event.data))
          } catch (cause) {
            this.onerror?.(new HttpTransportError('stream_failed', 'an SSE event did not hold JSON', { cause }))
          }
        },
      })
      reading.then(
        () => {
          reject(new HttpTransportError('stream_failed', 'the SSE stream ended before the endpoint event'))
          void this.close()
        },
        (error: unknown) => {
          reject(error)
          if (!this.#closed) this.onerror?.(error as Error)
          void this.close()
        },
      )
    })
  }

  async send(payload: JsonRpcPayload): Promise<void> {
    if (this.#endpoint === undefined || this.#closed) throw new HttpTransportError('closed', 'the SSE transport is not connected')
    const res = await this.#fetch(this.#endpoint, {
      method: 'POST',
      headers: { ...this.#headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#timeoutMs)]),
    })
    await res.body?.cancel()
    if (!res.ok) {
      throw new HttpTransportError('http_status', `POST ${this.#endpoint.href} answered HTTP ${res.status}`, {
        status: res.status,
        wwwAuthenticate: res.headers.get('www-authenticate'),
      })
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#closing.abort()
    this.onclose?.()
  }
}
