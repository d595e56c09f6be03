import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StorageUnavailableError } from '../../src/storage/errors.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { createRedisStorage } from '../../src/redis/redis-storage.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import { describeStorageContract } from './storage-contract.js'

let redis: RedisServer
let connection: RedisConnection
beforeAll(async () => {
  redis = await startRedisServer()
  connection = await RedisConnection.connect({ url: redis.url })
})
afterAll(async () => {
  await connection.close()
  await redis.close()
})

// each backend of the contract on a prefix of its own: an empty store, as the contract expects
let opened = 0
describeStorageContract(
  'createRedisStorage',
  async (clock) => {
    const own = await RedisConnection.connect({ url: redis.url, prefix: `contract-${++opened}:` })
    const storage = createRedisStorage({ connection: own, now: () => clock.now })
    return { ...storage, close: () => own.close() }
  },
  { revisions: false },
)

describe('createRedisStorage on Redis itself', () => {
  it('keeps no token id or payload outside the prefix, and gives records a Redis lifetime', async () => {
    const own = await RedisConnection.connect({ url: redis.url, prefix: 'lifetime:' })
    try {
      const storage = createRedisStorage({ connection: own })
      await storage.adapter('Session').upsert('s1', { uid: 'u1', accountId: 'alice' }, 30)
      await storage.adapter('Client').upsert('c1', { client_id: 'c1' })
      const keys = (await connection.client.keys('lifetime:*')).sort()
      expect(keys).toEqual(['lifetime:oidc:Client:r:c1', 'lifetime:oidc:Session:r:s1', 'lifetime:oidc:Session:uid:u1'])
      expect(await connection.client.pttl('lifetime:oidc:Session:r:s1')).toBeGreaterThan(29_000)
      expect(await connection.client.pttl('lifetime:oidc:Session:uid:u1')).toBeGreaterThan(29_000)
      expect(await connection.client.pttl('lifetime:oidc:Client:r:c1')).toBe(-1)
    } finally {
      await own.close()
    }
  })

  it('refuses a record written in another format version instead of misreading it', async () => {
    const own = await RedisConnection.connect({ url: redis.url, prefix: 'version:' })
    try {
      await connection.client.hset('version:oidc:Grant:r:g1', 'v', '2', 'd', '{}')
      await expect(createRedisStorage({ connection: own }).adapter('Grant').find('g1')).rejects.toThrow(/format version "2"/)
    } finally {
      await own.close()
    }
  })

  it('fails with StorageUnavailableError while Redis is down and serves again once it is back', async () => {
    const own = await RedisConnection.connect({ url: redis.url, prefix: 'outage:' })
    try {
      const storage = createRedisStorage({ connection: own })
      await storage.adapter('Grant').upsert('g1', { grantId: 'g1' }, 60)
      await redis.stop()
      await expect(storage.adapter('Grant').find('g1')).rejects.toBeInstanceOf(StorageUnavailableError)
      await expect(storage.records.put('accounts', 'a', {})).rejects.toBeInstanceOf(StorageUnavailableError)
      await redis.start()
      const deadline = Date.now() + 5_000
      while (!(await own.ping()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      // without persistence the restarted Redis is empty: what matters is that it serves again
      await storage.adapter('Grant').upsert('g2', { grantId: 'g2' }, 60)
      expect(await storage.adapter('Grant').find('g2')).toEqual({ grantId: 'g2' })
    } finally {
      await own.close()
    }
  })
})
