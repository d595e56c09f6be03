// Issue 33: the rate limit per principal on MCP calls holds across two nodes of `mcp-auth start`
// (createMainJob with Redis) behind a real HAProxy on one real redis-server: one bucket per
// principal for the whole deployment, whichever node a request reaches.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { Observer } from '../../src/observe/observer.js'
import type { StoredAuditEvent } from '../../src/observe/audit-event.js'
import { freePort } from '../helpers/free-port.js'
import { startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const BURST = 6
let redis: RedisServer
let proxy: Haproxy
let dataDir: string
let origin: string
const nodes: Array<{ job: MainJob; server: Server; port: number }> = []
const events: StoredAuditEvent[] = []

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-limits-cluster-'))
  const ports = [await freePort(), await freePort()]
  const proxyPort = await freePort()
  origin = `http://localhost:${proxyPort}`
  for (const port of ports) {
    const observer = new Observer({ node: `node-${port}` })
    observer.addAuditObserver((event) => events.push(event))
    const job = await createMainJob({
      origin,
      dataDir,
      redis: { url: redis.url, prefix: 'limits-cluster:' },
      trustProxy: true,
      observer,
      // 1 a minute: nothing refills while the test runs
      config: { rateLimits: false, resources: [{ uri: `${origin}/mcp`, rateLimit: { requestsPerMinute: 1, burst: BURST } }] },
    })
    const server = createServer((req, res) => (req.url === '/healthz' ? res.writeHead(200).end('ok') : job.handler(req, res)))
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    nodes.push({ job, server, port })
  }
  proxy = await startHaproxy(ports, { port: proxyPort })
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  for (const { job, server } of nodes) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await job.close()
  }
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
})

async function accessToken(name: string): Promise<string> {
  const client = await nodes[0]!.job.as.addClient({
    client_name: name,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp',
  })
  const response = await fetch(`${proxy.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp`, scope: 'mcp' }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } }

/** An MCP request through the proxy (`node` undefined) or straight to one node, as the proxy would pass it on. */
async function mcp(token: string, node?: number): Promise<Response> {
  const url = node === undefined ? `${proxy.origin}/mcp` : `http://127.0.0.1:${nodes[node]!.port}/mcp`
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(node === undefined ? {} : { 'x-forwarded-host': new URL(proxy.origin).host, 'x-forwarded-proto': 'http' }),
    },
    body: JSON.stringify(initialize),
  })
  return response
}

describe('MCP rate limits on two nodes behind HAProxy on one Redis', () => {
  it('holds one bucket per principal across the nodes: the burst in all, then 429 from either node', async () => {
    const token = await accessToken('cluster limited')
    const statuses: number[] = []
    // alternately at each node: each alone would allow BURST
    for (let i = 0; i < BURST; i++) {
      const response = await mcp(token, i % 2)
      statuses.push(response.status)
      await response.body?.cancel()
    }
    expect(statuses.every((status) => status === 200)).toBe(true)
    for (const node of [0, 1]) {
      const refused = await mcp(token, node)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(((await refused.json()) as { error: { data: { retryAfterSeconds: number } } }).error.data.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    }
    // and through the proxy, whichever node it picks
    for (let i = 0; i < 2; i++) {
      const refused = await mcp(token)
      expect(refused.status).toBe(429)
      await refused.body?.cancel()
    }
    // recorded once per node and Retry-After window, not once per refused request
    const limited = events.filter((event) => event.type === 'mcp.rate-limited')
    expect(limited.map((event) => event.node).sort()).toEqual(nodes.map(({ port }) => `node-${port}`).sort())
  })

  it('leaves another principal its own full bucket', async () => {
    const token = await accessToken('cluster bystander')
    const response = await mcp(token)
    expect(response.status).toBe(200)
    await response.body?.cancel()
  })
})
