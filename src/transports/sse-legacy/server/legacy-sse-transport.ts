import type { JsonRpcPayload } from '../../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../../protocol/transport.js'
import type { SseWriter } from '../../http/sse-writer.js'

/**
 * One 2024-11-05 HTTP+SSE connection: everything the server sends goes on the GET stream as
 * `message` events; what the client POSTs to the endpoint arrives through `deliver`.
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
export class LegacySseTransport implements Transport {
  readonly sessionId: string
  readonly #writer: SseWriter
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(sessionId: string, writer: SseWriter) {
    this.sessionId = sessionId
    this.#writer = writer
    writer.onclose = () => void this.close()
  }

  async start(): Promise<void> {}

  async send(payload: JsonRpcPayload): Promise<void> {
    if (this.#closed) throw new Error('the SSE stream is closed')
    this.#writer.event(JSON.stringify(payload))
  }

  deliver(payload: unknown, extra: MessageExtra): void {
    this.onmessage?.(payload, extra)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#writer.end()
    this.onclose?.()
  }
}
