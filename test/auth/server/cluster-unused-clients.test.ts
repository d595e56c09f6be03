// Issue 16: the caps on registrations nobody has used count every node's registrations, and the
// unused-client sweep, which runs on every node, never deletes a client another node saw used.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaults } from '../../../src/config/defaults.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

let redis: RedisServer
let dataDir: string
beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-unused-'))
})
afterAll(async () => {
  await redis.close()
  await rm(dataDir, { recursive: true, force: true })
})

async function pair(prefix: string, unusedClientTtlSeconds?: number): Promise<[RunningAuthServer, RunningAuthServer]> {
  const options = { dataDir, redis: { url: redis.url, prefix }, ...(unusedClientTtlSeconds !== undefined ? { registration: { unusedClientTtlSeconds } } : {}) }
  const one = await startAuthServer(options)
  return [one, await startAuthServer(options)]
}

async function register(origin: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [], grant_types: ['client_credentials'], response_types: [] }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function useClient(origin: string, client: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client['client_id']}:${client['client_secret']}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=mcp',
  })
  await response.text()
  return response.status
}

describe('unused registrations on two nodes', () => {
  it('caps one address’s unused registrations across both nodes', async () => {
    const [one, two] = await pair('cap:')
    try {
      const cap = defaults.authServer.registration.maxUnusedPerAddress
      for (let i = 0; i < cap; i++) expect((await register(i % 2 === 0 ? one.origin : two.origin)).status).toBe(201)
      // each node hears the other's registrations over pub/sub
      await expect.poll(async () => (await register(one.origin)).status, { timeout: 2_000, interval: 50 }).toBe(429)
      const refused = await register(two.origin)
      expect(refused.status).toBe(429)
      expect(refused.body['error']).toBe('slow_down')
    } finally {
      await Promise.all([one.stop(), two.stop()])
    }
  })

  it('sweeps on one node only what nobody used, whichever node registered or saw the use', async () => {
    const [one, two] = await pair('sweep:', 1)
    try {
      const used = (await register(one.origin)).body
      const unused = (await register(two.origin)).body
      expect(await useClient(two.origin, used)).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      // the node that registered `used` never saw it used, and sweeps first; the other finds nothing left
      expect(await one.as.sweepUnusedClients()).toBe(1)
      expect(await two.as.sweepUnusedClients()).toBe(0)
      expect(await one.as.provider.Client.find(String(unused['client_id']))).toBeUndefined()
      expect(await one.as.provider.Client.find(String(used['client_id']))).toBeDefined()
      expect(await useClient(one.origin, used)).toBe(200)
    } finally {
      await Promise.all([one.stop(), two.stop()])
    }
  })
})
