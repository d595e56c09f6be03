import { describe, expect, it } from 'vitest'
import { ErrorCode } from '../../src/jsonrpc/index.js'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import { McpServer } from '../../src/server/mcp-server.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'
import { connectRawClient, flush } from './harness.js'

function demoish(): McpServer {
  const server = new McpServer({ name: 'demo', version: '9' }, { instructions: 'be nice' })
  server.registerTool({ name: 'ping_tool' }, () => ({ content: [{ type: 'text', text: 'pong' }] }))
  return server
}

/** Watch every raw payload the server sends. */
async function rawPair(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const received: unknown[] = []
  clientSide.onmessage = (payload) => received.push(payload)
  await clientSide.start()
  await server.connect(serverSide)
  const send = async (payload: unknown) => {
    await clientSide.send(payload as never)
    await flush()
  }
  return { received, send }
}

const init = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
})

describe('initialize', () => {
  it('answers with the requested version when supported, with capabilities, serverInfo and instructions', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const { peer, session } = await connectRawClient(demoish(), { initialize: false })
      const result = await peer.request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } })
      expect(result).toEqual({
        protocolVersion: version,
        capabilities: { logging: {}, tools: { listChanged: true } },
        serverInfo: { name: 'demo', version: '9' },
        instructions: 'be nice',
      })
      expect(session.protocolVersion).toBe(version)
    }
  })

  it('answers an unsupported version with its latest', async () => {
    const { peer } = await connectRawClient(demoish(), { initialize: false })
    const result = await peer.request('initialize', { protocolVersion: '2023-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    expect(result.protocolVersion).toBe('2025-11-25')
  })

  it('refuses initialize without clientInfo or capabilities with -32602', async () => {
    const { peer } = await connectRawClient(demoish(), { initialize: false })
    await expect(peer.request('initialize', { protocolVersion: '2025-11-25' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })

  it('refuses requests other than ping before initialize, and a second initialize', async () => {
    const { peer } = await connectRawClient(demoish(), { initialize: false })
    await expect(peer.request('ping')).resolves.toEqual({})
    await expect(peer.request('tools/list')).rejects.toMatchObject({ code: ErrorCode.InvalidRequest })
    await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    await expect(peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
    })
  })

  it('serves requests without initialize when strictLifecycle is off (stateless HTTP)', async () => {
    const server = new McpServer({ name: 'demo', version: '9' }, { strictLifecycle: false })
    server.registerTool({ name: 't' }, () => ({ content: [] }))
    const { peer } = await connectRawClient(server, { initialize: false })
    await expect(peer.request('tools/list')).resolves.toMatchObject({ tools: [{ name: 't' }] })
  })

  it('answers -32601 for a feature the server does not offer', async () => {
    const { peer } = await connectRawClient(demoish())
    await expect(peer.request('prompts/list')).rejects.toMatchObject({ code: ErrorCode.MethodNotFound })
  })
})

describe('batches', () => {
  it('accepts a batch on a 2025-03-26 session and answers with one array', async () => {
    const { received, send } = await rawPair(demoish())
    await send(init(1, '2025-03-26'))
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    await send([
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ping_tool' } },
    ])
    const batch = received.at(-1) as Array<{ id: number; result: unknown }>
    expect(Array.isArray(batch)).toBe(true)
    expect(batch.map((r) => r.id).sort()).toEqual([2, 3])
    expect(batch.find((r) => r.id === 3)!.result).toEqual({ content: [{ type: 'text', text: 'pong' }] })
  })

  it('refuses a batch that contains initialize', async () => {
    const { received, send } = await rawPair(demoish())
    await send(init(1, '2025-03-26'))
    await send([init(2, '2025-03-26')])
    expect(received.at(-1)).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } })
  })

  it('refuses batches on 2025-06-18 and later with -32600 and id null', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const { received, send } = await rawPair(demoish())
      await send(init(1, version))
      await send([{ jsonrpc: '2.0', id: 2, method: 'ping' }])
      expect(received.at(-1)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest } })
    }
  })

  it('answers malformed input with -32600 and keeps serving', async () => {
    const { received, send } = await rawPair(demoish())
    await send('just a string')
    expect(received.at(-1)).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } })
    await send({ jsonrpc: '1.0', id: 5, method: 'ping' })
    expect(received.at(-1)).toMatchObject({ id: 5, error: { code: ErrorCode.InvalidRequest } })
    await send(init(6, '2025-11-25'))
    expect(received.at(-1)).toMatchObject({ id: 6, result: { protocolVersion: '2025-11-25' } })
  })
})

