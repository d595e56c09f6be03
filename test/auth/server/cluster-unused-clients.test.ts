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

  // Issue 27, item 12: the global bound holds across nodes; what one node displaces, every node forgets
  it('holds the global bound across both nodes when every registration comes from a new address group, displacing the hoarder first', async () => {
    const options = { dataDir, redis: { url: redis.url, prefix: 'flood:' }, trustProxy: true, registration: { maxUnusedPerAddress: 3, maxUnused: 6 } }
    const nodes = [await startAuthServer(options), await startAuthServer(options)]
    const from = async (node: RunningAuthServer, address: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${node.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' }),
      })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }
    const pending = async (): Promise<number> => (await nodes[0]!.as.storage.records.list('unused-dynamic-clients')).length
    try {
      const hoarded: unknown[] = []
      for (let i = 0; i < 3; i++) hoarded.push((await from(nodes[0]!, '203.0.113.9')).body['client_id'])
      for (let n = 1; n <= 12; n++) {
        expect((await from(nodes[n % 2]!, `2001:db8:${n}:1::1`)).status).toBe(201)
        // each node hears the other's registrations before the next (pub/sub is not instant)
        await expect.poll(pending, { timeout: 2_000, interval: 20 }).toBeLessThanOrEqual(6)
      }
      await expect.poll(pending, { timeout: 2_000, interval: 20 }).toBe(6)
      for (const clientId of hoarded) expect(await nodes[1]!.as.storage.adapter('Client').find(String(clientId))).toBeUndefined()
      // a flood group holds as many as any: refused on the node it did not register on, too
      await expect.poll(async () => (await from(nodes[1]!, '2001:db8:c:1::2')).status, { timeout: 2_000, interval: 50 }).toBe(429)
    } finally {
      await Promise.all(nodes.map((node) => node.stop()))
    }
  })
})
