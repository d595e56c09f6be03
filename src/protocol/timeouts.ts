export interface TimerOptions {
  timeoutMs: number
  maxTotalTimeoutMs: number
  resetOnProgress: boolean
}

/**
 * The timeout of one outgoing request: fires after `timeoutMs`; `touch()` (on progress) restarts
 * it when allowed, but never past `maxTotalTimeoutMs` from the start.
 */
export class RequestTimer {
  readonly #options: TimerOptions
  readonly #onTimeout: (reason: string) => void
  readonly #startedAt = Date.now()
  #handle: NodeJS.Timeout | undefined

  constructor(options: TimerOptions, onTimeout: (reason: string) => void) {
    this.#options = options
    this.#onTimeout = onTimeout
    this.#arm(Math.min(options.timeoutMs, options.maxTotalTimeoutMs))
  }

  /** Called on progress: restart the timer if the options say so. */
  touch(): void {
    if (!this.#options.resetOnProgress || this.#handle === undefined) return
    const elapsed = Date.now() - this.#startedAt
    const left = this.#options.maxTotalTimeoutMs - elapsed
    if (left <= 0) return
    clearTimeout(this.#handle)
    this.#arm(Math.min(this.#options.timeoutMs, left))
  }

  clear(): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle)
    this.#handle = undefined
  }

  #arm(ms: number): void {
    this.#handle = setTimeout(() => {
      this.#handle = undefined
      const total = Date.now() - this.#startedAt >= this.#options.maxTotalTimeoutMs
      this.#onTimeout(total ? `maximum total timeout of ${this.#options.maxTotalTimeoutMs} ms exceeded` : `no response within ${this.#options.timeoutMs} ms`)
    }, ms)
    // an outstanding request alone must not keep the process alive
    this.#handle.unref?.()
  }
}
