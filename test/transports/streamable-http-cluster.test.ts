/**
 * Issue 16: one Streamable HTTP endpoint served by several processes on one Redis. Each "node" is
 * a StreamableHttpHandler + McpServer pair with its own Redis connection and its own HTTP port on
 * 127.0.0.1 (as a process behind a round-robin load balancer would be); Redis is a real
 * redis-server. Sessions, event stores, the bus and server-wide notifications are shared through it.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { WATCHED_RESOURCE_URI } from '../../src/demo/demo-resources.js'
import type { McpServer } from '../../src/server/mcp-server.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { StreamableHttpClientTransport } from '../../src/transports/streamable-http/client/index.js'
import { StreamableHttpHandler, type StreamableHttpOptions } from '../../src/transports/streamable-http/server/index.js'
import { redisMcpOptions } from '../../src/redis/mcp-options.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import {
  callTool,
  closeAll,
  getSse,
  initialize,
  notification,
  post,
  postSse,
  readAnswer,
  request,
  seqOf,
  sleep,
  streamOf,
  type McpSession,
  type Message,
  type SseStream,
} from './streamable-http/server/http-harness.js'

let redis: RedisServer
let deployments = 0

beforeAll(async () => {
  // persistence: the outage test restarts Redis and expects the sessions back
  redis = await startRedisServer({ persistence: true })
})
afterAll(() => redis.close())

interface Node {
  name: string
  url: string
  port: number
  server: McpServer
  handler: StreamableHttpHandler
  /** As kill -9: sockets cut, Redis connection gone, nothing shut down in order. */
  kill(): Promise<void>
  close(): Promise<void>
}

const running = new Set<Node>()

afterEach(async () => {
  await closeAll()
  await Promise.all([...running].map((node) => node.close()))
  running.clear()
})

/** The demo server plus what the tests raise: a message outside any request, a list change. */
function buildServer(): McpServer {
  const server = createDemoServer()
  let added = 0
  server.registerTool({ name: 'announce', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async (args, context) => {
    // not tied to this request: it travels on the session's GET stream
    await context.session!.log('info', args.text)
    return { content: [{ type: 'text', text: 'announced' }] }
  })
  server.registerTool({ name: 'roots_outside', description: 'Asks for roots outside the request: on the GET stream' }, async (_args, context) => {
    const { roots } = await context.session!.listRoots()
    return { content: [{ type: 'text', text: roots.map((root) => root.uri).join(',') }] }
  })
  server.registerTool({ name: 'grow', description: 'Adds a tool: one list change' }, () => {
    server.registerTool({ name: `grown_${++added}` }, () => ({ content: [] }))
    return { content: [{ type: 'text', text: `grown_${added}` }] }
  })
  return server
}

async function startNode(name: string, prefix: string, options: Partial<StreamableHttpOptions>): Promise<Node> {
  const connection = await RedisConnection.connect({ url: redis.url, prefix })
  const shared = redisMcpOptions(connection)
  const server = buildServer()
  await server.shareNotifications(shared.bus)
  const handler = new StreamableHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'], ...shared, ...options })
  const http: Server = createServer((req, res) => void handler.handle(req, res))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  const stopHttp = async () => {
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
  }
  let closed = false
  const node: Node = {
    name,
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    server,
    handler,
    kill: async () => {
      if (!http.listening) return
      await Promise.all([stopHttp(), connection.close()])
    },
    close: async () => {
      if (closed) return
      closed = true
      await handler.close()
      await server.close()
      if (http.listening) await stopHttp()
      await connection.close()
    },
  }
  running.add(node)
  return node
}

/** N nodes of one deployment (a key prefix of its own: tests do not see each other's sessions). */
async function deployment(count: number, options: Partial<StreamableHttpOptions> = {}): Promise<Node[]> {
  const prefix = `cluster${++deployments}:`
  return Promise.all(['a', 'b', 'c'].slice(0, count).map((name) => startNode(name, prefix, options)))
}

/** A round-robin load balancer in front of the nodes, as a fetch: each request to the next node. */
function roundRobin(nodes: readonly Node[]): { fetch: typeof fetch; served: string[] } {
  const served: string[] = []
  let next = 0
  return {
    served,
    fetch: (input, init) => {
      const node = nodes[next++ % nodes.length]!
      served.push(node.name)
      const url = new URL(input instanceof Request ? input.url : String(input))
      url.port = String(node.port)
      return fetch(url, init)
    },
  }
}

/** POST one request of `session` to `node` and return its response. */
async function callOn(node: Node, session: McpSession, id: number, method: string, params?: Record<string, unknown>): Promise<Message> {
  const answer = await post(node.url, request(id, method, params), session.options)
  expect(answer.status).toBe(200)
  const messages = await readAnswer(answer)
  return messages.find((m) => m.id === id)!
}

const notes = (stream: SseStream) => stream.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.data as string)

