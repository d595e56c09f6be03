import type { RequestId } from '../jsonrpc/index.js'

/**
 * Inbound requests being handled, each with the AbortController its handler's signal comes
 * from. `notifications/cancelled` aborts one; a closing connection aborts all.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
 */
export class InFlightRequests {
  readonly #entries = new Map<RequestId, { controller: AbortController; cancellable: boolean }>()

  has(id: RequestId): boolean {
    return this.#entries.has(id)
  }

  /**
   * Track a request being handled. `cancellable: false` (initialize) makes `cancel` ignore it;
   * a closing connection still aborts it.
   */
  begin(id: RequestId, options: { cancellable?: boolean } = {}): AbortController {
    const controller = new AbortController()
    this.#entries.set(id, { controller, cancellable: options.cancellable ?? true })
    return controller
  }

  end(id: RequestId, controller: AbortController): void {
    if (this.#entries.get(id)?.controller === controller) this.#entries.delete(id)
  }

  /** Abort one handler; unknown, finished or uncancellable ids are ignored, as the spec asks. */
  cancel(id: RequestId, reason: string | undefined): void {
    const entry = this.#entries.get(id)
    if (entry?.cancellable) entry.controller.abort(new Error(reason ?? 'cancelled by the peer'))
  }

  abortAll(reason: string): void {
    for (const { controller } of this.#entries.values()) controller.abort(new Error(reason))
    this.#entries.clear()
  }
}
