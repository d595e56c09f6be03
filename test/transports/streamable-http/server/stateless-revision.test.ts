/**
 * MCP 2026-07-28 on the Streamable HTTP endpoint, over real HTTP: the stateless path beside the
 * handshake one, its refusals (status, code, the request's id), multi-round input with sealed
 * state, per-request log levels, subscriptions/listen and its caps.
 * Issue 14: a stream the client closes before its answer aborts the handler and leaves the
 * subscription hub (both were missed: node marks the response destroyed before 'close').
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createDemoServer } from '../../../../src/demo/demo-server.js'
import { McpServer } from '../../../../src/server/mcp-server.js'
import { closeAll, initialize, post, postSse, readAnswer, request, sleep, startHandler, type Message } from './http-harness.js'

afterEach(closeAll)

const V = '2026-07-28'
const META_KEY = 'io.modelcontextprotocol/protocolVersion'
const meta = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  [META_KEY]: V,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'stateless-test', version: '1.0.0' },
  ...extra,
})

/** The headers a conforming 2026-07-28 client sends for `method` (Mcp-Name where the method has one). */
function headersFor(method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'MCP-Protocol-Version': V, 'Mcp-Method': method }
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined
  if (typeof name === 'string') headers['Mcp-Name'] = name
  return headers
}

let nextId = 1
async function send(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: { capabilities?: Record<string, unknown>; headers?: Record<string, string>; id?: number } = {},
) {
  const body = { ...params, _meta: { ...meta(options.capabilities), ...(params._meta as object | undefined) } }
  const id = options.id ?? nextId++
  const response = await post(url, request(id, method, body), { headers: { ...headersFor(method, params), ...options.headers } })
  const messages = await readAnswer(response)
  return { status: response.status, response, messages, answer: messages.find((m) => m.id === id) as Message, id }
}

