// Issue 33: the in-memory token buckets of the MCP rate limit: burst, refill, cost, and the cap
// on how many buckets one process keeps.
import { describe, expect, it } from 'vitest'
import { MemoryTokenBuckets } from '../../../src/auth/resource/token-bucket.js'

const shape = { burst: 3, perMs: 1 / 1000 } // one token a second

describe('MemoryTokenBuckets', () => {
  it('allows the burst, then names the wait, and refills at the rate up to the burst only', () => {
    let now = 1_000_000
    const buckets = new MemoryTokenBuckets(10, () => now)
    expect([1, 2, 3].map(() => buckets.take('client', 'alice', 1, shape))).toEqual([0, 0, 0])
    expect(buckets.take('client', 'alice', 1, shape)).toBe(1000)
    now += 400
    expect(buckets.take('client', 'alice', 1, shape)).toBe(600)
    now += 600
    expect(buckets.take('client', 'alice', 1, shape)).toBe(0)
    now += 60_000
    expect([1, 2, 3, 4].map(() => buckets.take('client', 'alice', 1, shape))).toEqual([0, 0, 0, 1000])
  })

  it('takes a cost only when all of it is there, and keeps clients and subjects apart', () => {
    const buckets = new MemoryTokenBuckets(10, () => 0)
    expect(buckets.take('client', 'bob', 2, shape)).toBe(0)
    expect(buckets.take('client', 'bob', 2, shape)).toBe(1000)
    expect(buckets.take('client', 'bob', 1, shape)).toBe(0)
    expect(buckets.take('other-client', 'bob', 3, shape)).toBe(0)
    expect(buckets.take('client', 'carol', 3, shape)).toBe(0)
  })

  it('keeps at most its cap of buckets, forgetting the oldest (which starts full again)', () => {
    const buckets = new MemoryTokenBuckets(2, () => 0)
    for (const subject of ['a', 'b', 'c', 'd']) buckets.take('client', subject, 3, shape)
    expect(buckets.size).toBe(2)
    expect(buckets.take('client', 'd', 1, shape)).toBeGreaterThan(0)
    expect(buckets.take('client', 'a', 1, shape)).toBe(0)
    expect(buckets.size).toBe(2)
  })
})
