import { BoundedMap } from '../../../collections/bounded-map.js'

/** What a limiter says about one hit: allowed, or how long until the key's window resets. */
export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number }

/**
 * A fixed-window limit on some keys (client address, client id, account name). The in-process
 * {@link RateLimiter} answers at once; a shared one (RedisRateLimiter) answers a promise and
 * rejects with StorageUnavailableError when its store is away, so callers always `await` it.
 */
export interface Limiter {
  /** Counts one hit for `key`; when over the limit, says how long until the window resets. */
  hit(key: string): RateLimitVerdict | Promise<RateLimitVerdict>
}

const ALLOWED: RateLimitVerdict = Object.freeze({ allowed: true })

/**
 * A fixed-window counter per key, in this process. Bounded: past `maxKeys` the oldest windows
 * are forgotten first, so many distinct keys cannot grow memory.
 */
export class RateLimiter implements Limiter {
  readonly #limit: number
  readonly #windowMs: number
  readonly #now: () => number
  readonly #windows: BoundedMap<string, { count: number; resetAt: number }>

  constructor(options: { limit: number; windowSeconds: number; maxKeys: number; now?: () => number }) {
    this.#limit = options.limit
    this.#windowMs = options.windowSeconds * 1000
    this.#windows = new BoundedMap(options.maxKeys, { refreshOnSet: true })
    this.#now = options.now ?? Date.now
  }

  hit(key: string): RateLimitVerdict {
    const now = this.#now()
    let window = this.#windows.get(key)
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.#windowMs }
      this.#windows.set(key, window)
    }
    window.count += 1
    if (window.count <= this.#limit) return ALLOWED
    return { allowed: false, retryAfterSeconds: Math.ceil((window.resetAt - now) / 1000) }
  }
}
