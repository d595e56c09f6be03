import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { McpClient } from '../../src/client/mcp-client.js'
import { createMetrics } from '../../src/observe/create-metrics.js'
import { Observer } from '../../src/observe/observer.js'
import { StreamableHttpClientTransport } from '../../src/transports/streamable-http/client/streamable-http-client-transport.js'
import { adminToken } from '../helpers/admin-api.js'
import { startCli, stopChild } from '../helpers/cli-process.js'

interface Running {
  origin: string
  job: MainJob
  stop(): Promise<void>
}

/** The main job in this process on an ephemeral port, with its observer (metrics on or off). */
async function startJob(metrics: boolean): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-metrics-'))
  const observer = new Observer()
  if (metrics) createMetrics(observer)
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  const server: Server = createServer((req, res) => handler?.(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const job = await createMainJob({ origin, dataDir, observer, demo: false, config: { rateLimits: false } })
  handler = job.handler
  return {
    origin,
    job,
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await job.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** Prometheus text → series (name with its labels as written) → value. */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    series.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return series
}

/** The sum of the series of `name` whose labels include every one of `labels` (and not those of `not`). */
function sum(series: Map<string, number>, name: string, labels: Record<string, string> = {}, not: Record<string, string> = {}): number {
  let total = 0
  for (const [key, value] of series) {
    if (key !== name && !key.startsWith(`${name}{`)) continue
    if (Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`)) && !Object.entries(not).some(([k, v]) => key.includes(`${k}="${v}"`))) total += value
  }
  return total
}

const root = { username: 'root', password: 'root password 1' }

describe('GET /metrics on the main origin (admin scope)', () => {
  let s: Running
  let admin: string

  beforeAll(async () => {
    s = await startJob(true)
    await s.job.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    admin = (await adminToken(s.origin, root)).access_token
  }, 60_000)
  afterAll(() => s?.stop())

  const scrape = async (): Promise<Map<string, number>> => {
    const response = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${admin}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/plain')
    return parse(await response.text())
  }

  it('refuses a scrape without a token with 401 and the admin challenge, and one with a token for the MCP resource with 401', async () => {
    const response = await fetch(`${s.origin}/metrics`)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="[^"]*\/admin\/api"/)
    expect(await response.text()).not.toContain('mcp_auth_')
    const client = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
    const token = await clientCredentials(s.origin, client)
    const wrong = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    expect(wrong.status).toBe(401)
  })

  it('lets a machine client an administrator designated scrape with the client credentials grant (as Prometheus oauth2 does)', async () => {
    const machine = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp-auth:admin' })
    const response = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${machine.client_id}:${machine.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp-auth:admin', resource: `${s.origin}/admin/api` }),
    })
    expect(response.status).toBe(200)
    const { access_token } = (await response.json()) as { access_token: string }
    const scraped = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${access_token}` } })
    expect(scraped.status).toBe(200)
    expect(await scraped.text()).toContain('# TYPE mcp_auth_token_requests_total counter')
  })

  it('gauges a legacy HTTP+SSE session as a session and a stream while it is open', async () => {
    const client = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
    const token = await clientCredentials(s.origin, client)
    const stream = new AbortController()
    const response = await fetch(`${s.origin}/sse`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: stream.signal })
    expect(response.status).toBe(200)
    await response.body!.getReader().read()
    const open = await scrape()
    expect(sum(open, 'mcp_auth_mcp_sessions_open', { transport: 'sse' })).toBe(1)
    expect(sum(open, 'mcp_auth_mcp_streams_open', { transport: 'sse' })).toBe(1)
    stream.abort()
    let closed = await scrape()
    for (let i = 0; i < 50 && sum(closed, 'mcp_auth_mcp_sessions_open', { transport: 'sse' }) !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      closed = await scrape()
    }
    expect(sum(closed, 'mcp_auth_mcp_sessions_open', { transport: 'sse' })).toBe(0)
  })

  it('counts a known sequence of token requests and MCP calls exactly', async () => {
    const client = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
    const before = await scrape()
    const N = 5
    const F = 3
    const M = 4
    let token = ''
    for (let i = 0; i < N; i++) token = await clientCredentials(s.origin, client)
    for (let i = 0; i < F; i++) {
      const refused = await fetch(`${s.origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:wrong secret`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${s.origin}/mcp` }),
      })
      expect(refused.status).toBe(401)
    }
    // a session of the handshake era: initialize, notifications/initialized, the calls, DELETE at the end
    const mcp = new McpClient({ name: 'metrics test', version: '1.0.0' }, { protocolVersion: '2025-11-25', supportedProtocolVersions: ['2025-11-25'] })
    await mcp.connect(new StreamableHttpClientTransport(`${s.origin}/mcp`, { headers: { authorization: `Bearer ${token}` } }))
    for (let i = 0; i < M; i++) expect((await mcp.callTool('echo', { text: `call ${i}` })).isError).not.toBe(true)
    const during = await scrape()
    await mcp.close()
    // the server counts a request when its answer has ended, which may be just after the client read it
    let after = await scrape()
    for (let i = 0; i < 50 && sum(after, 'mcp_auth_http_requests_total', { method: 'DELETE' }) === sum(before, 'mcp_auth_http_requests_total', { method: 'DELETE' }); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      after = await scrape()
    }

    const delta = (name: string, labels: Record<string, string> = {}, not: Record<string, string> = {}) => sum(after, name, labels, not) - sum(before, name, labels, not)
    expect(delta('mcp_auth_http_requests_total', { method: 'POST', route: '/token', status: '2xx' })).toBe(N)
    expect(delta('mcp_auth_http_requests_total', { method: 'POST', route: '/token', status: '4xx' })).toBe(F)
    expect(delta('mcp_auth_token_request_duration_seconds_count')).toBe(N + F)
    // initialize, notifications/initialized and the M calls: POSTs other than /token (whatever route their router notes)
    expect(delta('mcp_auth_http_requests_total', { method: 'POST' }, { route: '/token' })).toBe(M + 2)
    // the session's end
    expect(delta('mcp_auth_http_requests_total', { method: 'DELETE' })).toBe(1)
    expect(sum(during, 'mcp_auth_mcp_sessions_open', { transport: 'streamable-http' })).toBe(1)
    // the session's GET stream, which our client opens after initialization
    expect(sum(during, 'mcp_auth_mcp_streams_open', { transport: 'streamable-http' })).toBe(1)
    expect(sum(after, 'mcp_auth_mcp_streams_open', { transport: 'streamable-http' })).toBe(0)
    expect(sum(after, 'mcp_auth_mcp_sessions_open', { transport: 'streamable-http' })).toBe(0)
    expect(sum(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0)
    // never a client id, a token or a raw path in a label
    const text = [...after.keys()].join('\n')
    expect(text).not.toContain(client.client_id)
    expect(text).not.toContain(token.slice(0, 20))
  })
})

describe('GET /metrics while metrics are off', () => {
  it('answers 404, token or not', async () => {
    const s = await startJob(false)
    try {
      expect((await fetch(`${s.origin}/metrics`)).status).toBe(404)
    } finally {
      await s.stop()
    }
  })
})

describe('mcp-auth start --metrics-port', () => {
  it('serves GET /metrics on a listener of its own, nothing else there, and closes it with the server', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-metrics-cli-'))
    const started = await startCli(['start', '--port', '0', '--data-dir', dataDir, '--metrics-port', '0'], { env: { MCP_AUTH_DEMO_PASSWORD: 'a demo password 1' } })
    try {
      const url = /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(started.output())?.[1]
      expect(url, started.output()).toBeDefined()
      // a request to the server, then the scrape counts it
      expect((await fetch(`${new URL(started.url).origin}/.well-known/oauth-authorization-server`)).status).toBe(200)
      const response = await fetch(url!)
      expect(response.status).toBe(200)
      const series = parse(await response.text())
      expect(sum(series, 'mcp_auth_http_requests_total', { method: 'GET', status: '2xx' })).toBeGreaterThanOrEqual(1)
      expect(sum(series, 'mcp_auth_mcp_sessions_open')).toBe(0)
      expect((await fetch(url!.replace('/metrics', '/admin'))).status).toBe(404)
      expect((await fetch(url!, { method: 'POST' })).status).toBe(405)
      await stopChild(started.child)
      await expect(fetch(url!)).rejects.toThrow()
    } finally {
      await stopChild(started.child)
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('mcp-auth auth-server --metrics-port', () => {
  it('counts the token requests the authorization server answered', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-metrics-cli-'))
    const started = await startCli(['auth-server', '--port', '0', '--data-dir', dataDir, '--metrics-port', '0'])
    try {
      const url = /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(started.output())?.[1]
      expect(url, started.output()).toBeDefined()
      const origin = new URL(started.url).origin
      for (let i = 0; i < 3; i++) {
        const refused = await fetch(`${origin}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'nobody' }),
        })
        expect(refused.status).toBe(401)
      }
      let series = parse(await (await fetch(url!)).text())
      for (let i = 0; i < 50 && sum(series, 'mcp_auth_token_request_duration_seconds_count') < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        series = parse(await (await fetch(url!)).text())
      }
      expect(sum(series, 'mcp_auth_http_requests_total', { method: 'POST', route: '/token', status: '4xx' })).toBe(3)
      expect(sum(series, 'mcp_auth_token_request_duration_seconds_count')).toBe(3)
    } finally {
      await stopChild(started.child)
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

async function clientCredentials(origin: string, client: { client_id: string; client_secret?: string }): Promise<string> {
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp` }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}
