import type { JsonRpcMessage, JsonRpcPayload, RequestId } from '../../jsonrpc/index.js'
import type { MessageExtra, SendOptions, Transport } from '../../protocol/transport.js'

/** Where the messages answering one POST go: its SSE/JSON stream, or a JSON-only answer. */
export interface AnswerSink {
  write(message: JsonRpcMessage): Promise<void>
  /** True once everything the POST was owed has been sent. */
  readonly finished: boolean
}

interface Route {
  stream: AnswerSink
  clientId: RequestId
}

/**
 * The transport of the one long-lived session that serves stateless requests of a protocol
 * version. Requests of many clients meet here, so each request's id is replaced by one unique to
 * this transport on the way in and restored on the way out: two clients that both send id 1
 * never collide. Messages not tied to a live request have nowhere to go (no GET stream) and are
 * dropped.
 */
export class PooledSessionTransport implements Transport {
  readonly #routes = new Map<RequestId, Route>()
  #next = 0

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  async start(): Promise<void> {}

  /**
   * Route the requests of one POST to `stream`; returns the messages to hand to the session,
   * with internal ids, and those ids. A client's notifications/cancelled cannot be matched to
   * its request across POSTs here, so it is dropped (a client that hangs up cancels instead).
   */
  admit(stream: AnswerSink | undefined, messages: readonly JsonRpcMessage[]): { payload: JsonRpcMessage[]; internalIds: RequestId[] } {
    const payload: JsonRpcMessage[] = []
    const internalIds: RequestId[] = []
    for (const message of messages) {
      if ('method' in message && 'id' in message && stream !== undefined) {
        const internal = `r${this.#next++}`
        this.#routes.set(internal, { stream, clientId: message.id })
        internalIds.push(internal)
        payload.push({ ...message, id: internal })
      } else if (!('method' in message && message.method === 'notifications/cancelled')) {
        payload.push(message)
      }
    }
    return { payload, internalIds }
  }

  /** The client went away: cancel what it was waiting for, as a notifications/cancelled would. */
  abandon(internalIds: readonly RequestId[], extra?: MessageExtra): void {
    for (const requestId of internalIds) {
      if (!this.#routes.delete(requestId)) continue
      this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the client disconnected' } }, extra)
    }
  }

  async send(payload: JsonRpcPayload, options?: SendOptions): Promise<void> {
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      if ('result' in message || 'error' in message) {
        const id = message.id
        const route = id === null ? undefined : this.#routes.get(id)
        if (route === undefined) continue
        this.#routes.delete(id!)
        await route.stream.write({ ...message, id: route.clientId } as JsonRpcMessage)
      } else if (options?.relatedRequestId !== undefined) {
        await this.#routes.get(options.relatedRequestId)?.stream.write(message)
      }
    }
  }

  async close(): Promise<void> {
    this.#routes.clear()
    this.onclose?.()
  }
}
