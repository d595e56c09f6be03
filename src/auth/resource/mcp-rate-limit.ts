import type { AuthInfo } from '../../auth-info/auth-info.js'
import { defaults } from '../../config/defaults.js'
import { type BucketShape, MemoryTokenBuckets, type TokenBuckets } from './token-bucket.js'

const d = defaults.observe.limits

/** The group of the address groups' buckets: no client id is empty, so none is this one. */
const UNAUTHENTICATED = ''

/**
 * A resource's limits on MCP calls, as configured: a rate and a burst per principal, and what a
 * tool costs (1 unless named here). JSON in a configuration file's `resources[].rateLimit`.
 */
export interface McpRateLimitOptions {
  /** Sustained requests per minute per principal (default `defaults.observe.limits.requestsPerMinute`). */
  requestsPerMinute?: number
  /** Requests at once on a full bucket (default `defaults.observe.limits.burst`). */
  burst?: number
  /** Tokens a `tools/call` of the named tool takes (at most `burst`); other requests take 1. */
  toolCosts?: Readonly<Record<string, number>>
  /** The per-address-group bucket of requests that fail authentication. */
  unauthenticatedRequestsPerMinute?: number
  unauthenticatedBurst?: number
}

/**
 * The fair-use limit of one protected MCP resource: a token bucket per principal (the verified
 * token's subject and client), and one per address group for requests that fail authentication
 * (a flood of bad tokens is limited too, and never spends a valid caller's tokens). The buckets
 * live in this process ({@link MemoryTokenBuckets}) or in Redis for a deployment (one bucket per
 * principal for every node). `take…` answers 0 (allowed) or the milliseconds to wait.
 *
 * @example
 * const limit = new McpRateLimit({ requestsPerMinute: 600, burst: 100, toolCosts: { generate_report: 10 } })
 * const waitMs = limit.takeForPrincipal(info, body) // 0, or how long until the call would pass
 */
export class McpRateLimit {
  readonly #buckets: TokenBuckets
  readonly #principal: BucketShape
  readonly #unauthenticated: BucketShape
  readonly #toolCosts: ReadonlyMap<string, number>

  constructor(options: McpRateLimitOptions = {}, buckets?: TokenBuckets) {
    this.#principal = shape(options.requestsPerMinute ?? d.requestsPerMinute, options.burst ?? d.burst, 'rateLimit')
    this.#unauthenticated = shape(
      options.unauthenticatedRequestsPerMinute ?? d.unauthenticatedRequestsPerMinute,
      options.unauthenticatedBurst ?? d.unauthenticatedBurst,
      'rateLimit.unauthenticated',
    )
    const costs = new Map<string, number>()
    for (const [tool, cost] of Object.entries(options.toolCosts ?? {})) {
      if (!Number.isInteger(cost) || cost < 0 || cost > this.#principal.burst) {
        throw new TypeError(`rateLimit.toolCosts.${tool} must be a whole number from 0 to the burst (${this.#principal.burst}), or the tool could never be called`)
      }
      costs.set(tool, cost)
    }
    this.#toolCosts = costs
    this.#buckets = buckets ?? new MemoryTokenBuckets(d.maxPrincipals)
  }

  /** Some tools cost more than 1: the body of a POST must be read to know a request's cost. */
  get needsBody(): boolean {
    return this.#toolCosts.size > 0
  }

  /** Takes the cost of `body` (1 when not read) from the principal's bucket; 0 or the ms to wait. */
  takeForPrincipal(info: AuthInfo, body: unknown): number | Promise<number> {
    return this.#buckets.take(info.clientId, info.subject ?? '', this.#toolCosts.size === 0 ? 1 : this.costOf(body), this.#principal)
  }

  /** Takes 1 from the bucket of failed authentications of `addressGroup`; 0 or the ms to wait. */
  takeForAddress(addressGroup: string): number | Promise<number> {
    return this.#buckets.take(UNAUTHENTICATED, addressGroup, 1, this.#unauthenticated)
  }

  /** What a request body costs: each message 1, a `tools/call` its tool's cost. */
  costOf(body: unknown): number {
    if (Array.isArray(body)) {
      let cost = 0
      for (const message of body) cost += this.#messageCost(message)
      return Math.max(1, cost)
    }
    return this.#messageCost(body)
  }

  #messageCost(message: unknown): number {
    if (typeof message !== 'object' || message === null) return 1
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } }
    if (method !== 'tools/call' || typeof params?.name !== 'string') return 1
    return this.#toolCosts.get(params.name) ?? 1
  }
}

function shape(perMinute: number, burst: number, what: string): BucketShape {
  if (!(perMinute > 0) || !Number.isFinite(perMinute)) throw new TypeError(`${what}: requestsPerMinute must be a positive number`)
  if (!Number.isInteger(burst) || burst < 1) throw new TypeError(`${what}: burst must be a whole number of at least 1`)
  return { burst, perMs: perMinute / 60_000 }
}

/** Retry-After (whole seconds, at least 1) for a wait of `ms`. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000))
}
