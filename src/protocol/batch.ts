import type { JsonRpcResponse } from '../jsonrpc/index.js'

/** What receiving a batch needs from its endpoint. */
export interface BatchDeps {
  /** Whether a batch is acceptable now (2025-03-26 sessions only). */
  accepted: boolean
  /** Handle one item: `reply` gets its response, `finished` says it needs none (more). */
  receiveOne(item: unknown, reply: (response: JsonRpcResponse) => void, finished: () => void): void
  /** Refuse the whole batch with one -32600 (id null). */
  refuse(message: string): void
  /** Send the responses of the batch's requests, together. */
  sendAll(responses: JsonRpcResponse[]): void
}

/**
 * A JSON-RPC batch: refused when the revision has none, when empty, or when it holds
 * initialize; otherwise each item is handled and the responses go back in one array once the
 * last request is answered (notifications and responses in it get none).
 * @see https://www.jsonrpc.org/specification#batch
 */
export function receiveBatch(items: unknown[], deps: BatchDeps): void {
  if (!deps.accepted) return deps.refuse('Invalid Request: JSON-RPC batches are not supported by the negotiated protocol version')
  if (items.length === 0) return deps.refuse('Invalid Request: empty batch')
  if (items.some((item) => typeof item === 'object' && item !== null && (item as { method?: unknown }).method === 'initialize')) {
    return deps.refuse('Invalid Request: initialize must not be part of a batch')
  }
  const responses: JsonRpcResponse[] = []
  let outstanding = 0
  let dispatched = false
  const flush = () => {
    if (dispatched && outstanding === 0 && responses.length > 0) deps.sendAll(responses)
  }
  for (const item of items) {
    outstanding++
    let answered = false
    const done = () => {
      if (answered) return
      answered = true
      outstanding--
      flush()
    }
    deps.receiveOne(
      item,
      (response) => {
        responses.push(response)
        done()
      },
      done,
    )
  }
  dispatched = true
  flush()
}
