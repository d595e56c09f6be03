/**
 * A fixed-window counter per key (client address, client id, account name). Bounded: past
 * `maxKeys` the oldest windows are forgotten first, so many distinct keys cannot grow memory.
 */
export class RateLimiter {
  readonly #limit: number
  readonly #windowMs: number
  readonly #maxKeys: number
  readonly #now: () => number
  readonly #windows = new Map<string, { count: number; resetAt: number }>()

  constructor(options: { limit: number; windowSeconds: number; maxKeys: number; now?: () => number }) {
    this.#limit = options.limit
    this.#windowMs = options.windowSeconds * 1000
    this.#maxKeys = options.maxKeys
    this.#now = options.now ?? Date.now
  }

  /** Counts one hit for `key`; when over the limit, says how long until the window resets. */
  hit(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const now = this.#now()
    let window = this.#windows.get(key)
    if (window === undefined || window.resetAt <= now) {
      this.#windows.delete(key)
      window = { count: 0, resetAt: now + this.#windowMs }
      this.#windows.set(key, window)
      if (this.#windows.size > this.#maxKeys) {
        const oldest = this.#windows.keys().next().value
        if (oldest !== undefined) this.#windows.delete(oldest)
      }
    }
    window.count += 1
    if (window.count <= this.#limit) return { allowed: true }
    return { allowed: false, retryAfterSeconds: Math.ceil((window.resetAt - now) / 1000) }
  }
}