describe('a session served by several nodes', () => {
  it('takes POSTs that alternate between nodes, from our client and the official SDK client', async () => {
    const nodes = await deployment(3)
    const balancer = roundRobin(nodes)
    const client = new McpClient({ name: 'cluster-test', version: '1.0.0' }, { protocolVersion: '2025-11-25' })
    client.setElicitationHandler(async () => ({ action: 'accept', content: { username: 'ann', email: 'ann@example.com' } }))
    await client.connect(new StreamableHttpClientTransport(new URL(nodes[0]!.url), { fetch: balancer.fetch, openGetStream: false }))
    for (let i = 0; i < 6; i++) expect((await client.callTool('echo', { text: `hello ${i}` })).content).toEqual([{ type: 'text', text: `hello ${i}` }])
    // the question goes out on the POST to one node, the answer is POSTed to the next one
    const elicited = await client.callTool('test_elicitation', { message: 'who?' })
    expect(elicited.content).toEqual([{ type: 'text', text: expect.stringContaining('ann@example.com') }])
    expect(new Set(balancer.served)).toEqual(new Set(['a', 'b', 'c']))
    await client.close()

    const sdkBalancer = roundRobin(nodes)
    const sdk = new Client({ name: 'sdk-cluster-test', version: '1.0.0' })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(nodes[0]!.url), { fetch: sdkBalancer.fetch }))
    for (let i = 0; i < 4; i++) {
      const result = await sdk.callTool({ name: 'echo', arguments: { text: `sdk ${i}` } })
      expect(result.content).toEqual([{ type: 'text', text: `sdk ${i}` }])
    }
    expect((await sdk.listTools()).tools.map((t) => t.name)).toContain('announce')
    expect(new Set(sdkBalancer.served)).toEqual(new Set(['a', 'b', 'c']))
    await sdk.close()
  })

  it('delivers to the GET stream on node A what a request on node B raised, exactly once', async () => {
    const [a, b] = await deployment(2)
    const session = await initialize(a!.url)
    const standalone = await getSse(a!.url, session.options)
    await standalone.waitForEvent(() => true)
    // subscribed through B: A, holding the GET stream, learns of it
    await callOn(b!, session, 1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })
    await callOn(b!, session, 2, 'tools/call', { name: 'touch_watched_resource', arguments: {} })
    await standalone.waitForMessage((m) => m.method === 'notifications/resources/updated')
    // a message the session sends on B outside any request
    await callOn(b!, session, 3, 'tools/call', { name: 'announce', arguments: { text: 'from b' } })
    await standalone.waitForMessage((m) => m.method === 'notifications/message')
    await sleep(150)
    expect(standalone.messages.map((m) => m.method)).toEqual(['notifications/resources/updated', 'notifications/message'])
    expect(notes(standalone)).toEqual(['from b'])
    // stored once, by the holder, with ids of the GET stream
    const ids = standalone.events.filter((e) => e.data !== '').map((e) => e.id)
    expect(new Set(ids.map(streamOf)).size).toBe(1)
    expect(streamOf(ids[0])).toBe(streamOf(standalone.events[0]!.id))
  })

  it('forwards the answer to an elicitation sent by node B when the client POSTs it to node A', async () => {
    const [a, b] = await deployment(2)
    const session = await initialize(a!.url, { capabilities: { elicitation: {} } })
    const call = await postSse(b!.url, callTool(1, 'test_elicitation', { message: 'name?' }), session.options)
    const question = await call.waitForMessage((m) => m.method === 'elicitation/create')
    expect(typeof question.id).toBe('string')
    const answered = await post(a!.url, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { username: 'bo', email: 'bo@example.com' } } }, session.options)
    expect(answered.status).toBe(202)
    const response = await call.waitForMessage((m) => m.id === 1)
    expect(response.result.content[0].text).toContain('bo@example.com')
  })

  it('carries a request node B sends outside any request on the GET stream held by node A, and its answer back from node C', async () => {
    const [a, b, c] = await deployment(3)
    const session = await initialize(a!.url, { capabilities: { roots: {} } })
    const standalone = await getSse(a!.url, session.options)
    await standalone.waitForEvent(() => true)
    const call = postSse(b!.url, callTool(1, 'roots_outside'), session.options)
    const question = await standalone.waitForMessage((m) => m.method === 'roots/list')
    const answered = await post(c!.url, { jsonrpc: '2.0', id: question.id, result: { roots: [{ uri: 'file:///work' }] } }, session.options)
    expect(answered.status).toBe(202)
    const response = await (await call).waitForMessage((m) => m.id === 1)
    expect(response.result.content).toEqual([{ type: 'text', text: 'file:///work' }])
  })

  it('cancels a request running on node A when notifications/cancelled is POSTed to node B', async () => {
    const [a, b] = await deployment(2)
    const session = await initialize(a!.url)
    const call = await postSse(a!.url, callTool(7, 'slow_count', { steps: 100, delayMs: 20 }, { progressToken: 7 }), session.options)
    await call.waitForMessage((m) => m.method === 'notifications/progress')
    const cancelled = await post(b!.url, notification('notifications/cancelled', { requestId: 7, reason: 'enough' }), session.options)
    expect(cancelled.status).toBe(202)
    const messages = await call.toEnd()
    expect(messages.some((m) => m.id === 7)).toBe(false)
    expect(messages.filter((m) => m.method === 'notifications/progress').length).toBeLessThan(50)
  })
})

