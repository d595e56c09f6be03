import type { ServerResponse } from 'node:http'
import type { JsonRpcPayload, RequestId } from '../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../protocol/transport.js'
import { JsonAnswer } from './json-answer.js'

/**
 * The transport of a throwaway session serving one stateless JSON request (one that changes
 * session state, such as logging/setLevel): everything it sends goes to the request's JsonAnswer.
 */
export class JsonExchangeTransport implements Transport {
  readonly #answer: JsonAnswer
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void
  /** Called once the answer has been written. */
  onanswered?: () => void

  constructor(res: ServerResponse, owed: readonly RequestId[], batch: boolean) {
    this.#answer = new JsonAnswer(res, owed, batch)
    this.#answer.onanswered = () => this.onanswered?.()
  }

  async start(): Promise<void> {}

  async send(payload: JsonRpcPayload): Promise<void> {
    for (const message of Array.isArray(payload) ? payload : [payload]) await this.#answer.write(message)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.onclose?.()
  }
}
