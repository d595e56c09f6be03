import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { JSONRPC_VERSION, type JsonRpcParams, type JsonRpcResponse } from '../../../jsonrpc/index.js'
import { InFlightRequest } from '../../../protocol/cancellation.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { SessionlessIo } from '../../../session-host/session-host.js'
import { endSoon } from '../end-soon.js'
import { SseWriter } from '../sse-writer.js'

const RESOLVED = Promise.resolve()

/**
 * The answer to one 2026-07-28 POST, and what its handler sees of the HTTP exchange: plain JSON
 * when the response is all there is, an SSE stream from the first notification on (progress, log
 * messages, a subscription's notices). No event ids: this revision has no resumability. Closing
 * the response stream before the answer cancels the request (there is no notifications/cancelled
 * over HTTP); its AbortSignal is only made when the handler reads it.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
 */
export class SessionlessReply implements SessionlessIo {
  readonly authInfo: AuthInfo | undefined
  readonly headers: IncomingHttpHeaders
  /** Runs once the response stream closes, answered or not. */
  onclose: (() => void) | undefined
  readonly #res: ServerResponse
  readonly #allowSse: boolean
  readonly #keepAliveMs: number
  // an AbortController per request cost ~3 µs of a ~45 µs tools/call (CPU profile, issue 14)
  readonly #request = new InFlightRequest()
  #oncancel: (() => void) | undefined
  #sse: SseWriter | undefined
  #finished = false

  constructor(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, options: { allowSse: boolean; keepAliveMs: number }) {
    this.authInfo = req.auth
    this.headers = req.headers
    this.#res = res
    this.#allowSse = options.allowSse
    this.#keepAliveMs = options.keepAliveMs
    res.on('close', () => {
      // our own flag, not res.destroyed: node marks the response destroyed before it emits 'close'
      if (!this.#finished) {
        this.#request.abort(new Error('the client closed the stream'))
        this.#oncancel?.()
      }
      this.onclose?.()
    })
  }

  /** Aborts when the client closes the stream before the answer. */
  get signal(): AbortSignal {
    return this.#request.signal
  }

  /** True once the client went away before the answer. */
  get cancelled(): boolean {
    return this.#request.aborted
  }

  /** Runs `callback` once the client closes the stream before the answer (at once if it has). */
  onCancel(callback: () => void): void {
    if (this.#request.aborted) return callback()
    const previous = this.#oncancel
    this.#oncancel =
      previous === undefined
        ? callback
        : () => {
            previous()
            callback()
          }
  }

  /** A notification ahead of the response; dropped on a JSON-only endpoint. */
  notify(method: string, params: JsonRpcParams): Promise<void> {
    if (this.#finished || !this.#allowSse) return RESOLVED
    this.#sse ??= new SseWriter(this.#res, { keepAliveMs: this.#keepAliveMs })
    this.#sse.event(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params }))
    return RESOLVED
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
