// Issue 16: rate limits are counted across the nodes of a deployment (Redis), and while Redis is
// down the token endpoint answers 503 temporarily_unavailable with Retry-After instead of letting
// requests through uncounted; it serves again without a restart once Redis is back.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { CookieJar } from '../../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

let redis: RedisServer
let dataDir: string
beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-limits-'))
})
afterAll(async () => {
  await redis.close()
  await rm(dataDir, { recursive: true, force: true })
})

function node(prefix: string, rateLimits: Record<string, number>, on = redis): Promise<RunningAuthServer> {
  return startAuthServer({
    dataDir,
    redis: { url: on.url, prefix },
    rateLimits: { loginPerAccount: 10_000, loginPerAddress: 10_000, registrationPerAddress: 10_000, ...rateLimits },
  })
}

async function pair(prefix: string, rateLimits: Record<string, number>, on = redis): Promise<[RunningAuthServer, RunningAuthServer]> {
  const one = await node(prefix, rateLimits, on)
  return [one, await node(prefix, rateLimits, on)]
}

async function token(origin: string, basic: string): Promise<Response> {
  return fetch(`${origin}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=mcp',
  })
}

async function machineClient(server: RunningAuthServer): Promise<string> {
  const client = await server.as.addClient({ client_name: 'machine', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
  return `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`
}

describe('token endpoint rate limits on two nodes', () => {
  it('counts one client’s requests on both nodes against one limit', async () => {
    const [one, two] = await pair('token-limit:', { tokenPerClient: 4 })
    try {
      const basic = await machineClient(one)
      const statuses: number[] = []
      for (const server of [one, two, one, two, one, two]) statuses.push((await token(server.origin, basic)).status)
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
      const refused = await token(one.origin, basic)
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(((await refused.json()) as { error: string }).error).toBe('slow_down')
    } finally {
      await Promise.all([one.stop(), two.stop()])
    }
  })

  it('counts one address on both nodes against one limit', async () => {
    const [one, two] = await pair('address-limit:', { tokenPerAddress: 3 })
    try {
      const basic = await machineClient(one)
      const statuses: number[] = []
      for (const server of [two, one, two, one]) statuses.push((await token(server.origin, basic)).status)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await Promise.all([one.stop(), two.stop()])
    }
  })
})

describe('token endpoint while Redis is down', () => {
  it('answers 503 temporarily_unavailable with Retry-After, and 200 again once Redis is back, without a restart', async () => {
    // Redis that keeps what it acknowledged across its restart, as a deployment's must
    const durable = await startRedisServer({ persistence: true })
    const [one, two] = await pair('outage:', {}, durable)
    try {
      const basic = await machineClient(one)
      expect((await token(two.origin, basic)).status).toBe(200)
      await durable.stop()
      for (const server of [one, two]) {
        const response = await token(server.origin, basic)
        expect(response.status).toBe(503)
        expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
        expect(response.headers.get('cache-control')).toBe('no-store')
        expect(((await response.json()) as { error: string }).error).toBe('temporarily_unavailable')
        expect(await server.as.health()).toBe(false)
      }
      await durable.start()
      await expect.poll(async () => (await token(one.origin, basic)).status, { timeout: 10_000, interval: 200 }).toBe(200)
      await expect.poll(async () => (await token(two.origin, basic)).status, { timeout: 10_000, interval: 200 }).toBe(200)
      expect(await one.as.health()).toBe(true)
    } finally {
      await Promise.all([one.stop(), two.stop()])
      await durable.close()
    }
  })
})

describe('login form while Redis is down', () => {
  it('answers 503 with Retry-After and neither counts nor tries the attempt', async () => {
    const own = await startRedisServer()
    const one = await node('login:', {}, own)
    try {
      const registered = await fetch(`${one.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
      })
      const { client_id } = (await registered.json()) as { client_id: string }
      const jar = new CookieJar()
      let url = new URL(`${one.origin}/authorize`)
      url.search = new URLSearchParams({
        client_id,
        response_type: 'code',
        redirect_uri: 'http://127.0.0.1/callback',
        scope: 'mcp',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString()
      const started = await fetch(url, { redirect: 'manual' })
      jar.store(started, url)
      url = new URL(started.headers.get('location')!, url)
      const page = await fetch(url, { headers: { cookie: jar.header(url) } })
      const html = await page.text()
      expect(page.status).toBe(200)
      const csrf = /name="csrf" value="([^"]*)"/.exec(html)![1]!
      await own.stop()
      const submitted = await fetch(new URL(`${url.pathname}/login`, one.origin), {
        method: 'POST',
        headers: { cookie: jar.header(url), 'content-type': 'application/x-www-form-urlencoded', origin: one.origin },
        body: new URLSearchParams({ csrf, username: 'nobody', password: 'wrong password 1' }),
      })
      expect(submitted.status).toBe(503)
      expect(submitted.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect(await submitted.text()).toContain('unavailable')
    } finally {
      await own.start()
      await one.stop()
      await own.close()
    }
  })
})
