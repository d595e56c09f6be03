// Issue 16: rate limits counted in Redis, shared by every node, failing closed while Redis is away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisRateLimiter } from '../../../src/redis/rate-limiter.js'
import { StorageUnavailableError } from '../../../src/storage/errors.js'
import { RedisConnection } from '../../../src/redis/connection.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())

async function nodes(prefix: string, count = 2): Promise<RedisConnection[]> {
  return Promise.all(Array.from({ length: count }, () => RedisConnection.connect({ url: redis.url, prefix })))
}

describe('RedisRateLimiter', () => {
  it('counts one window for a key across two nodes, then says how long until it resets', async () => {
    const [a, b] = await nodes('shared:')
    try {
      const onA = new RedisRateLimiter({ connection: a!, name: 'token-address', limit: 3, windowSeconds: 60 })
      const onB = new RedisRateLimiter({ connection: b!, name: 'token-address', limit: 3, windowSeconds: 60 })
      expect(await onA.hit('203.0.113.7')).toEqual({ allowed: true })
      expect(await onB.hit('203.0.113.7')).toEqual({ allowed: true })
      expect(await onA.hit('203.0.113.7')).toEqual({ allowed: true })
      const refused = await onB.hit('203.0.113.7')
      expect(refused).toMatchObject({ allowed: false })
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0)
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60)
      // another key, and another limiter's name, have windows of their own
      expect(await onA.hit('198.51.100.1')).toEqual({ allowed: true })
      expect(await new RedisRateLimiter({ connection: a!, name: 'login-address', limit: 3, windowSeconds: 60 }).hit('203.0.113.7')).toEqual({ allowed: true })
    } finally {
      await Promise.all([a!.close(), b!.close()])
    }
  })

  it('keeps no address or account name in Redis, and lets each window expire', async () => {
    const [a] = await nodes('private:', 1)
    try {
      await new RedisRateLimiter({ connection: a!, name: 'login-account', limit: 3, windowSeconds: 60 }).hit('alice@example.com')
      const keys = await a!.client.keys('private:*')
      expect(keys).toHaveLength(1)
      expect(keys[0]).toMatch(/^private:rate:login-account:[A-Za-z0-9_-]{22}$/)
      expect(keys[0]).not.toContain('alice')
      const ttl = await a!.client.pttl(keys[0]!)
      expect(ttl).toBeGreaterThan(55_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
    } finally {
      await a!.close()
    }
  })

  it('starts a new window once the old one is over', async () => {
    const [a] = await nodes('window:', 1)
    try {
      const limiter = new RedisRateLimiter({ connection: a!, name: 'registration-address', limit: 1, windowSeconds: 1 })
      expect(await limiter.hit('k')).toEqual({ allowed: true })
      expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 })
      await new Promise((resolve) => setTimeout(resolve, 1_050))
      expect(await limiter.hit('k')).toEqual({ allowed: true })
    } finally {
      await a!.close()
    }
  })

  it('refuses to answer while Redis is down (StorageUnavailableError, never allowed) and counts again once it is back', async () => {
    const [a] = await nodes('outage:', 1)
    try {
      const limiter = new RedisRateLimiter({ connection: a!, name: 'token-client', limit: 100, windowSeconds: 60 })
      expect(await limiter.hit('c')).toEqual({ allowed: true })
      await redis.stop()
      await expect(limiter.hit('c')).rejects.toBeInstanceOf(StorageUnavailableError)
      await redis.start()
      await expect.poll(() => limiter.hit('c').catch((error: Error) => error.name), { timeout: 8_000, interval: 100 }).toEqual({ allowed: true })
    } finally {
      await a!.close()
    }
  })
})
