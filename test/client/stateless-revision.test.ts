/**
 * McpClient in the stateless revision (2026-07-28) against our own server over real HTTP:
 * server/discover instead of initialize, `_meta` and headers on every request, input-required
 * rounds answered through the usual handlers, the listen stream for change notices and resource
 * updates, per-request log levels, the fallback to initialize and the -32022 retry.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 */
import type { IncomingHttpHeaders } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { WATCHED_RESOURCE_URI } from '../../src/demo/demo-resources.js'
import { JsonRpcError } from '../../src/jsonrpc/index.js'
import { LocalError } from '../../src/protocol/errors.js'
import type { McpServer } from '../../src/server/mcp-server.js'
import { StreamableHttpHandler, type StreamableHttpOptions } from '../../src/transports/streamable-http/server/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { StdioClientTransport } from '../../src/transports/stdio/index.js'
import { CLI_PATH } from '../helpers/paths.js'
import { listenOnLoopback } from '../helpers/listen.js'

const clientInfo = { name: 'stateless-client-test', version: '1.0.0' }
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
})

interface Seen {
  method: string | undefined
  headers: IncomingHttpHeaders
  body: Record<string, any>
}

/** Our demo server behind a StreamableHttpHandler, with every POST's headers and body recorded. */
async function startServer(server: McpServer = createDemoServer(), options: Partial<StreamableHttpOptions> = {}) {
  const handler = new StreamableHttpHandler(server, { allowedHosts: ['127.0.0.1'], ...options })
  const seen: Seen[] = []
  const { url, close } = await listenOnLoopback((req, res) => {
    if (req.method !== 'POST') return void handler.handle(req, res)
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: Record<string, any> = {}
      try {
        body = JSON.parse(text) as Record<string, any>
      } catch {
        // recorded as empty; the handler answers the parse error
      }
      seen.push({ method: body.method, headers: req.headers, body })
      void handler.handle(req, res, body)
    })
  })
  closers.push(async () => {
    await handler.close()
    await close()
  })
  return { url: `${url}/mcp`, seen, handler, server }
}

async function connect(url: string, options: ConstructorParameters<typeof McpClient>[1] = {}, setup?: (client: McpClient) => void) {
  const client = new McpClient(clientInfo, options)
  setup?.(client)
  await client.connect(new StreamableHttpClientTransport(url))
  closers.push(() => client.close())
  return client
}

