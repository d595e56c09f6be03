import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpHttpApp, type McpHttpApp } from '../../../src/app/mcp-http-app.js'
import { McpClient } from '../../../src/client/index.js'
import { createDemoServer } from '../../../src/demo/demo-server.js'
import { HttpTransportError } from '../../../src/transports/http/http-transport-error.js'
import { StreamableHttpClientTransport } from '../../../src/transports/streamable-http/client/index.js'
import { rawServer, sdkStreamablePeer, type Peer } from './sdk-peers.js'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A client of the handshake era (these tests are about sessions, GET streams and resumption). */
async function client(url: string, options: ConstructorParameters<typeof StreamableHttpClientTransport>[1] = {}, protocolVersion: string | null = '2025-11-25') {
  const c = new McpClient({ name: 'http-client-test', version: '1' }, protocolVersion === null ? {} : { protocolVersion })
  const transport = new StreamableHttpClientTransport(url, options)
  cleanups.push(() => c.close())
  await c.connect(transport)
  return { c, transport }
}

async function peer(options: Parameters<typeof sdkStreamablePeer>[0] = {}): Promise<Peer> {
  const p = await sdkStreamablePeer(options)
  cleanups.push(() => p.close())
  return p
}

async function ours(options: Partial<Parameters<typeof createMcpHttpApp>[1]> = {}): Promise<{ url: string; http: McpHttpApp }> {
  const http = createMcpHttpApp(createDemoServer(), { host: '127.0.0.1', ...options })
  const listener: Server = createServer(http.handler)
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    await http.close()
    listener.closeAllConnections()
    await new Promise((resolve) => listener.close(resolve))
  })
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`, http }
}

describe('StreamableHttpClientTransport against the official SDK server', () => {
  for (const json of [false, true]) {
    it(`calls tools over ${json ? 'JSON' : 'SSE'} answers, with progress`, async () => {
      const p = await peer({ json })
      const { c } = await client(p.url)
      expect((await c.callTool('echo', { text: 'hello' })).content).toEqual([{ type: 'text', text: 'hello' }])
      const progress: number[] = []
      const done = await c.callTool('count', { steps: 2 }, { onprogress: (u) => progress.push(u.progress) })
      expect(done.content).toEqual([{ type: 'text', text: 'counted 2' }])
      if (!json) expect(progress).toEqual([1, 2])
    })
  }

  it('keeps the session id and sends MCP-Protocol-Version on every request after initialize', async () => {
    const p = await peer()
    const { c, transport } = await client(p.url)
    await c.listAllTools()
    const posts = p.seen.filter((s) => s.method === 'POST')
    expect(posts[0]!.headers['mcp-session-id']).toBeUndefined()
    expect(posts[0]!.headers.accept).toBe('application/json, text/event-stream')
    for (const later of posts.slice(1)) {
      expect(later.headers['mcp-session-id']).toBe(transport.sessionId)
      expect(later.headers['mcp-protocol-version']).toBe('2025-11-25')
    }
  })

  it('probes with server/discover, then falls back to initialize with a server of the handshake era', async () => {
    const p = await peer()
    const { c, transport } = await client(p.url, {}, null)
    expect(c.protocolVersion).toBe('2025-11-25')
    const posts = p.seen.filter((s) => s.method === 'POST')
    expect(posts[0]!.headers['mcp-protocol-version']).toBe('2026-07-28')
    expect(posts[0]!.headers['mcp-method']).toBe('server/discover')
    // the fallback starts clean: no stateless headers and no version before initialize answers
    expect(posts[1]!.headers['mcp-protocol-version']).toBeUndefined()
    expect(posts[1]!.headers['mcp-method']).toBeUndefined()
    expect(transport.sessionId).toBeDefined()
    expect((await c.listAllTools()).length).toBeGreaterThan(0)
  })

  it('re-initializes once, transparently, when the server forgot the session (404)', async () => {
    const p = await peer()
    const { c, transport } = await client(p.url)
    const first = transport.sessionId
    p.sessions.clear()
    expect((await c.callTool('echo', { text: 'again' })).content).toEqual([{ type: 'text', text: 'again' }])
    expect(transport.sessionId).not.toBe(first)
    expect(p.seen.filter((s) => (s.body as { method?: string } | undefined)?.method === 'initialize')).toHaveLength(2)
  })

  it('tolerates a server without a GET stream (405)', async () => {
    const p = await peer({ stateless: true, json: true })
    const errors: Error[] = []
    const { c, transport } = await client(p.url)
    transport.onerror = (e) => errors.push(e)
    expect((await c.callTool('echo', { text: 'x' })).content).toEqual([{ type: 'text', text: 'x' }])
    await expect.poll(() => p.seen.some((s) => s.method === 'GET')).toBe(true)
    expect(errors).toEqual([])
  })

  it('surfaces a 401 with its WWW-Authenticate challenge', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' }).end()
    })
    cleanups.push(() => server.close())
    const c = new McpClient({ name: 't', version: '1' })
    const error = await c.connect(new StreamableHttpClientTransport(server.url)).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HttpTransportError)
    expect(error).toMatchObject({ status: 401, wwwAuthenticate: expect.stringContaining('resource_metadata=') })
  })
})

describe('StreamableHttpClientTransport against our server', () => {
  it('receives server notifications on the standalone GET stream', async () => {
    const { url, http } = await ours()
    const { c } = await client(url)
    const updates: string[] = []
    c.on('resourceUpdated', ({ uri }) => updates.push(uri))
    await c.subscribeResource('test://watched-resource')
    await expect.poll(() => http.streamable.sessionCount).toBe(1)
    // the GET stream is opened right after initialization; give it a moment to attach
    await new Promise((resolve) => setTimeout(resolve, 50))
    await c.callTool('touch_watched_resource')
    await expect.poll(() => updates).toEqual(['test://watched-resource'])
  })

  it('resumes a dropped POST stream with Last-Event-ID, after the retry the server asked for', async () => {
    const { url } = await ours({ retryMs: 150 })
    let dropped = false
    const gets: Array<{ lastEventId: string | null; at: number }> = []
    let droppedAt = 0
    // a fetch that cuts the slow_count answer after its first events, as a flaky network would
    const flaky: typeof fetch = async (input, init) => {
      const res = await fetch(input, init)
      if (init?.method === 'GET') gets.push({ lastEventId: new Headers(init.headers).get('last-event-id'), at: Date.now() })
      if (dropped || init?.method !== 'POST' || !String(init.body).includes('slow_count')) return res
      dropped = true
      const reader = res.body!.getReader()
      const first = await reader.read()
      let delivered = false
      const cut = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!delivered) {
            delivered = true
            controller.enqueue(first.value!)
            return
          }
          droppedAt = Date.now()
          controller.error(new Error('connection reset'))
          void reader.cancel()
        },
      })
      return new Response(cut, { status: res.status, headers: res.headers })
    }
    const { c } = await client(url, { fetch: flaky, openGetStream: false })
    const progress: number[] = []
    const result = await c.callTool('slow_count', { steps: 4, delayMs: 60 }, { onprogress: (p) => progress.push(p.progress) })
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 4' }])
    expect(dropped).toBe(true)
    const resume = gets.find((g) => g.lastEventId !== null)
    expect(resume?.lastEventId).toMatch(/_\d+$/)
    expect(resume!.at - droppedAt).toBeGreaterThanOrEqual(140)
    expect(progress.at(-1)).toBe(4)
  })

  it('ends the session with DELETE on close', async () => {
    const { url, http } = await ours()
    const { c } = await client(url)
    expect(http.streamable.sessionCount).toBe(1)
    await c.close()
    expect(http.streamable.sessionCount).toBe(0)
  })
})
