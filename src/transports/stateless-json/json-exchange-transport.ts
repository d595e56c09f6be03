import type { ServerResponse } from 'node:http'
import { endSoon } from '../http/end-soon.js'
import type { JsonRpcMessage, JsonRpcPayload, RequestId } from '../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../protocol/transport.js'

/**
 * The transport of one stateless JSON request: it owes the responses of the requests in the
 * body, answers them as one application/json body once all are in, and drops everything else
 * (progress, log messages): a JSON-only client has no stream to receive them on.
 */
export class JsonExchangeTransport implements Transport {
  readonly #res: ServerResponse
  readonly #owed: Set<RequestId>
  readonly #batch: boolean
  readonly #responses: JsonRpcMessage[] = []
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void
  /** Called once the answer has been written. */
  onanswered?: () => void

  constructor(res: ServerResponse, owed: readonly RequestId[], batch: boolean) {
    this.#res = res
    this.#owed = new Set(owed)
    this.#batch = batch
  }

  async start(): Promise<void> {}

  async send(payload: JsonRpcPayload): Promise<void> {
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      if (!('result' in message || 'error' in message)) continue
      const id = message.id
      if (id === null || !this.#owed.delete(id)) continue
      this.#responses.push(message)
    }
    if (this.#owed.size === 0 && !this.#res.headersSent) {
      const body = JSON.stringify(this.#batch ? this.#responses : this.#responses[0])
      this.#res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
      endSoon(this.#res, body)
      this.onanswered?.()
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.onclose?.()
  }
}