describe('McpClient against a server that speaks 2026-07-28', () => {
  it('connects with server/discover, never initialize, and holds no session', async () => {
    const { url, seen, handler } = await startServer()
    const client = await connect(url)
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(client.serverInfo).toMatchObject({ name: 'mcp-auth-demo' })
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true } })
    expect(seen.map((s) => s.method)).not.toContain('initialize')
    expect(seen[0]!.method).toBe('server/discover')
    expect(handler.sessionCount).toBe(0)
    expect(seen.every((s) => s.headers['mcp-session-id'] === undefined)).toBe(true)
  })

  it('sends _meta and the standard headers on every request, Mcp-Name where the method has one', async () => {
    const { url, seen } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    await client.listTools()
    await client.callTool('echo', { text: 'hi' })
    await client.readResource('test://static-text')
    await client.getPrompt('test_simple_prompt')
    for (const { method, headers, body } of seen) {
      expect(headers['mcp-protocol-version']).toBe('2026-07-28')
      expect(headers['mcp-method']).toBe(method)
      expect(body.params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': clientInfo,
      })
    }
    const name = (method: string) => seen.find((s) => s.method === method)!.headers['mcp-name']
    expect(name('tools/call')).toBe('echo')
    expect(name('resources/read')).toBe('test://static-text')
    expect(name('prompts/get')).toBe('test_simple_prompt')
    expect(name('tools/list')).toBeUndefined()
  })

  it('answers an input-required round through the elicitation handler and retries as a new request', async () => {
    const { url, seen } = await startServer()
    const elicit = vi.fn(async () => ({ action: 'accept' as const, content: { name: 'Ada' } }))
    const client = await connect(url, { listenForChanges: false }, (c) => c.setElicitationHandler(elicit))
    const result = await client.callTool('test_input_required_result_elicitation', {})
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    expect(elicit).toHaveBeenCalledOnce()
    const calls = seen.filter((s) => s.method === 'tools/call')
    expect(calls).toHaveLength(2)
    expect(calls[0]!.body.id).not.toBe(calls[1]!.body.id)
    expect(calls[0]!.body.params.inputResponses).toBeUndefined()
    expect(calls[1]!.body.params.inputResponses).toEqual({ user_name: { action: 'accept', content: { name: 'Ada' } } })
    expect(typeof calls[1]!.body.params.requestState).toBe('string')
  })

  it('answers sampling and roots questions through the same handlers', async () => {
    const { url } = await startServer()
    const client = await connect(url, { listenForChanges: false }, (c) => {
      c.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' }))
      void c.setRoots([{ uri: 'file:///work', name: 'work' }])
    })
    expect((await client.callTool('test_input_required_result_sampling', {})).content).toEqual([{ type: 'text', text: 'The model said: Paris' }])
    expect((await client.callTool('test_input_required_result_list_roots', {})).content).toEqual([{ type: 'text', text: 'The client has 1 root(s): file:///work' }])
  })

  it('echoes requestState byte for byte across rounds of a sealed state', async () => {
    const { url, seen } = await startServer()
    const client = await connect(url, { listenForChanges: false }, (c) => c.setElicitationHandler(async () => ({ action: 'accept', content: { ok: true } })))
    const result = await client.callTool('test_input_required_result_request_state', {})
    expect(result.content).toEqual([{ type: 'text', text: 'state-ok: confirmed=true' }])
    expect(seen.filter((s) => s.method === 'tools/call')).toHaveLength(2)
  })

  it('fails a call whose question needs a capability the client did not declare, with the server’s -32021', async () => {
    const { url } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    const failure = await client.callTool('test_input_required_result_elicitation', {}).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(JsonRpcError)
    expect((failure as JsonRpcError).code).toBe(-32021)
  })

  it('gives up after maxInputRounds rounds', async () => {
    const server = createDemoServer()
    let asked = 0
    server.registerTool({ name: 'ask_forever' }, async (_args, context) => {
      await context.elicit({ message: `question ${asked++}`, requestedSchema: { type: 'object', properties: {} } }, { key: `q${asked}` })
      return { content: [] }
    })
    const { url } = await startServer(server)
    const client = await connect(url, { listenForChanges: false, maxInputRounds: 3 }, (c) => c.setElicitationHandler(async () => ({ action: 'accept', content: {} })))
    const failure = await client.callTool('ask_forever', {}).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(LocalError)
    expect((failure as LocalError).code).toBe('too_many_input_rounds')
  })

  it('hears list changes on its listen stream without asking', async () => {
    const { url, server, seen } = await startServer()
    const client = await connect(url)
    await vi.waitFor(() => expect(seen.some((s) => s.method === 'subscriptions/listen')).toBe(true))
    const listen = seen.find((s) => s.method === 'subscriptions/listen')!
    expect(listen.body.params.notifications).toMatchObject({ toolsListChanged: true, promptsListChanged: true })
    const changed = new Promise<void>((resolve) => client.once('toolsListChanged', resolve))
    // wait for the acknowledgement before changing the list, so the notice has a stream to go on
    await vi.waitFor(() => expect(server.subscriptionCount).toBeGreaterThan(0))
    server.registerTool({ name: 'late_tool' }, async () => ({ content: [] }))
    await changed
    expect((await client.listAllTools()).map((tool) => tool.name)).toContain('late_tool')
  })

  it('subscribes to a resource through the listen filter and gets its updates', async () => {
    const { url, server, seen } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    await client.subscribeResource(WATCHED_RESOURCE_URI)
    const listen = seen.filter((s) => s.method === 'subscriptions/listen').at(-1)!
    expect(listen.body.params.notifications).toEqual({ resourceSubscriptions: [WATCHED_RESOURCE_URI] })
    expect(seen.map((s) => s.method)).not.toContain('resources/subscribe')
    const updated = new Promise<{ uri: string }>((resolve) => client.once('resourceUpdated', resolve))
    await server.notifyResourceUpdated(WATCHED_RESOURCE_URI)
    expect(await updated).toMatchObject({ uri: WATCHED_RESOURCE_URI })
    await client.unsubscribeResource(WATCHED_RESOURCE_URI)
    await vi.waitFor(() => expect(server.subscriptionCount).toBe(0))
  })

  it('sends the logging level in _meta of later requests instead of logging/setLevel, and gets the logs', async () => {
    const { url, seen } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    const logs: unknown[] = []
    client.on('logging', (log) => logs.push(log))
    await client.setLoggingLevel('debug')
    expect(seen.map((s) => s.method)).not.toContain('logging/setLevel')
    await client.callTool('test_tool_with_logging', {})
    const call = seen.find((s) => s.method === 'tools/call')!
    expect(call.body.params._meta['io.modelcontextprotocol/logLevel']).toBe('debug')
    expect(logs.length).toBeGreaterThan(0)
  })

  it('pings with server/discover, which this revision has instead of ping', async () => {
    const { url, seen } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    await client.ping()
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'server/discover'])
  })

  it('reports progress of a 2026-07-28 call that asked for it', async () => {
    const { url } = await startServer()
    const client = await connect(url, { listenForChanges: false })
    const progress: number[] = []
    await client.callTool('test_tool_with_progress', {}, { onprogress: (p) => progress.push(p.progress) })
    expect(progress.length).toBeGreaterThan(0)
  })

  it('cancels a call by ending its HTTP request, and the server sees the handler aborted', async () => {
    const server = createDemoServer()
    let aborted: Promise<void> | undefined
    server.registerTool({ name: 'slow' }, async (_args, context) => {
      aborted = new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }))
      await aborted
      return { content: [] }
    })
    const { url } = await startServer(server)
    const client = await connect(url, { listenForChanges: false })
    const controller = new AbortController()
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await vi.waitFor(() => expect(aborted).toBeDefined())
    controller.abort(new Error('user gave up'))
    await expect(call).rejects.toMatchObject({ code: 'request_cancelled' })
    await aborted
  })
})

