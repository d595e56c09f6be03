/**
 * Issue 33: the token buckets of the MCP rate limit in Redis (one bucket per principal for every
 * node), against a real redis-server: the Lua bucket's burst, refill and costs; two connections
 * (two nodes) sharing one bucket; the local shortcut after a refusal; the fall-back while Redis
 * is down.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { RedisConnection } from '../../src/redis/connection.js'
import { RedisTokenBuckets } from '../../src/redis/token-bucket.js'
import { createLog } from '../../src/observe/log.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let redis: RedisServer
const connections: RedisConnection[] = []
let prefixes = 0

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()))
})

async function connect(share?: RedisConnection): Promise<RedisConnection> {
  const connection = await RedisConnection.connect({ url: redis.url, prefix: share?.prefix ?? `limits${++prefixes}:` })
  connections.push(connection)
  return connection
}

const take = async (buckets: RedisTokenBuckets, key: string, cost: number, shape: { burst: number; perMs: number }) => buckets.take('client', key, cost, shape)

describe('RedisTokenBuckets', () => {
  it('allows a burst, then answers how long to wait, and refills at the rate', async () => {
    const buckets = new RedisTokenBuckets({ connection: await connect(), name: 'https://mcp.example/mcp' })
    const shape = { burst: 3, perMs: 20 / 1000 } // 20 a second: one token every 50 ms
    expect([await take(buckets, 'alice', 1, shape), await take(buckets, 'alice', 1, shape), await take(buckets, 'alice', 1, shape)]).toEqual([0, 0, 0])
    const wait = await take(buckets, 'alice', 1, shape)
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(50)
    await new Promise((resolve) => setTimeout(resolve, wait + 60))
    expect(await take(buckets, 'alice', 1, shape)).toBe(0)
  })

  it('takes a cost, and refuses a cost larger than what is left without taking anything', async () => {
    const buckets = new RedisTokenBuckets({ connection: await connect(), name: 'r' })
    const shape = { burst: 5, perMs: 1 / 60_000 }
    expect(await take(buckets, 'bob', 3, shape)).toBe(0)
    expect(await take(buckets, 'bob', 3, shape)).toBeGreaterThan(0)
    expect(await take(buckets, 'bob', 2, shape)).toBe(0)
  })

  it('shares one bucket per principal between nodes, and keeps principals and resources apart', async () => {
    const first = await connect()
    const nodeA = new RedisTokenBuckets({ connection: first, name: 'r' })
    const nodeB = new RedisTokenBuckets({ connection: await connect(first), name: 'r' })
    const otherResource = new RedisTokenBuckets({ connection: first, name: 'r2' })
    const shape = { burst: 4, perMs: 1 / 60_000 }
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await take(i % 2 === 0 ? nodeA : nodeB, 'carol', 1, shape))
    expect(answers).toEqual([0, 0, 0, 0])
    expect(await take(nodeA, 'carol', 1, shape)).toBeGreaterThan(0)
    expect(await take(nodeB, 'carol', 1, shape)).toBeGreaterThan(0)
    expect(await take(nodeB, 'dave', 1, shape)).toBe(0)
    expect(await take(otherResource, 'carol', 1, shape)).toBe(0)
    // nothing of the principal's name reaches Redis
    const keys = await first.run((client) => client.keys('*'))
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.join(' ')).not.toMatch(/carol|dave/)
  })

  it('refuses a principal Redis just refused without asking Redis again until its bucket can hold a token', async () => {
    const connection = await connect()
    const buckets = new RedisTokenBuckets({ connection, name: 'r' })
    const shape = { burst: 1, perMs: 1 / 60_000 }
    expect(await take(buckets, 'erin', 1, shape)).toBe(0)
    const before = Number((await connection.run((client) => client.info('stats'))).match(/total_commands_processed:(\d+)/)![1])
    const local = buckets.take('client', 'erin', 1, shape)
    expect(typeof local).toBe('number')
    expect(local).toBeGreaterThan(0)
    const after = Number((await connection.run((client) => client.info('stats'))).match(/total_commands_processed:(\d+)/)![1])
    // the second INFO is the only command in between
    expect(after - before).toBe(1)
  })

  it('falls back to its own buckets while Redis is down, and says so in one log line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-limits-log-'))
    const own = await startRedisServer()
    try {
      const connection = await RedisConnection.connect({ url: own.url, prefix: 'down:' })
      connections.push(connection)
      const log = createLog({ level: 'warn', destination: join(dir, 'log'), format: 'json' })
      const buckets = new RedisTokenBuckets({ connection, name: 'r', log })
      const shape = { burst: 2, perMs: 1 / 60_000 }
      await own.stop()
      expect([await take(buckets, 'frank', 1, shape), await take(buckets, 'frank', 1, shape)]).toEqual([0, 0])
      expect(await take(buckets, 'frank', 1, shape)).toBeGreaterThan(0)
      log.flush()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const lines = (await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', msg: expect.stringContaining('Redis cannot be reached') })
    } finally {
      await own.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
