import { defaults } from '../config/defaults.js'
import { HttpError } from '../net/http-error.js'

/** A place for one child in the caps, held from before it starts until it has exited. */
export interface ChildSlot {
  readonly key: string
  /** Give the place back (once; later calls do nothing). */
  release(): void
}

export interface ChildPoolOptions {
  maxChildren: number
  maxChildrenPerPrincipal: number
  restartDelayMs: number
  maxRestartDelayMs: number
  restartResetMs: number
}

interface Failures {
  count: number
  /** No start for this key before this time (ms since the epoch). */
  until: number
}

/**
 * The gateway's caps on children, overall and per principal, and the back-off of a principal
 * whose children keep failing. A start over a cap is refused with 429 (the principal's) or 503
 * (everyone's) and `Retry-After`, before any process is spawned; so is a start during a back-off.
 */
export class ChildPool {
  readonly #options: ChildPoolOptions
  readonly #byKey = new Map<string, number>()
  readonly #failures = new Map<string, Failures>()
  #total = 0

  constructor(options: Partial<ChildPoolOptions> = {}) {
    const g = defaults.gateway
    this.#options = {
      maxChildren: options.maxChildren ?? g.maxChildren,
      maxChildrenPerPrincipal: options.maxChildrenPerPrincipal ?? g.maxChildrenPerPrincipal,
      restartDelayMs: options.restartDelayMs ?? g.restartDelayMs,
      maxRestartDelayMs: options.maxRestartDelayMs ?? g.maxRestartDelayMs,
      restartResetMs: options.restartResetMs ?? g.restartResetMs,
    }
  }

  /** Children running or starting, overall. */
  get size(): number {
    return this.#total
  }

  /** Children running or starting for `key`. */
  countOf(key: string): number {
    return this.#byKey.get(key) ?? 0
  }

  /** Hold a place for one more child of `key`, or throw the refusal (429 / 503 with Retry-After). */
  reserve(key: string): ChildSlot {
    this.checkBackOff(key)
    const own = this.#byKey.get(key) ?? 0
    const retryAfter = String(defaults.gateway.capRetryAfterSeconds)
    if (own >= this.#options.maxChildrenPerPrincipal) {
      throw new HttpError(429, `Too Many Requests: this client already runs ${own} MCP server processes behind the gateway (its limit); end a session, or retry later`, {
        headers: { 'Retry-After': retryAfter },
        data: { retryAfter: Number(retryAfter) },
      })
    }
    if (this.#total >= this.#options.maxChildren) {
      throw new HttpError(503, `Service Unavailable: the gateway runs ${this.#total} MCP server processes (its limit); retry later`, {
        headers: { 'Retry-After': retryAfter },
        data: { retryAfter: Number(retryAfter) },
      })
    }
    this.#byKey.set(key, own + 1)
    this.#total++
    let held = true
    return {
      key,
      release: () => {
        if (!held) return
        held = false
        this.#total--
        const left = (this.#byKey.get(key) ?? 1) - 1
        if (left <= 0) this.#byKey.delete(key)
        else this.#byKey.set(key, left)
      },
    }
  }

  /** Throw 503 with Retry-After while `key`'s children are in a restart back-off. */
  checkBackOff(key: string): void {
    const failures = this.#failures.get(key)
    if (failures === undefined) return
    const now = Date.now()
    if (failures.until <= now) return
    const seconds = Math.max(1, Math.ceil((failures.until - now) / 1000))
    throw new HttpError(
      503,
      `Service Unavailable: the MCP server process exited unexpectedly (${failures.count} time${failures.count === 1 ? '' : 's'} in a row); the gateway starts it again in ${seconds} s`,
      { headers: { 'Retry-After': String(seconds) }, data: { retryAfter: seconds } },
    )
  }

  /** A child of `key` failed after running `ranMs`: the next start waits (doubling per failure). */
  failed(key: string, ranMs: number): void {
    const o = this.#options
    const now = Date.now()
    const previous = this.#failures.get(key)
    // a child that ran a healthy while starts the count again
    const count = previous === undefined || ranMs >= o.restartResetMs ? 1 : previous.count + 1
    const delay = Math.min(o.restartDelayMs * 2 ** (count - 1), o.maxRestartDelayMs)
    this.#failures.set(key, { count, until: now + delay })
  }

  /** Forget back-offs long over (kept bounded by the principals whose children failed lately). */
  sweep(): void {
    const before = Date.now() - this.#options.restartResetMs
    for (const [key, failures] of this.#failures) if (failures.until < before) this.#failures.delete(key)
  }
}
