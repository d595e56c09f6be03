/**
 * Issue 32: the gateway's children through the admin API of its authorization server: each
 * child listed with its principal, node and server; ended by an administrator, after which the
 * session gets a new child on its next request, as after a crash.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { adminCall, adminToken } from '../helpers/admin-api.js'
import { startGatewayStack, statelessRequest, type GatewayStack } from '../helpers/gateway-stack.js'
import { TEST_SERVER } from '../helpers/paths.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const root = { username: 'root', password: 'root password 1' }
let stack: GatewayStack
let admin: string

beforeAll(async () => {
  stack = await startGatewayStack()
  await stack.job.as!.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  admin = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack?.stop())

const whoami = async (client: Awaited<ReturnType<GatewayStack['connect']>>): Promise<{ pid: number; clientId: string }> => {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { pid: number; clientId: string }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('admin API: the gateway’s children', () => {
  it('lists a session’s child with its client, node and server, and filters by client', async () => {
    const client = await stack.connect(await stack.token('lister'))
    try {
      const { clientId } = await whoami(client)
      const listed = await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(clientId)}`)
      expect(listed.status).toBe(200)
      expect(listed.body.items).toHaveLength(1)
      const state = await adminCall(stack.origin, admin, 'GET', '/state')
      expect(listed.body.items[0]).toMatchObject({ client_id: clientId, server: '/mcp', state: 'running', node: state.body.nodes[0].id })
      expect(Date.parse(listed.body.items[0].started_at)).toBeLessThanOrEqual(Date.now())
      expect(state.body.nodes[0].children).toBeGreaterThanOrEqual(1)
      expect((await adminCall(stack.origin, admin, 'GET', '/children?client_id=nobody')).body.items).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('ends a child: its process exits, and the session’s next request gets a new one', async () => {
    const client = await stack.connect(await stack.token('ended'))
    try {
      const first = await whoami(client)
      const [child] = (await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items
      const ended = await adminCall(stack.origin, admin, 'DELETE', `/children/${child.id}`)
      expect(ended.status).toBe(204)
      await expect.poll(() => alive(first.pid), { timeout: 5000 }).toBe(false)
      expect((await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items).toEqual([])
      const second = await whoami(client)
      expect(second.pid).not.toBe(first.pid)
      const [next] = (await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items
      expect(next.id).not.toBe(child.id)
      expect((await adminCall(stack.origin, admin, 'DELETE', `/children/${child.id}`)).status).toBe(404)
    } finally {
      await client.close()
    }
  })

  it('lists the gateway’s server among the resources as a configured one', async () => {
    const resources = await adminCall(stack.origin, admin, 'GET', '/resources')
    expect(resources.body.items.find((item: { uri: string }) => item.uri === stack.resource)).toMatchObject({ source: 'configured' })
  })
})

describe('admin API: the children of two gateway nodes sharing one redis-server', () => {
  let redis: RedisServer
  let dataDir: string
  const nodes: GatewayStack[] = []
  beforeAll(async () => {
    redis = await startRedisServer()
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-cluster-'))
    for (let i = 0; i < 2; i++) nodes.push(await startGatewayStack({ dataDir, redis: { url: redis.url, prefix: 'children:' } }))
    await nodes[0]!.job.as!.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  })
  afterAll(async () => {
    for (const node of nodes) await node.stop()
    await rm(dataDir, { recursive: true, force: true })
    await redis?.close()
  })

  it('lists on node A a child node B runs, within a second, and ends it from A over the bus', async () => {
    const [a, b] = nodes as [GatewayStack, GatewayStack]
    const token = (await adminToken(a.origin, root)).access_token
    const [nodeB, nodeA] = (await adminCall(b.origin, (await adminToken(b.origin, root)).access_token, 'GET', '/state')).body.nodes.map((node: { id: string }) => node.id)
    expect(nodeA).not.toBe(nodeB)
    const client = await b.connect(await b.token('on-b'))
    try {
      const first = await whoami(client)
      const query = `/children?client_id=${encodeURIComponent(first.clientId)}`
      const started = Date.now()
      await expect.poll(async () => (await adminCall(a.origin, token, 'GET', query)).body.items.length, { timeout: 1000, interval: 20 }).toBe(1)
      expect(Date.now() - started).toBeLessThan(1000)
      const [child] = (await adminCall(a.origin, token, 'GET', query)).body.items
      expect(child.node).toBe(nodeB)
      const ended = await adminCall(a.origin, token, 'DELETE', `/children/${child.id}`)
      expect(ended.status).toBe(202)
      expect(ended.body.node).toBe(nodeB)
      await expect.poll(() => alive(first.pid), { timeout: 5000 }).toBe(false)
      await expect.poll(async () => (await adminCall(a.origin, token, 'GET', query)).body.items.length, { timeout: 1000, interval: 20 }).toBe(0)
      const second = await whoami(client)
      expect(second.pid).not.toBe(first.pid)
    } finally {
      await client.close()
    }
  })
})

describe('admin API: the children of a gateway with several servers', () => {
  let servers: GatewayStack
  let token: string
  beforeAll(async () => {
    servers = await startGatewayStack({
      child: undefined,
      servers: [
        { name: 'a', child: { command: process.execPath, args: [TEST_SERVER, 'ok'] } },
        { name: 'b', child: { command: process.execPath, args: [TEST_SERVER, 'ok'] }, shared: true },
      ],
    })
    await servers.job.as!.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    token = (await adminToken(servers.origin, root)).access_token
  })
  afterAll(() => servers?.stop())

  /** A client_credentials token of a new client for `resource`. */
  async function clientToken(resource: string): Promise<{ token: string; clientId: string }> {
    const added = await servers.job.as!.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' })
    const response = await fetch(`${servers.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${added.client_id}:${added.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
    })
    return { token: ((await response.json()) as { access_token: string }).access_token, clientId: added.client_id }
  }

  it('names the server each child runs, the shared one without a principal', async () => {
    const a = await clientToken(`${servers.origin}/a/mcp`)
    const client = new McpClient({ name: 'children-test', version: '1' }, { protocolVersion: '2025-11-25', supportedProtocolVersions: ['2025-11-25'] })
    await client.connect(new StreamableHttpClientTransport(new URL(`${servers.origin}/a/mcp`), { headers: { authorization: `Bearer ${a.token}` } }))
    try {
      const b = await clientToken(`${servers.origin}/b/mcp`)
      const request = statelessRequest(1, 'tools/list')
      expect((await servers.post(b.token, request.body, request.headers, '/b/mcp')).status).toBe(200)
      const items = (await adminCall(servers.origin, token, 'GET', '/children')).body.items as Array<Record<string, unknown>>
      expect(items.find((item) => item['server'] === '/a/mcp')).toMatchObject({ client_id: a.clientId, state: 'running' })
      const shared = items.find((item) => item['server'] === '/b/mcp')
      expect(shared).toMatchObject({ client_id: '' })
      expect(shared!['subject']).toBeUndefined()
      const resources = (await adminCall(servers.origin, token, 'GET', '/resources')).body.items as Array<{ uri: string; source: string }>
      expect(resources.filter((item) => item.source === 'configured').map((item) => item.uri)).toEqual([`${servers.origin}/a/mcp`, `${servers.origin}/b/mcp`])
    } finally {
      await client.close()
    }
  })
})
