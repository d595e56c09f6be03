import type { JsonRpcResponse, RequestId } from '../jsonrpc/index.js'
import type { ProgressParams } from '../schema/features.js'
import type { RequestTimer } from './timeouts.js'

export interface PendingRequest {
  method: string
  resolve(response: JsonRpcResponse): void
  reject(error: Error): void
  timer?: RequestTimer
  onprogress?: (progress: ProgressParams) => void
  lastProgress?: number
  /** Detaches the abort listener, when there is one. */
  detach?: () => void
}

/**
 * Outgoing requests waiting for their response. Ids come from a counter and are never reused
 * within one endpoint, even after the request settles.
 */
export class PendingRequests {
  #nextId = 0
  /** Made on the first request sent: a server's sessions mostly never send one. */
  #pending: Map<RequestId, PendingRequest> | undefined

  nextId(): number {
    return this.#nextId++
  }

  get size(): number {
    return this.#pending?.size ?? 0
  }

  add(id: RequestId, entry: PendingRequest): void {
    ;(this.#pending ??= new Map()).set(id, entry)
  }

  get(id: RequestId): PendingRequest | undefined {
    return this.#pending?.get(id)
  }

  /** Remove and return the entry; the caller settles it. */
  take(id: RequestId): PendingRequest | undefined {
    const entry = this.#pending?.get(id)
    if (entry === undefined) return undefined
    this.#pending!.delete(id)
    entry.timer?.clear()
    entry.detach?.()
    return entry
  }

  /** Reject everything still waiting (on close). */
  rejectAll(error: () => Error): void {
    if (this.#pending === undefined) return
    for (const id of [...this.#pending.keys()]) this.take(id)?.reject(error())
  }
}
