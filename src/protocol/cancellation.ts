import type { RequestId } from '../jsonrpc/index.js'

/**
 * One inbound request being handled. Its AbortSignal is made on first use: most handlers never
 * look at it, and an AbortController per request is a measurable share of a tools/call. A
 * cancellation that comes before anyone asked for the signal is remembered and shows at once.
 */
export class InFlightRequest {
  readonly cancellable: boolean
  #controller: AbortController | undefined
  #reason: Error | undefined

  constructor(cancellable = true) {
    this.cancellable = cancellable
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#reason !== undefined) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  get aborted(): boolean {
    return this.#reason !== undefined
  }

  abort(reason: Error): void {
    if (this.#reason !== undefined) return
    this.#reason = reason
    this.#controller?.abort(reason)
  }
}

/**
 * Inbound requests being handled, each with the signal its handler sees.
 * `notifications/cancelled` aborts one; a closing connection aborts all.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
 */
export class InFlightRequests {
  /** Only while requests are in flight: an idle connection (thousands of idle sessions) holds no table. */
  #entries: Map<RequestId, InFlightRequest> | undefined

  has(id: RequestId): boolean {
    return this.#entries?.has(id) ?? false
  }

  /**
   * Track a request being handled. `cancellable: false` (initialize) makes `cancel` ignore it;
   * a closing connection still aborts it.
   */
  begin(id: RequestId, options: { cancellable?: boolean } = {}): InFlightRequest {
    const entry = new InFlightRequest(options.cancellable ?? true)
    ;(this.#entries ??= new Map()).set(id, entry)
    return entry
  }

  end(id: RequestId, entry: InFlightRequest): void {
    const entries = this.#entries
    if (entries?.get(id) !== entry) return
    entries.delete(id)
    if (entries.size === 0) this.#entries = undefined
  }

  /** Abort one handler; unknown, finished or uncancellable ids are ignored, as the spec asks. */
  cancel(id: RequestId, reason: string | undefined): void {
    const entry = this.#entries?.get(id)
    if (entry?.cancellable) entry.abort(new Error(reason ?? 'cancelled by the peer'))
  }

  abortAll(reason: string): void {
    if (this.#entries === undefined) return
    for (const entry of this.#entries.values()) entry.abort(new Error(reason))
    this.#entries = undefined
  }
}
