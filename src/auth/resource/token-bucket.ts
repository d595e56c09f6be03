import { BoundedMap } from '../../collections/bounded-map.js'

/** A bucket's size and how fast it fills: `burst` tokens at most, `perMs` tokens a millisecond. */
export interface BucketShape {
  readonly burst: number
  readonly perMs: number
}

/**
 * Where the buckets of a limit are kept: one node's memory ({@link MemoryTokenBuckets}) or Redis
 * (`RedisTokenBuckets`, one bucket per principal for every node). `take` answers 0 when `cost`
 * tokens were taken, else the milliseconds until they will be there (nothing is taken then).
 * A memory store answers at once, without a promise: the hot path awaits only Redis.
 */
export interface TokenBuckets {
  take(key: string, cost: number, shape: BucketShape): number | Promise<number>
}

/** One bucket: its tokens when last seen, and when. Mutated in place: no allocation per request. */
interface Bucket {
  tokens: number
  at: number
}

/**
 * Token buckets in one process's memory, at most `maxBuckets` of them (past that the oldest is
 * forgotten, and starts full again). A take is a map lookup and a little arithmetic, ~0.1 µs.
 *
 * @example
 * const buckets = new MemoryTokenBuckets(100_000)
 * buckets.take('alice client-1', 1, { burst: 100, perMs: 10 / 1000 }) // 0: allowed
 */
export class MemoryTokenBuckets implements TokenBuckets {
  readonly #buckets: BoundedMap<string, Bucket>
  readonly #now: () => number

  constructor(maxBuckets: number, now: () => number = Date.now) {
    this.#buckets = new BoundedMap(Math.max(1, maxBuckets))
    this.#now = now
  }

  get size(): number {
    return this.#buckets.size
  }

  take(key: string, cost: number, shape: BucketShape): number {
    const now = this.#now()
    const bucket = this.#buckets.get(key)
    if (bucket === undefined) {
      if (cost > shape.burst) return Math.ceil(cost / shape.perMs)
      this.#buckets.set(key, { tokens: shape.burst - cost, at: now })
      return 0
    }
    const tokens = Math.min(shape.burst, bucket.tokens + Math.max(0, now - bucket.at) * shape.perMs)
    bucket.at = now
    if (tokens >= cost) {
      bucket.tokens = tokens - cost
      return 0
    }
    bucket.tokens = tokens
    return Math.ceil((cost - tokens) / shape.perMs)
  }
}
