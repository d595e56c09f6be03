import type { RequestId } from '../jsonrpc/index.js'

/**
 * Inbound requests being handled, each with the AbortController its handler's signal comes
 * from. `notifications/cancelled` aborts one; a closing connection aborts all.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
 */
export class InFlightRequests {
  readonly #controllers = new Map<RequestId, AbortController>()

  has(id: RequestId): boolean {
    return this.#controllers.has(id)
  }

  begin(id: RequestId): AbortController {
    const controller = new AbortController()
    this.#controllers.set(id, controller)
    return controller
  }

  end(id: RequestId, controller: AbortController): void {
    if (this.#controllers.get(id) === controller) this.#controllers.delete(id)
  }

  /** Abort one handler; unknown or finished ids are ignored, as the spec asks. */
  cancel(id: RequestId, reason: string | undefined): void {
    this.#controllers.get(id)?.abort(new Error(reason ?? 'cancelled by the peer'))
  }

  abortAll(reason: string): void {
    for (const controller of this.#controllers.values()) controller.abort(new Error(reason))
    this.#controllers.clear()
  }
}