describe('resuming on another node', () => {
  it('replays on node C what the GET stream missed after node A died, and carries on there: nothing lost, nothing twice', async () => {
    const [a, b, c] = await deployment(3)
    const session = await initialize(b!.url)
    const announce = (node: Node, id: number, text: string) => callOn(node, session, id, 'tools/call', { name: 'announce', arguments: { text } })
    const first = await getSse(a!.url, session.options)
    await first.waitForEvent(() => true)
    await announce(b!, 1, 'note 1')
    await announce(b!, 2, 'note 2')
    await first.waitForMessage((m) => m.params?.data === 'note 2')
    const noteOneId = first.events.find((e) => e.data.includes('note 1'))!.id
    const lastSeen = first.events.at(-1)!.id
    await a!.kill()
    await first.ended
    // nobody holds the stream now: the sender stores it for the client's return
    await announce(b!, 3, 'note 3')
    const resumed = await getSse(c!.url, { ...session.options, lastEventId: lastSeen })
    await resumed.waitForMessage((m) => m.params?.data === 'note 3')
    await announce(b!, 4, 'note 4')
    await announce(c!, 5, 'note 5')
    await resumed.waitForMessage((m) => m.params?.data === 'note 5')
    await sleep(100)
    expect([...notes(first), ...notes(resumed)]).toEqual(['note 1', 'note 2', 'note 3', 'note 4', 'note 5'])
    const ids = [...first.events, ...resumed.events].filter((e) => e.data !== '').map((e) => e.id!)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids.map(streamOf)).size).toBe(1)
    expect(ids.map(seqOf)).toEqual([...ids.map(seqOf)].sort((x, y) => x - y))

    // an older id on node B: B takes the stream over (C's copy ends) and replays from there
    const again = await getSse(b!.url, { ...session.options, lastEventId: noteOneId })
    await again.waitForMessage((m) => m.params?.data === 'note 5')
    await resumed.toEnd()
    expect(notes(again)).toEqual(['note 2', 'note 3', 'note 4', 'note 5'])
  })
})

