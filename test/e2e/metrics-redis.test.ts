import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { createMetrics } from '../../src/observe/create-metrics.js'
import type { Metrics } from '../../src/observe/metrics.js'
import { Observer } from '../../src/observe/observer.js'
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js'

describe('mcp_auth_redis_up', () => {
  let redis: RedisServer
  let job: MainJob
  let metrics: Metrics
  let server: Server
  let dataDir: string

  beforeAll(async () => {
    redis = await startRedisServer()
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-metrics-redis-'))
    const observer = new Observer()
    metrics = createMetrics(observer)
    server = createServer((req, res) => job?.handler(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    job = await createMainJob({ origin, dataDir, observer, demo: false, redis: { url: redis.url, prefix: 'metrics:' }, config: { rateLimits: false } })
  }, 60_000)
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await job?.close()
    await redis?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  const up = async (): Promise<number | undefined> => (await metrics.registry.getSingleMetric('mcp_auth_redis_up')?.get())?.values[0]?.value

  it('is 1 while Redis answers, 0 while it is away, and 1 again once it is back', async () => {
    expect(await up()).toBe(1)
    await redis.stop()
    expect(await up()).toBe(0)
    await redis.start()
    let value: number | undefined
    for (let i = 0; i < 100 && value !== 1; i++) {
      value = await up()
      if (value !== 1) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(value).toBe(1)
  }, 60_000)
})