describe('logging', () => {
  it('sends every level until the client sets one, then only that level and above', async () => {
    const server = demoish()
    const { peer, session, notifications } = await connectRawClient(server)
    await session.log('debug', 'd0')
    await peer.request('logging/setLevel', { level: 'warning' })
    await session.log('info', 'i1')
    await session.log('warning', 'w1', 'disk')
    await server.log('error', 'e1')
    await flush()
    expect(notifications).toEqual([
      { method: 'notifications/message', params: { level: 'debug', data: 'd0' } },
      { method: 'notifications/message', params: { level: 'warning', logger: 'disk', data: 'w1' } },
      { method: 'notifications/message', params: { level: 'error', data: 'e1' } },
    ])
  })

  it('refuses an unknown level with -32602', async () => {
    const { peer } = await connectRawClient(demoish())
    await expect(peer.request('logging/setLevel', { level: 'loud' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })
})

describe('server to client requests', () => {
  it('refuses sampling, elicitation and roots locally when the client did not declare them', async () => {
    const { session } = await connectRawClient(demoish())
    for (const call of [
      () => session.createMessage({ messages: [], maxTokens: 1 }),
      () => session.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } }),
      () => session.listRoots(),
    ]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(LocalError)
      expect((error as LocalError).code).toBe('capability_not_supported')
    }
  })

  it('refuses URL-mode elicitation when the client declared only form mode', async () => {
    const { session } = await connectRawClient(demoish(), { capabilities: { elicitation: { form: {} } } })
    await expect(session.elicit({ mode: 'url', message: 'go', url: 'https://example.com', elicitationId: 'e1' })).rejects.toMatchObject({ code: 'capability_not_supported' })
  })

  it('lets a tool sample, elicit and list roots on the same request, and sees the answers', async () => {
    const server = new McpServer({ name: 's', version: '1' })
    server.registerTool({ name: 'ask' }, async (_args, context) => {
      const sampled = await context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })
      const elicited = await context.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      const { roots } = await context.listRoots()
      return { content: [{ type: 'text', text: `${JSON.stringify(sampled.content)}|${elicited.action}:${JSON.stringify(elicited.content)}|${roots.length}` }] }
    })
    const { peer } = await connectRawClient(server, { capabilities: { sampling: {}, elicitation: {}, roots: {} } })
    peer.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }))
    peer.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Ada' } }))
    peer.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///tmp' }] }))
    const result = await peer.request('tools/call', { name: 'ask' })
    expect(result.content).toEqual([{ type: 'text', text: '{"type":"text","text":"hello"}|accept:{"name":"Ada"}|1' }])
  })

  it('refuses an elicitation answer without a valid action', async () => {
    const { peer, session } = await connectRawClient(demoish(), { capabilities: { elicitation: {} } })
    peer.setRequestHandler('elicitation/create', () => ({ action: 'maybe' }))
    await expect(session.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } })).rejects.toMatchObject({ code: 'invalid_response' })
  })
})

describe('handler context', () => {
  it('aborts a tool handler when the client cancels, and sends no response for it', async () => {
    const server = new McpServer({ name: 's', version: '1' })
    let aborted: unknown
    server.registerTool(
      { name: 'wait' },
      (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = context.signal.reason
            reject(context.signal.reason)
          })
        }),
    )
    const { peer } = await connectRawClient(server)
    const controller = new AbortController()
    const call = peer.request('tools/call', { name: 'wait' }, { signal: controller.signal })
    await flush()
    controller.abort(new Error('user gave up'))
    await expect(call).rejects.toMatchObject({ code: 'request_cancelled' })
    await flush()
    expect((aborted as Error).message).toBe('user gave up')
  })

  it('reports progress to a caller that asked for it', async () => {
    const server = new McpServer({ name: 's', version: '1' })
    server.registerTool({ name: 'work' }, async (_args, context) => {
      await context.sendProgress(1, 3)
      await context.sendProgress(2, 3, 'halfway')
      return { content: [] }
    })
    const { peer } = await connectRawClient(server)
    const updates: unknown[] = []
    await peer.request('tools/call', { name: 'work' }, { onprogress: (p) => updates.push(p) })
    expect(updates).toEqual([
      { progressToken: expect.any(Number), progress: 1, total: 3 },
      { progressToken: expect.any(Number), progress: 2, total: 3, message: 'halfway' },
    ])
  })

  it('hands the transport’s auth info to handlers', async () => {
    const server = new McpServer({ name: 's', version: '1' })
    server.registerTool({ name: 'whoami' }, (_args, context) => ({ content: [{ type: 'text', text: `${context.authInfo?.subject}/${context.authInfo?.scopes.join(' ')}` }] }))
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    serverSide.authInfo = { token: 't', clientId: 'c', scopes: ['mcp:tools'], subject: 'alice' }
    await server.connect(serverSide)
    const peer = new Endpoint()
    await peer.connect(clientSide)
    await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    const result = await peer.request('tools/call', { name: 'whoami' })
    expect(result.content).toEqual([{ type: 'text', text: 'alice/mcp:tools' }])
  })

  it('forgets a session when its connection closes', async () => {
    const server = demoish()
    const { clientSide } = await connectRawClient(server)
    expect(server.sessions.size).toBe(1)
    await clientSide.close()
    await flush()
    expect(server.sessions.size).toBe(0)
  })
})