describe('ending and counting sessions across nodes', () => {
  it('ends the session everywhere when it is deleted through node B', async () => {
    const [a, b, c] = await deployment(3)
    const session = await initialize(a!.url)
    const standalone = await getSse(a!.url, session.options)
    await standalone.waitForEvent(() => true)
    await callOn(c!, session, 1, 'tools/list')
    const deleted = await fetch(b!.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session.id, 'MCP-Protocol-Version': session.version } })
    expect(deleted.status).toBe(200)
    await standalone.toEnd()
    for (const node of [a!, b!, c!]) {
      const after = await post(node.url, request(2, 'tools/list'), session.options)
      expect(after.status).toBe(404)
    }
    await expect.poll(() => a!.handler.sessionCount + c!.handler.sessionCount).toBe(0)
  })

  it('drops only its own copy when a node finds the session idle: the others, and the events, carry on', async () => {
    const [a, b] = await deployment(2, { sessionIdleMs: 200 })
    const session = await initialize(a!.url)
    const answer = await postSse(a!.url, callTool(1, 'echo', { text: 'kept' }), session.options)
    await answer.toEnd()
    const priming = answer.events[0]!.id!
    await expect.poll(() => a!.handler.sessionCount, { timeout: 3_000 }).toBe(0)
    expect(b!.handler.sessionCount).toBe(0)
    // the store keeps the session (its own idle time is the default 30 minutes), and its events
    expect(await callOn(b!, session, 2, 'tools/call', { name: 'echo', arguments: { text: 'on b' } })).toMatchObject({ result: { content: [{ text: 'on b' }] } })
    const replay = await getSse(a!.url, { ...session.options, lastEventId: priming })
    expect((await replay.toEnd()).map((m) => m.id)).toEqual([1])
  })

  it("counts a principal's sessions across nodes: spreading initialize over them gains nothing", async () => {
    const [a, b, c] = await deployment(3, { maxSessionsPerPrincipal: 2 })
    const first = await initialize(a!.url)
    await initialize(b!.url)
    const third = await post(c!.url, request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }))
    expect(third.status).toBe(429)
    // one ended: room for another, on any node
    await fetch(c!.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': first.id, 'MCP-Protocol-Version': first.version } })
    await initialize(c!.url)
  })

  it('counts all sessions across nodes against maxSessions', async () => {
    const [a, b] = await deployment(2, { maxSessions: 2 })
    await initialize(a!.url)
    await initialize(a!.url)
    const third = await post(b!.url, request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }))
    expect(third.status).toBe(503)
  })
})

describe('server-wide notifications across nodes', () => {
  it('reaches listen streams and GET streams on every node, once each, when raised on node B', async () => {
    const [a, b] = await deployment(2)
    const v = '2026-07-28'
    const meta = { 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientCapabilities': {} }
    const listen = await postSse(a!.url, request(500, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: meta }), {
      headers: { 'MCP-Protocol-Version': v, 'Mcp-Method': 'subscriptions/listen' },
    })
    await listen.waitForMessage((m) => m.method === 'notifications/subscriptions/acknowledged')
    // both sessions began on A; one moved its GET stream to B
    const onA = await initialize(a!.url)
    const onB = await initialize(a!.url)
    const streamOnA = await getSse(a!.url, onA.options)
    const streamOnB = await getSse(b!.url, onB.options)
    await Promise.all([streamOnA.waitForEvent(() => true), streamOnB.waitForEvent(() => true)])
    await callOn(b!, onA, 1, 'tools/call', { name: 'grow', arguments: {} })
    const changed = (m: Message) => m.method === 'notifications/tools/list_changed'
    await Promise.all([listen.waitForMessage(changed), streamOnA.waitForMessage(changed), streamOnB.waitForMessage(changed)])
    await sleep(150)
    for (const stream of [listen, streamOnA, streamOnB]) expect(stream.messages.filter(changed)).toHaveLength(1)
  })
})

describe('Redis down', () => {
  it('answers 503 with a JSON-RPC error and Retry-After, then serves the same session again once Redis is back', async () => {
    const [a, b] = await deployment(2)
    const session = await initialize(a!.url)
    await redis.stop()
    try {
      const call = await post(b!.url, callTool(41, 'echo', { text: 'x' }), session.options)
      expect(call.status).toBe(503)
      expect(call.headers.get('retry-after')).toBe('5')
      expect(await call.json()).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32000 } })
      const local = await post(a!.url, callTool(42, 'echo', { text: 'x' }), session.options)
      expect(local.status).toBe(503)
      expect(await local.json()).toMatchObject({ id: 42 })
      const fresh = await post(b!.url, request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }))
      expect(fresh.status).toBe(503)
      expect(await fresh.json()).toMatchObject({ id: 0, error: { code: -32000 } })
    } finally {
      await redis.start()
    }
    // each node's Redis client reconnects on its own schedule: until it has, that node still answers 503
    for (const node of [b!, a!]) {
      await expect.poll(async () => (await post(node.url, callTool(43, 'echo', { text: 'back' }), session.options)).status, { timeout: 10_000, interval: 200 }).toBe(200)
    }
    expect(await callOn(a!, session, 44, 'tools/call', { name: 'echo', arguments: { text: 'again' } })).toMatchObject({ result: { content: [{ text: 'again' }] } })
  })
})