describe('McpClient over stdio against our demo server', () => {
  it('speaks 2026-07-28 on the pipe: discover, an input round, a resource subscription through listen', async () => {
    const client = new McpClient(clientInfo)
    client.setElicitationHandler(async () => ({ action: 'accept', content: { name: 'Ada' } }))
    closers.push(() => client.close())
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'demo-server', '--stdio'], stderr: 'pipe' }))
    expect(client.protocolVersion).toBe('2026-07-28')
    expect((await client.callTool('test_input_required_result_elicitation', {})).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    await client.subscribeResource(WATCHED_RESOURCE_URI)
    const updated = new Promise<{ uri: string }>((resolve) => client.once('resourceUpdated', resolve))
    await client.callTool('touch_watched_resource', {})
    expect(await updated).toMatchObject({ uri: WATCHED_RESOURCE_URI })
  })

  it('still speaks 2025-11-25 on the pipe when pinned', async () => {
    const client = new McpClient(clientInfo, { protocolVersion: '2025-11-25' })
    closers.push(() => client.close())
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'demo-server', '--stdio'], stderr: 'pipe' }))
    expect(client.protocolVersion).toBe('2025-11-25')
    await client.ping()
  })
})

describe('McpClient version negotiation', () => {
  it('falls back to initialize with the newest handshake revision when the server does not speak 2026-07-28', async () => {
    const server = createDemoServer({ supportedProtocolVersions: ['2025-11-25', '2025-06-18'] })
    const { url, seen } = await startServer(server)
    const client = await connect(url)
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen.map((s) => s.method).slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized'])
    expect((await client.callTool('echo', { text: 'old' })).content).toEqual([{ type: 'text', text: 'old' }])
  })

  it('fails instead of falling back when 2026-07-28 is pinned and the server lacks it', async () => {
    const server = createDemoServer({ supportedProtocolVersions: ['2025-11-25'] })
    const { url } = await startServer(server)
    const client = new McpClient(clientInfo, { protocolVersion: '2026-07-28' })
    await expect(client.connect(new StreamableHttpClientTransport(url))).rejects.toMatchObject({ code: 'unsupported_protocol_version' })
  })

  it('skips server/discover when a handshake-era revision is pinned', async () => {
    const { url, seen } = await startServer()
    const client = await connect(url, { protocolVersion: '2025-06-18' })
    expect(client.protocolVersion).toBe('2025-06-18')
    expect(seen[0]!.method).toBe('initialize')
  })

  it('retries server/discover in a revision from data.supported after -32022', async () => {
    // a server that refuses the first revision it is asked for and speaks only another stateless
    // one is not something we can build with a real revision list yet, so the refusal is
    // made by a proxy in front of our server that rewrites nothing else
    const { url: upstream } = await startServer()
    const requested: string[] = []
    const proxy = await listenOnLoopback((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
        const version = String(req.headers['mcp-protocol-version'])
        requested.push(version)
        if (requested.length === 1) {
          res.writeHead(400, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: body.id,
              error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: version } },
            }),
          )
          return
        }
        const forwarded = await fetch(upstream, { method: 'POST', headers: req.headers as Record<string, string>, body: JSON.stringify(body) })
        res.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' })
        res.end(await forwarded.text())
      })
    })
    closers.push(proxy.close)
    const client = new McpClient(clientInfo, { supportedProtocolVersions: ['2026-07-28', '2025-11-25'], listenForChanges: false })
    await client.connect(new StreamableHttpClientTransport(`${proxy.url}/mcp`))
    closers.push(() => client.close())
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(requested.slice(0, 2)).toEqual(['2026-07-28', '2026-07-28'])
  })
})
