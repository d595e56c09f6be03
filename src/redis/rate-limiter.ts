import { createHash } from 'node:crypto'
import type { RedisConnection } from './connection.js'
import { RedisScript } from './script.js'
import type { Limiter, RateLimitVerdict } from '../auth/server/middleware/rate-limiter.js'

/**
 * One round trip per hit: count it, start the window on the first hit (a key left without an
 * expiry is given one too), and answer the count with the milliseconds left in the window.
 */
const HIT = new RedisScript(`
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`)

/**
 * The fixed-window policy of {@link RateLimiter}, counted in Redis so every node of a deployment
 * shares each window: twenty registrations per address means twenty in all, whichever nodes they
 * reach. A window is a key `{prefix}rate:{name}:{digest of the key}` that expires with the window
 * (digests bound the key size and keep addresses and account names out of Redis).
 *
 * Fails closed: while Redis is unreachable `hit` rejects with StorageUnavailableError, which the
 * endpoints answer with 503 `temporarily_unavailable` and Retry-After. Letting requests through
 * uncounted would turn a Redis outage into an open door for password guessing and registration
 * floods; the storage those requests need is down anyway.
 *
 * @example
 * const limiter = new RedisRateLimiter({ connection, name: 'token-address', limit: 600, windowSeconds: 60 })
 * const verdict = await limiter.hit('203.0.113.7')
 */
export class RedisRateLimiter implements Limiter {
  readonly #connection: RedisConnection
  readonly #name: string
  readonly #limit: number
  readonly #windowMs: number

  constructor(options: { connection: RedisConnection; name: string; limit: number; windowSeconds: number }) {
    this.#connection = options.connection
    this.#name = options.name
    this.#limit = options.limit
    this.#windowMs = options.windowSeconds * 1000
  }

  async hit(key: string): Promise<RateLimitVerdict> {
    const digest = createHash('sha256').update(key).digest('base64url').slice(0, 22)
    const redisKey = this.#connection.key('rate', this.#name, digest)
    const [count, ttlMs] = (await HIT.run(this.#connection, [redisKey], [this.#windowMs])) as [number, number]
    if (count <= this.#limit) return { allowed: true }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) }
  }
}
