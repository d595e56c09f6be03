import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StorageUnavailableError } from '../../src/storage/errors.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())

const until = async (check: () => Promise<boolean>, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('RedisConnection', () => {
  it('names every key under its prefix', async () => {
    const connection = await RedisConnection.connect({ url: redis.url, prefix: 'test-a:' })
    try {
      await connection.run((client) => client.set(connection.key('x', 'y'), '1'))
      expect(await connection.client.get('test-a:x:y')).toBe('1')
    } finally {
      await connection.close()
    }
  })

  it('delivers a published message to subscribers of that channel only, until they unsubscribe', async () => {
    const a = await RedisConnection.connect({ url: redis.url, prefix: 'bus:' })
    const b = await RedisConnection.connect({ url: redis.url, prefix: 'bus:' })
    try {
      const heard: string[] = []
      const stop = await b.subscribe('news', (message) => heard.push(message))
      await b.subscribe('other', (message) => heard.push(`other:${message}`))
      await a.publish('news', 'one')
      await until(async () => heard.length === 1)
      await stop()
      await a.publish('news', 'two')
      await a.publish('other', 'three')
      await until(async () => heard.length === 2)
      expect(heard).toEqual(['one', 'other:three'])
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('refuses a URL that is not redis:// and says why when nothing answers', async () => {
    await expect(RedisConnection.connect({ url: 'http://127.0.0.1:1' })).rejects.toThrow(/not a Redis URL/)
    await expect(RedisConnection.connect({ url: 'redis://:secret@127.0.0.1:1', connectTimeoutMs: 300 })).rejects.toSatisfy(
      (error: Error) => error instanceof StorageUnavailableError && /cannot reach Redis/.test(error.message) && !error.message.includes('secret'),
    )
  })

  it('fails fast with StorageUnavailableError while Redis is down, and works again once it is back', async () => {
    const connection = await RedisConnection.connect({ url: redis.url })
    try {
      await redis.stop()
      const started = Date.now()
      await expect(connection.run((client) => client.get(connection.key('k')))).rejects.toBeInstanceOf(StorageUnavailableError)
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(await connection.ping()).toBe(false)
      await redis.start()
      await until(() => connection.ping())
      await connection.run((client) => client.set(connection.key('k'), 'v'))
      expect(await connection.run((client) => client.get(connection.key('k')))).toBe('v')
    } finally {
      await connection.close()
    }
  })
})
