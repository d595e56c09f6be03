// Issue 32: the admin API on two nodes of `mcp-auth start` (createMainJob with Redis) behind a
// real HAProxy on one real redis-server. Each change made through one node is seen by the other
// within a second: a disabled account's tokens refused by the MCP resource in the other node's
// process and by its introspection, a resource added, a client blocked; two administrators saving
// one account at once through the two nodes: one wins, the other is told it changed.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { adminToken } from '../helpers/admin-api.js'
import { authorizeWithForm } from '../helpers/form-login.js'
import { freePort } from '../helpers/free-port.js'
import { startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
let proxy: Haproxy
let dataDir: string
const nodes: Array<{ job: MainJob; server: Server; port: number }> = []
const root = { username: 'root', password: 'root password 1' }
const alice = { username: 'alice', password: 'alice password 1' }
let adminAccess: string

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-admin-cluster-'))
  const ports = [await freePort(), await freePort()]
  const proxyPort = await freePort()
  const origin = `http://localhost:${proxyPort}`
  // one after the other: the first writes the key files the second reads
  for (const port of ports) {
    const job = await createMainJob({ origin, dataDir, redis: { url: redis.url, prefix: 'admin-cluster:' }, trustProxy: true, config: { rateLimits: false } })
    const server = createServer((req, res) => (req.url === '/healthz' ? res.writeHead(200).end('ok') : job.handler(req, res)))
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    nodes.push({ job, server, port })
  }
  proxy = await startHaproxy(ports, { port: proxyPort })
  await nodes[0]!.job.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await nodes[0]!.job.as.accounts.setUser(alice.username, alice.password, {}, ['mcp'])
  adminAccess = (await adminToken(proxy.origin, root)).access_token
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

/** A request to one node, as the proxy would pass it on (the public host and scheme forwarded). */
function atNode(i: number, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('x-forwarded-host', new URL(proxy.origin).host)
  headers.set('x-forwarded-proto', 'http')
  return fetch(`http://127.0.0.1:${nodes[i]!.port}${path}`, { ...init, headers })
}

function adminAt(i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return atNode(i, `/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${adminAccess}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
}

/** Polls `check` until it holds, at most `ms`; resolves with how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  for (;;) {
    if (await check()) return Date.now() - started
    if (Date.now() - started > ms) throw new Error(`not seen within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cluster test', version: '1' } } }

function mcpStatusAt(i: number, token: string): Promise<number> {
  return atNode(i, '/mcp', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initialize),
  }).then(async (response) => {
    await response.body?.cancel()
    return response.status
  })
}

async function machineClient(): Promise<{ id: string; secret: string }> {
  const created = await adminAt(0, 'POST', '/clients', {
    client_name: 'cluster worker',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp',
  })
  expect(created.status).toBe(201)
  const body = (await created.json()) as { client: { client_id: string }; client_secret: string }
  return { id: body.client.client_id, secret: body.client_secret }
}

function clientCredentialsAt(i: number, client: { id: string; secret: string }, resource: string): Promise<Response> {
  return atNode(i, '/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
  })
}

describe('the admin API on two nodes behind HAProxy', () => {
  it('lists both nodes in the state either node answers', async () => {
    for (const i of [0, 1]) {
      const state = (await (await adminAt(i, 'GET', '/state')).json()) as { nodes: Array<{ this_node: boolean }> }
      expect(state.nodes).toHaveLength(2)
      expect(state.nodes.filter((node) => node.this_node)).toHaveLength(1)
    }
  })

  it('refuses a disabled account’s token within a second at the other node: its MCP resource and its introspection', async () => {
    const { config, callback, verifier } = await authorizeWithForm(proxy.origin, alice, 'http://127.0.0.1:9/callback')
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource: `${proxy.origin}/mcp` })
    const rs = await machineClient()
    const introspect = async (): Promise<boolean> => {
      const response = await atNode(1, '/token/introspection', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${rs.id}:${rs.secret}`).toString('base64')}` },
        body: new URLSearchParams({ token: tokens.access_token }),
      })
      return ((await response.json()) as { active: boolean }).active
    }
    expect(await mcpStatusAt(1, tokens.access_token)).toBe(200)
    expect(await introspect()).toBe(true)
    const disabled = await adminAt(0, 'PATCH', '/accounts/alice', { disabled: true })
    expect(disabled.status).toBe(200)
    expect(disabled.headers.get('x-grants-ended')).toBe('1')
    expect(await within(1000, async () => (await mcpStatusAt(1, tokens.access_token)) === 401)).toBeLessThan(1000)
    expect(await introspect()).toBe(false)
    expect((await adminAt(1, 'PATCH', '/accounts/alice', { disabled: false })).status).toBe(200)
  })

  it('lets one of two administrators saving one account at once through the two nodes win; the other gets 412', async () => {
    const read = await adminAt(0, 'GET', '/accounts/alice')
    const etag = read.headers.get('etag')!
    const answers = await Promise.all([
      adminAt(0, 'PATCH', '/accounts/alice', { name: 'Alice from node 0' }, { 'if-match': etag }),
      adminAt(1, 'PATCH', '/accounts/alice', { name: 'Alice from node 1' }, { 'if-match': etag }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412])
    const winner = answers.findIndex((answer) => answer.status === 200)
    expect(((await (await adminAt(1 - winner, 'GET', '/accounts/alice')).json()) as { name: string }).name).toBe(`Alice from node ${winner}`)
  })

  it('serves a resource added through one node at the other within a second', async () => {
    const uri = 'http://127.0.0.1:9/cluster-tools/mcp'
    const client = await machineClient()
    expect((await clientCredentialsAt(1, client, uri)).status).toBe(400)
    expect((await adminAt(0, 'POST', '/resources', { uri, scopes: ['mcp'] })).status).toBe(201)
    expect(await within(1000, async () => (await clientCredentialsAt(1, client, uri)).status === 200)).toBeLessThan(1000)
  })

  it('refuses a client blocked through one node at the other within a second', async () => {
    const client = await machineClient()
    expect((await clientCredentialsAt(0, client, `${proxy.origin}/mcp`)).status).toBe(200)
    expect((await adminAt(1, 'POST', `/clients/${encodeURIComponent(client.id)}/block`)).status).toBe(200)
    expect(await within(1000, async () => (await clientCredentialsAt(0, client, `${proxy.origin}/mcp`)).status === 400)).toBeLessThan(1000)
  })
})
