// Issue 32 (clients and grants, item 2): a client blocked through the admin API on one node is
// refused by every node sharing the Redis store within a second (each node's in-memory set, kept
// in sync over pub/sub), and a node started after the block refuses it from its first request.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startAuthServer, type RunningAuthServer } from '../../../helpers/auth-server.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'

const root = { username: 'root', password: 'root password 1' }

let redis: RedisServer
let dataDir: string
let one: RunningAuthServer
let two: RunningAuthServer
let machine: { client_id: string; client_secret?: string }

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-cluster-block-'))
  // one data directory: the nodes share jwks.json and secrets.json, as a deployment must
  one = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'block:' } })
  two = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'block:' } })
  await one.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  machine = await one.as.addClient({
    client_name: 'Worker',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  })
})
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()])
  await rm(dataDir, { recursive: true, force: true })
  await redis?.close()
})

async function tokenRequest(node: RunningAuthServer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.origin}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${machine.client_id}:${machine.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${node.origin}/mcp` }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** Polls node's token endpoint until it answers `status`; resolves with how long it took (ms). */
async function until(node: RunningAuthServer, status: number): Promise<number> {
  const started = Date.now()
  for (;;) {
    const answer = await tokenRequest(node)
    if (answer.status === status) return Date.now() - started
    if (Date.now() - started > 5_000) throw new Error(`still ${answer.status} ${JSON.stringify(answer.body)} after 5 s`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('a client blocked on one node of several', () => {
  it('is refused by the other node within a second, and let in again there once unblocked', async () => {
    expect((await tokenRequest(two)).status).toBe(200)
    const token = (await adminToken(one.origin, root)).access_token
    const blocked = await adminCall(one.origin, token, 'POST', `/clients/${encodeURIComponent(machine.client_id)}/block`)
    expect(blocked.status).toBe(200)
    expect(await until(two, 400)).toBeLessThan(1_000)
    expect((await tokenRequest(two)).body).toMatchObject({ error: 'unauthorized_client', error_description: expect.stringContaining('blocked') })
    // the other node's API says so too
    const seen = await adminCall(two.origin, (await adminToken(two.origin, root)).access_token, 'GET', `/clients/${encodeURIComponent(machine.client_id)}`)
    expect(seen.body).toMatchObject({ blocked: true })

    const three = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'block:' } })
    try {
      expect((await tokenRequest(three)).status).toBe(400)
    } finally {
      await three.stop()
    }

    expect((await adminCall(one.origin, token, 'DELETE', `/clients/${encodeURIComponent(machine.client_id)}/block`)).status).toBe(200)
    expect(await until(two, 200)).toBeLessThan(1_000)
  })
})
