import { createHash } from 'node:crypto'
import type { BucketShape, TokenBuckets } from '../auth/resource/token-bucket.js'
import { MemoryTokenBuckets } from '../auth/resource/token-bucket.js'
import { defaults } from '../config/defaults.js'
import type { Log } from '../observe/log.js'
import type { RedisConnection } from './connection.js'
import { RedisScript } from './script.js'

/**
 * One round trip per take, atomic: refill the bucket for the time since it was last seen (Redis's
 * own clock, so every node agrees), take `cost` when it is there, and answer the milliseconds to
 * wait for it (0: taken) with the milliseconds until the bucket holds one token again. A bucket
 * expires once it would be full again (a full bucket and no bucket are the same).
 */
const TAKE = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local burst = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
if state[1] then
  tokens = math.min(burst, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * perMs)
end
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
else
  wait = math.ceil((cost - tokens) / perMs)
end
local one = 0
if tokens < 1 then one = math.ceil((1 - tokens) / perMs) end
return {wait, one}
`)

export interface RedisTokenBucketsOptions {
  connection: RedisConnection
  /** Whose buckets (the resource identifier): each resource counts its own. */
  name: string
  /** Where the fall-back to this node's buckets is reported while Redis cannot be reached. */
  log?: Log
  now?: () => number
}

/**
 * The token buckets of a deployment: one per principal in Redis for every node
 * (`{prefix}mcp-limit:{resource digest}:{principal digest}`, a hash of two fields that expires once
 * full again; digests keep client ids and subjects out of Redis and bound the key). One round trip
 * per request, except for a principal Redis just refused: its bucket cannot hold a token before
 * the time Redis named, so until then (at most `localRefusalMaxMs`) this node answers 429 itself
 * and a flood costs Redis one round trip per node and window, not one per request.
 *
 * Redis unreachable: the node falls back to buckets of its own (the limit then holds per node,
 * and a warning says so once per `redisFailureLogIntervalMs`). Not 503: an MCP call a limit
 * cannot count is still a call the server can answer (a stateless one needs no Redis at all), and
 * a per-node bucket still stops a flood; the storage the call needs answers 503 itself if down.
 *
 * @example
 * createProtectedMcpApp(server, { ..., rateLimitBuckets: new RedisTokenBuckets({ connection, name: resource }) })
 */
export class RedisTokenBuckets implements TokenBuckets {
  readonly #connection: RedisConnection
  readonly #name: string
  readonly #log: Log | undefined
  readonly #now: () => number
  /** Principals Redis refused, until when: only a shortcut, so at its cap it is simply emptied. */
  readonly #refusedUntil = new Map<string, number>()
  readonly #maxRefused: number
  readonly #fallback: MemoryTokenBuckets
  #lastWarning = Number.NEGATIVE_INFINITY

  constructor(options: RedisTokenBucketsOptions) {
    const d = defaults.observe.limits
    this.#connection = options.connection
    this.#name = createHash('sha256').update(options.name).digest('base64url').slice(0, 16)
    this.#log = options.log
    this.#now = options.now ?? Date.now
    this.#maxRefused = d.maxPrincipals
    this.#fallback = new MemoryTokenBuckets(d.maxPrincipals, this.#now)
  }

  take(group: string, member: string, cost: number, shape: BucketShape): number | Promise<number> {
    // length-prefixed: no group and member pair can spell another's key
    const key = `${group.length}:${group}${member}`
    const until = this.#refusedUntil.get(key)
    if (until !== undefined) {
      const left = until - this.#now()
      if (left > 0) return Math.max(left, Math.ceil((cost - 1) / shape.perMs))
      this.#refusedUntil.delete(key)
    }
    return this.#take(group, member, key, cost, shape)
  }

  async #take(group: string, member: string, key: string, cost: number, shape: BucketShape): Promise<number> {
    const redisKey = this.#connection.key('mcp-limit', this.#name, createHash('sha256').update(key).digest('base64url').slice(0, 22))
    let answer: [number, number]
    try {
      answer = (await TAKE.run(this.#connection, [redisKey], [shape.burst, shape.perMs, cost])) as [number, number]
    } catch (error) {
      this.#warn(error)
      return this.#fallback.take(group, member, cost, shape)
    }
    const [wait, one] = answer
    if (one > 0) {
      if (this.#refusedUntil.size >= this.#maxRefused) this.#refusedUntil.clear()
      this.#refusedUntil.set(key, this.#now() + Math.min(one, defaults.observe.limits.localRefusalMaxMs))
    }
    return wait
  }

  #warn(error: unknown): void {
    const now = this.#now()
    if (now - this.#lastWarning < defaults.observe.limits.redisFailureLogIntervalMs) return
    this.#lastWarning = now
    this.#log?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'MCP rate limits: Redis cannot be reached, each node counts on its own until it can (check the Redis connection)',
    )
  }
}