describe('a 2026-07-28 request on /mcp', () => {
  it('is served without initialize or session, with resultType and the server identity on the result', async () => {
    const { url, handler } = await startHandler()
    const { status, response, answer } = await send(url, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })
    expect(status).toBe(200)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(answer.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] })
    expect(answer.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcp-auth-demo' })
    expect(handler.sessionCount).toBe(0)
  })

  it('answers server/discover with every revision it speaks, newest first, and the capabilities', async () => {
    const { url } = await startHandler()
    const { answer } = await send(url, 'server/discover')
    expect(answer.result.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])
    expect(answer.result.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true } })
    expect(answer.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
  })

  it('puts the caching hints the server author chose on list results and resources/read', async () => {
    const server = createDemoServer({ cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } })
    const { url } = await startHandler({}, server)
    expect((await send(url, 'tools/list')).answer.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' })
    expect((await send(url, 'resources/read', { uri: 'test://static-text' })).answer.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
  })

  it('keeps older clients on the handshake path of the same endpoint', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-11-25' })
    const [answer] = await readAnswer(await post(url, request(2, 'tools/call', { name: 'echo', arguments: { text: 'old' } }), session.options))
    expect(answer!.result).toEqual({ content: [{ type: 'text', text: 'old' }] })
  })

  it('refuses a request whose _meta lacks the client capabilities with 400 and -32602, carrying the request id', async () => {
    const { url } = await startHandler()
    const response = await post(url, request(41, 'server/discover', { _meta: { [META_KEY]: V } }), { headers: headersFor('server/discover') })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ id: 41, error: { code: -32602 } })
  })

  it('refuses a header that disagrees with _meta (-32020) and an unknown revision (-32022 with what it speaks)', async () => {
    const { url } = await startHandler()
    const mismatch = await post(url, request(7, 'server/discover', { _meta: { ...meta(), [META_KEY]: '2099-01-01' } }), { headers: headersFor('server/discover') })
    expect(mismatch.status).toBe(400)
    expect(await mismatch.json()).toMatchObject({ id: 7, error: { code: -32020 } })

    const unknown = await post(url, request(8, 'server/discover', { _meta: { ...meta(), [META_KEY]: '2099-01-01' } }), {
      headers: { ...headersFor('server/discover'), 'MCP-Protocol-Version': '2099-01-01' },
    })
    expect(unknown.status).toBe(400)
    const body = (await unknown.json()) as { error: { data: { supported: string[] } } }
    expect(body).toMatchObject({ id: 8, error: { code: -32022, data: { requested: '2099-01-01' } } })
    expect(body.error.data.supported).toContain('2026-07-28')
  })

  it('refuses Mcp-Method and Mcp-Name headers that do not match the body (-32020), decoding the Base64 form', async () => {
    const { url } = await startHandler()
    const params = { name: 'echo', arguments: { text: 'x' } }
    expect((await send(url, 'tools/call', params, { headers: { 'Mcp-Method': 'tools/list' } })).answer.error.code).toBe(-32020)
    expect((await send(url, 'tools/call', params, { headers: { 'Mcp-Name': 'add' } })).answer.error.code).toBe(-32020)
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`
    expect((await send(url, 'tools/call', params, { headers: { 'Mcp-Name': encoded } })).answer.result.content).toEqual([{ type: 'text', text: 'x' }])
  })

  it('checks parameters a tool mirrors into Mcp-Param-* headers', async () => {
    const { url } = await startHandler()
    const params = { name: 'test_mirrored_header', arguments: { region: 'us-west1' } }
    expect((await send(url, 'tools/call', params, { headers: { 'Mcp-Param-Region': 'us-west1' } })).answer.result.content).toEqual([{ type: 'text', text: 'ran in us-west1' }])
    const missing = await send(url, 'tools/call', params)
    expect(missing.status).toBe(400)
    expect(missing.answer.error.code).toBe(-32020)
    expect((await send(url, 'tools/call', params, { headers: { 'Mcp-Param-Region': 'eu-west1' } })).answer.error.code).toBe(-32020)
  })

  it('answers methods 2026-07-28 removed, and unknown ones, with 404 and -32601', async () => {
    const { url } = await startHandler()
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'nope/nothing']) {
      const result = await send(url, method, method === 'resources/subscribe' ? { uri: 'test://static-text' } : {})
      expect([method, result.status, result.answer.error.code]).toEqual([method, 404, -32601])
    }
  })

  it('refuses GET and DELETE for 2026-07-28 with 405 (no standalone stream, no session)', async () => {
    const { url } = await startHandler()
    const got = await fetch(url, { headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': V } })
    expect(got.status).toBe(405)
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'MCP-Protocol-Version': V } })
    expect(deleted.status).toBe(405)
  })

  it('reports resources/read of an unknown URI as -32602 with the URI (SEP-2164)', async () => {
    const { url } = await startHandler()
    const { answer } = await send(url, 'resources/read', { uri: 'test://nowhere' })
    expect(answer.error).toMatchObject({ code: -32602, data: { uri: 'test://nowhere' } })
  })

  it('refuses a question the client cannot answer with -32021 naming the capability, over HTTP 400', async () => {
    const { url } = await startHandler()
    const result = await send(url, 'tools/call', { name: 'test_missing_capability', arguments: {} })
    expect(result.status).toBe(400)
    expect(result.answer.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })
  })
})

describe('multi-round input (MRTR) on 2026-07-28', () => {
  const tool = { name: 'test_input_required_result_multi_round', arguments: {} }
  const caps = { elicitation: {} }
  const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })

  it('runs the same handler that elicits on a session, round by round, carrying earlier answers in requestState', async () => {
    const { url } = await startHandler()
    const first = (await send(url, 'tools/call', tool, { capabilities: caps })).answer.result
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { step1: { method: 'elicitation/create' } } })
    const second = (await send(url, 'tools/call', { ...tool, inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: first.requestState }, { capabilities: caps })).answer
      .result
    expect(second).toMatchObject({ resultType: 'input_required', inputRequests: { step2: { method: 'elicitation/create' } } })
    expect(second.inputRequests.step1).toBeUndefined()
    const third = (await send(url, 'tools/call', { ...tool, inputResponses: { step2: accept({ color: 'green' }) }, requestState: second.requestState }, { capabilities: caps }))
      .answer.result
    expect(third).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada likes green' }] })
  })

  it('refuses a tampered requestState, and one presented with another request', async () => {
    const { url } = await startHandler()
    const first = (await send(url, 'tools/call', tool, { capabilities: caps })).answer.result
    const state = first.requestState as string
    const flipped = state.slice(0, 20) + (state[20] === 'A' ? 'B' : 'A') + state.slice(21)
    const tampered = await send(url, 'tools/call', { ...tool, inputResponses: { step1: accept({ name: 'x' }) }, requestState: flipped }, { capabilities: caps })
    expect(tampered.answer.error).toMatchObject({ code: -32602 })
    const otherTool = { name: 'test_input_required_result_elicitation', arguments: {} }
    const replayed = await send(url, 'tools/call', { ...otherTool, inputResponses: { user_name: accept({ name: 'x' }) }, requestState: state }, { capabilities: caps })
    expect(replayed.answer.error.message).toMatch(/another request/)
  })

  it('refuses a requestState after its time to live', async () => {
    const server = createDemoServer({ requestStateTtlMs: 50 })
    const { url } = await startHandler({}, server)
    const first = (await send(url, 'tools/call', tool, { capabilities: caps })).answer.result
    await sleep(80)
    const late = await send(url, 'tools/call', { ...tool, inputResponses: { step1: accept({ name: 'x' }) }, requestState: first.requestState }, { capabilities: caps })
    expect(late.answer.error.message).toMatch(/expired/)
  })

  it('opens a requestState sealed by another process that shares the key, and not without it', async () => {
    const key = new Uint8Array(32).fill(7)
    const a = await startHandler({}, createDemoServer({ requestStateKey: key }))
    const b = await startHandler({}, createDemoServer({ requestStateKey: key }))
    const c = await startHandler({}, createDemoServer())
    const first = (await send(a.url, 'tools/call', tool, { capabilities: caps })).answer.result
    const retry = { ...tool, inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: first.requestState }
    expect((await send(b.url, 'tools/call', retry, { capabilities: caps })).answer.result.resultType).toBe('input_required')
    expect((await send(c.url, 'tools/call', retry, { capabilities: caps })).answer.error.code).toBe(-32602)
  })

  it('asks again for an answer that is missing or malformed instead of failing', async () => {
    const { url } = await startHandler()
    const single = { name: 'test_input_required_result_elicitation', arguments: {} }
    const first = (await send(url, 'tools/call', single, { capabilities: caps })).answer.result
    const retry = (await send(url, 'tools/call', { ...single, inputResponses: { user_name: { nonsense: true } }, requestState: first.requestState }, { capabilities: caps })).answer
      .result
    expect(retry).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } })
  })
})

describe('logging and progress on a 2026-07-28 request', () => {
  it('sends log messages only when the request asked for a level, at or above it, on an SSE answer', async () => {
    const { url } = await startHandler()
    const quiet = await send(url, 'tools/call', { name: 'test_logging_tool', arguments: {} })
    expect(quiet.response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(quiet.messages.filter((m) => m.method === 'notifications/message')).toEqual([])

    const loud = await send(url, 'tools/call', { name: 'test_logging_tool', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'warning' } })
    expect(loud.response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(loud.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level)).toEqual(['warning'])
    expect(loud.answer.result.content).toEqual([{ type: 'text', text: 'logged' }])
  })

  it('aborts the handler when the client closes the stream before the answer', async () => {
    const server = new McpServer({ name: 'waits', version: '1' })
    let aborted: unknown
    server.registerTool({ name: 'wait', inputSchema: { type: 'object' } }, async (_args, context) => {
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))
      aborted = context.signal.reason
      return { content: [] }
    })
    const { url } = await startHandler({}, server)
    const params = { name: 'wait', arguments: {}, _meta: meta() }
    const controller = new AbortController()
    const pending = post(url, request(7, 'tools/call', params), { headers: headersFor('tools/call', params), signal: controller.signal }).catch(() => undefined)
    await sleep(50)
    controller.abort()
    await pending
    await expect.poll(() => aborted).toBeInstanceOf(Error)
  })

  it('streams progress for a request that carries a progress token, and stops the work when the client hangs up', async () => {
    const { url } = await startHandler()
    const params = { name: 'slow_count', arguments: { steps: 50, delayMs: 20 }, _meta: { ...meta(), progressToken: 'p1' } }
    const stream = await postSse(url, request(99, 'tools/call', params), { headers: headersFor('tools/call', params) })
    const update = await stream.waitForMessage((m) => m.method === 'notifications/progress')
    expect(update.params).toMatchObject({ progressToken: 'p1', progress: 1 })
    stream.abort()
    await sleep(100)
    // the next request is served at once: the aborted one no longer runs
    expect((await send(url, 'tools/call', { name: 'echo', arguments: { text: 'still here' } })).answer.result.content).toEqual([{ type: 'text', text: 'still here' }])
  })
})

describe('subscriptions/listen', () => {
  async function listen(url: string, notifications: Record<string, unknown>, id = 500) {
    const params = { notifications, _meta: meta() }
    return postSse(url, request(id, 'subscriptions/listen', params), { headers: headersFor('subscriptions/listen') })
  }

  it('acknowledges first with the honoured filter, then delivers only what was asked, tagged with the subscription id', async () => {
    const { url, handler } = await startHandler()
    const stream = await listen(url, { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'], unknownThing: true })
    const ack = await stream.waitForMessage(() => true)
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 500 } },
    })
    expect(handler.listenStreamCount).toBe(1)
    await send(url, 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} })
    await send(url, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    await send(url, 'tools/call', { name: 'touch_watched_resource', arguments: {} })
    const updated = await stream.waitForMessage((m) => m.method === 'notifications/resources/updated')
    expect(updated.params).toMatchObject({ uri: 'test://watched-resource', _meta: { 'io.modelcontextprotocol/subscriptionId': 500 } })
    const methods = stream.messages.map((m) => m.method)
    expect(methods).toContain('notifications/tools/list_changed')
    expect(methods).not.toContain('notifications/prompts/list_changed')
    stream.abort()
    await expect.poll(() => handler.listenStreamCount).toBe(0)
  })

  it('forgets the subscription of a stream the client closed (nothing more is delivered to it)', async () => {
    const server = createDemoServer()
    const { url } = await startHandler({}, server)
    const stream = await listen(url, { toolsListChanged: true })
    await stream.waitForMessage(() => true)
    expect(server.subscriptionCount).toBe(1)
    stream.abort()
    await expect.poll(() => server.subscriptionCount).toBe(0)
  })

  it('ends every stream with its listen result when the server closes', async () => {
    const server = createDemoServer()
    const { url } = await startHandler({}, server)
    const stream = await listen(url, { toolsListChanged: true }, 'sub-1' as unknown as number)
    await stream.waitForMessage(() => true)
    await server.close()
    const final = await stream.waitForMessage((m) => m.id === 'sub-1')
    expect(final.result).toMatchObject({ _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } })
  })

  it('caps open streams per client (429) so one client cannot hold them all', async () => {
    const { url } = await startHandler({ maxListenStreamsPerPrincipal: 2 })
    const open = [await listen(url, {}, 1), await listen(url, {}, 2)]
    await Promise.all(open.map((s) => s.waitForMessage(() => true)))
    const third = await post(url, request(3, 'subscriptions/listen', { notifications: {}, _meta: meta() }), { headers: headersFor('subscriptions/listen') })
    expect(third.status).toBe(429)
    expect(await third.json()).toMatchObject({ id: 3 })
    for (const s of open) s.abort()
  })
})

describe('an McpServer limited to the handshake revisions', () => {
  it('answers a 2026-07-28 request with -32022 listing only what it speaks', async () => {
    const server = new McpServer({ name: 'old', version: '1' }, { supportedProtocolVersions: ['2025-11-25'] })
    server.registerTool({ name: 'noop' }, () => ({ content: [] }))
    const { url } = await startHandler({}, server)
    const { status, answer } = await send(url, 'tools/list')
    expect(status).toBe(400)
    expect(answer.error).toMatchObject({ code: -32022, data: { supported: ['2025-11-25'], requested: V } })
  })
})
