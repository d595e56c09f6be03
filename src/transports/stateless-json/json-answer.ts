import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/index.js'
import { endSoon } from '../http/end-soon.js'
import type { AnswerSink } from '../http/pooled-session-transport.js'

const RESOLVED: Promise<void> = Promise.resolve()

/**
 * The application/json answer to one POST: it owes the responses of the requests in the body and
 * sends them as one body once all are in (an array for a batch). Anything else (progress, log
 * messages) is dropped: a JSON-only client has no stream to receive it on.
 */
export class JsonAnswer implements AnswerSink {
  readonly #res: ServerResponse
  readonly #owed: Set<RequestId>
  readonly #batch: boolean
  readonly #responses: JsonRpcMessage[] = []
  #finished = false
  /** Called once the answer has been written. */
  onanswered?: () => void

  constructor(res: ServerResponse, owed: readonly RequestId[], batch: boolean) {
    this.#res = res
    this.#owed = new Set(owed)
    this.#batch = batch
  }

  get finished(): boolean {
    return this.#finished
  }

  write(message: JsonRpcMessage): Promise<void> {
    if (this.#finished || !('result' in message || 'error' in message)) return RESOLVED
    const id = message.id
    if (id === null || !this.#owed.delete(id)) return RESOLVED
    this.#responses.push(message)
    if (this.#owed.size === 0) this.#send()
    return RESOLVED
  }

  #send(): void {
    this.#finished = true
    const res = this.#res
    if (!res.headersSent && !res.destroyed) {
      const body = JSON.stringify(this.#batch ? this.#responses : this.#responses[0])
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
      endSoon(res, body)
    }
    this.onanswered?.()
  }
}
