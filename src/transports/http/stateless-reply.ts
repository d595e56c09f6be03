import type { ServerResponse } from 'node:http'
import type { JsonRpcNotification, JsonRpcResponse } from '../../jsonrpc/index.js'
import { endSoon } from './end-soon.js'
import { SseWriter } from './sse-writer.js'

/**
 * The answer to one 2026-07-28 POST: plain JSON when the response is all there is, an SSE stream
 * from the first notification on (progress, log messages, a subscription's notices). No event ids:
 * this revision has no resumability.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
 */
export class StatelessReply {
  readonly #res: ServerResponse
  readonly #allowSse: boolean
  readonly #keepAliveMs: number
  #sse: SseWriter | undefined
  #finished = false

  constructor(res: ServerResponse, options: { allowSse: boolean; keepAliveMs: number }) {
    this.#res = res
    this.#allowSse = options.allowSse
    this.#keepAliveMs = options.keepAliveMs
  }

  /** True once the response was written: a close before that is the client giving up. */
  get answered(): boolean {
    return this.#finished
  }

  /** A notification ahead of the response; dropped on a JSON-only endpoint. */
  notify(message: JsonRpcNotification): void {
    if (this.#finished || !this.#allowSse) return
    this.#sse ??= new SseWriter(this.#res, { keepAliveMs: this.#keepAliveMs })
    this.#sse.event(JSON.stringify(message))
  }

  finish(message: JsonRpcResponse, status: number): void {
    if (this.#finished) return
    this.#finished = true
    const body = JSON.stringify(message)
    if (this.#sse !== undefined) {
      this.#sse.event(body)
      this.#sse.end()
      return
    }
    if (this.#res.headersSent || this.#res.destroyed) return
    this.#res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
    endSoon(this.#res, body)
  }
}
