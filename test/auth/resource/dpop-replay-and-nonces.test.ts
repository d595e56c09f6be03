/**
 * Issue 17: what keeps a DPoP proof to one request — the replay caches (one process, bounded per
 * client key and in all; Redis, shared by processes) — and the stateless server nonces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DpopNonces } from '../../../src/auth/resource/dpop-nonces.js'
import { MemoryDpopReplayCache } from '../../../src/auth/resource/dpop-replay-cache.js'
import { RedisDpopReplayCache } from '../../../src/redis/dpop-replay-cache.js'
import { RedisConnection } from '../../../src/redis/connection.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

describe('MemoryDpopReplayCache', () => {
  it('accepts a jti once per key until its window ends', () => {
    let now = 1_000
    const cache = new MemoryDpopReplayCache({ now: () => now })
    expect(cache.remember('key-a', 'j1', 2_000)).toBe(true)
    expect(cache.remember('key-a', 'j1', 2_000)).toBe(false)
    // the same jti under another key is another proof
    expect(cache.remember('key-b', 'j1', 2_000)).toBe(true)
    now = 2_001
    expect(cache.remember('key-a', 'j1', 3_000)).toBe(true)
  })

  it("bounds each key: a flooding client forgets its own oldest proofs, never another client's", () => {
    const cache = new MemoryDpopReplayCache({ maxEntries: 100, maxEntriesPerKey: 3, now: () => 0 })
    expect(cache.remember('victim', 'v1', 10)).toBe(true)
    for (let i = 0; i < 50; i++) cache.remember('flood', `f${i}`, 10)
    expect(cache.size).toBe(4)
    expect(cache.remember('victim', 'v1', 10)).toBe(false)
    // the flood's newest three are still known, its first ones were let go
    expect(cache.remember('flood', 'f49', 10)).toBe(false)
    expect(cache.remember('flood', 'f0', 10)).toBe(true)
  })

  it('bounds the whole cache: when full, the key holding the most entries gives up its oldest', () => {
    const cache = new MemoryDpopReplayCache({ maxEntries: 4, maxEntriesPerKey: 10, now: () => 0 })
    cache.remember('a', 'a1', 10)
    for (const jti of ['b1', 'b2', 'b3']) cache.remember('b', jti, 10)
    expect(cache.remember('c', 'c1', 10)).toBe(true)
    expect(cache.size).toBe(4)
    expect(cache.remember('a', 'a1', 10)).toBe(false)
    expect(cache.remember('b', 'b1', 10)).toBe(true)
  })
})

describe('RedisDpopReplayCache', () => {
  let redis: RedisServer
  const connections: RedisConnection[] = []
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()))
    await redis.close()
  })

  it('refuses on one process a proof another process accepted, and forgets it when its window ends', async () => {
    const a = await RedisConnection.connect({ url: redis.url, prefix: 'dpop-test:' })
    const b = await RedisConnection.connect({ url: redis.url, prefix: 'dpop-test:' })
    connections.push(a, b)
    const nodeA = new RedisDpopReplayCache(a)
    const nodeB = new RedisDpopReplayCache(b)
    expect(await nodeA.remember('key', 'jti-1', Date.now() + 300)).toBe(true)
    expect(await nodeB.remember('key', 'jti-1', Date.now() + 300)).toBe(false)
    expect(await nodeB.remember('other-key', 'jti-1', Date.now() + 300)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await nodeB.remember('key', 'jti-1', Date.now() + 300)).toBe(true)
    // keys hold digests only: no jti or thumbprint in plain text
    const keys = await a.run((client) => client.keys('dpop-test:*'))
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.join(' ')).not.toContain('jti-1')
  })
})

describe('DpopNonces', () => {
  it('accepts the current nonce, the previous one as stale, and neither older nor forged ones', () => {
    let now = 10 * 60_000
    const nonces = new DpopNonces({ secret: 'a'.repeat(32), lifetimeMs: 60_000, now: () => now })
    const first = nonces.current()
    expect(nonces.check(first)).toBe(true)
    now += 30_000
    expect(nonces.check(first)).toBe('stale')
    expect(nonces.current()).not.toBe(first)
    now += 30_000
    expect(nonces.check(first)).toBe(false)
    expect(nonces.check(undefined)).toBe(false)
    expect(nonces.check(`${first.split('.')[0]}.forged`)).toBe(false)
  })

  it('is shared by processes that share the secret, and by no one else', () => {
    const now = () => 5 * 60_000
    const one = new DpopNonces({ secret: 's'.repeat(32), now })
    expect(new DpopNonces({ secret: 's'.repeat(32), now }).check(one.current())).toBe(true)
    expect(new DpopNonces({ secret: 't'.repeat(32), now }).check(one.current())).toBe(false)
    expect(() => new DpopNonces({ secret: 'short' })).toThrow(/32 bytes/)
  })
})
