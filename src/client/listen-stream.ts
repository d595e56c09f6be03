/** What a `subscriptions/listen` stream asks for (2026-07-28). */
export interface ListenFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
}

/** Opens one listen request; resolves when the server ends the stream, rejects when it fails. */
export type OpenListen = (filter: ListenFilter, signal: AbortSignal) => Promise<unknown>

/**
 * The client's one `subscriptions/listen` stream, which replaces the GET stream and
 * `resources/subscribe` in 2026-07-28. A new filter opens a new stream and cancels the old one
 * (the filter of a stream is fixed when it opens); `update` resolves once the new stream is
 * acknowledged (`notifications/subscriptions/acknowledged`, passed to `acknowledged()`), so
 * notices the caller asked for are not missed after it returns. An empty filter closes it.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 */
export class ListenStream {
  readonly #open: OpenListen
  readonly #onError: (error: Error) => void
  #current: AbortController | undefined
  #onAcknowledged: (() => void) | undefined

  constructor(open: OpenListen, onError: (error: Error) => void) {
    this.#open = open
    this.#onError = onError
  }

  update(filter: ListenFilter): Promise<void> {
    this.#current?.abort()
    this.#current = undefined
    this.#settle()
    if (isEmpty(filter)) return Promise.resolve()
    const controller = new AbortController()
    this.#current = controller
    return new Promise<void>((resolve, reject) => {
      let acknowledged = false
      this.#onAcknowledged = () => {
        acknowledged = true
        resolve()
      }
      this.#open(filter, controller.signal).then(
        () => {
          // the server ended the stream (it closes, say): nothing more will come on it
          if (this.#current === controller) this.#current = undefined
          if (!acknowledged) resolve()
        },
        (error: unknown) => {
          if (this.#current === controller) this.#current = undefined
          if (controller.signal.aborted) return resolve()
          const failure = error instanceof Error ? error : new Error(String(error))
          if (acknowledged) this.#onError(failure)
          else reject(failure)
        },
      )
    })
  }

  /** The server acknowledged the stream opened last. */
  acknowledged(): void {
    this.#settle()
  }

  close(): void {
    this.#current?.abort()
    this.#current = undefined
    this.#settle()
  }

  #settle(): void {
    const done = this.#onAcknowledged
    this.#onAcknowledged = undefined
    done?.()
  }
}

function isEmpty(filter: ListenFilter): boolean {
  return !filter.toolsListChanged && !filter.promptsListChanged && !filter.resourcesListChanged && (filter.resourceSubscriptions ?? []).length === 0
}
