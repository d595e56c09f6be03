/**
 * POST on the Streamable HTTP endpoint over real HTTP: session ids, 202 for bodies without
 * requests, JSON or SSE answers, and every refusal with its status and JSON-RPC code.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SseStream, UUID, callTool, closeAll, errorBody, initialize, notification, post, postSse, readAnswer, request, startHandler } from './http-harness.js'

afterEach(closeAll)

const initializeRequest = (protocolVersion = '2025-11-25', id: number | string = 1) =>
  request(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } })

describe('POST initialize', () => {
  it('answers with a random UUID Mcp-Session-Id, different for every session', async () => {
    const { url } = await startHandler()
    const first = await post(url, initializeRequest())
    const second = await post(url, initializeRequest())
    expect(first.status).toBe(200)
    const ids = [first.headers.get('mcp-session-id'), second.headers.get('mcp-session-id')]
    expect(ids[0]).toMatch(UUID)
    expect(ids[1]).toMatch(UUID)
    expect(ids[0]).not.toBe(ids[1])
    const [answer] = await readAnswer(first)
    expect(answer).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'mcp-auth-demo' } } })
    await readAnswer(second)
  })

  it('puts Mcp-Session-Id on a JSON answer too', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const response = await post(url, initializeRequest())
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('mcp-session-id')).toMatch(UUID)
  })

  it('refuses initialize inside a batch with 400 and creates no session', async () => {
    const { url, handler } = await startHandler()
    const response = await post(url, [initializeRequest('2025-03-26'), notification('notifications/initialized')])
    expect(response.status).toBe(400)
    expect((await errorBody(response)).error.code).toBe(-32600)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(handler.sessionCount).toBe(0)
  })
})

describe('POST without requests', () => {
  it('answers a notifications-only body with 202 and no body', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, notification('notifications/roots/list_changed'), session.options)
    expect(response.status).toBe(202)
    expect(await response.text()).toBe('')
  })

  it('answers a responses-only body with 202 and delivers the response to the waiting tool', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { capabilities: { sampling: {} } })
    const stream = await postSse(url, callTool(7, 'test_sampling', { prompt: 'hello?' }), session.options)
    const sampling = await stream.waitForMessage((m) => m.method === 'sampling/createMessage')
    const reply = await post(url, { jsonrpc: '2.0', id: sampling.id, result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi there' } } }, session.options)
    expect(reply.status).toBe(202)
    expect(await reply.text()).toBe('')
    const messages = await stream.toEnd()
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'LLM response: hi there' }] } })
  })
})

describe('POST with requests', () => {
  it('answers with an SSE stream by default', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, callTool(2, 'echo', { text: 'over sse' }), session.options)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(await readAnswer(response)).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'over sse' }] } }])
  })

  it('sends an SSE answer that is ready at once whole, with its Content-Length', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, callTool(2, 'echo', { text: 'whole' }), session.options)
    const text = await response.text()
    expect(response.headers.get('transfer-encoding')).toBeNull()
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text))
    // the priming event (an id, no data) comes first, then the response
    expect(text).toMatch(/^id: [^\n]+\nretry: \d+\ndata: \n\nid: [^\n]+\nevent: message\ndata: \{"jsonrpc":"2.0","id":2,/)
  })

  it('streams an SSE answer that takes time, chunked, without a Content-Length', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, callTool(3, 'slow_count', { steps: 2, delayMs: 20 }, { progressToken: 'p' }), session.options)
    expect(response.headers.get('content-length')).toBeNull()
    const messages = await readAnswer(response)
    expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/progress', 'notifications/progress', 'response 3'])
  })

  it('answers with application/json when preferJsonResponse is on', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url)
    const response = await post(url, callTool(2, 'echo', { text: 'as json' }), session.options)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'as json' }] } })
  })

  it('switches a JSON-preferring POST to SSE when progress comes first, then ends with the response', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url)
    const response = await post(url, callTool(3, 'slow_count', { steps: 3, delayMs: 5 }, { progressToken: 'tok' }), session.options)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const messages = await readAnswer(response)
    expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response 3'])
    expect(messages.slice(0, 3).map((m) => [m.params.progressToken, m.params.progress, m.params.total])).toEqual([
      ['tok', 1, 3],
      ['tok', 2, 3],
      ['tok', 3, 3],
    ])
    expect(messages[3]!.result.content[0].text).toBe('counted to 3')
  })

  it('keeps a JSON-preferring POST as JSON when the tool reports no progress (no token)', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url)
    const response = await post(url, callTool(3, 'slow_count', { steps: 2, delayMs: 1 }), session.options)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(((await response.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe('counted to 2')
  })

  it('switches a JSON-preferring POST to SSE when the server sends a request first (elicitation)', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url, { capabilities: { elicitation: {} } })
    const response = await post(url, callTool(4, 'test_elicitation', { message: 'who?' }), session.options)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const stream = new SseStream(response)
    const elicit = await stream.waitForMessage((m) => m.method === 'elicitation/create')
    expect(elicit.params.message).toBe('who?')
    const reply = await post(url, { jsonrpc: '2.0', id: elicit.id, result: { action: 'decline' } }, session.options)
    expect(reply.status).toBe(202)
    const messages = await stream.toEnd()
    expect(messages.at(-1)).toMatchObject({ id: 4, result: { content: [{ text: 'User response: action=decline, content={}' }] } })
  })

  it('ends the POST stream without a response when its request is cancelled', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const stream = await postSse(url, callTool(5, 'slow_count', { steps: 50, delayMs: 20 }, { progressToken: 'c' }), session.options)
    await stream.waitForMessage((m) => m.method === 'notifications/progress')
    const cancel = await post(url, notification('notifications/cancelled', { requestId: 5, reason: 'enough' }), session.options)
    expect(cancel.status).toBe(202)
    const messages = await stream.toEnd(2_000)
    expect(messages.every((m) => m.method === 'notifications/progress')).toBe(true)
    expect(messages.length).toBeLessThan(50)
  })
})

describe('cancelled requests', () => {
  it('ends a JSON-preferring POST whose request is cancelled before any message, without a response', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url)
    const pending = post(url, callTool(6, 'slow_count', { steps: 1, delayMs: 5_000 }), session.options)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await post(url, notification('notifications/cancelled', { requestId: 6 }), session.options)).status).toBe(202)
    const response = await pending
    expect(response.status).toBe(200)
    expect(await readAnswer(response)).toEqual([])
  })

  it('still answers the other requests of a batch when one of them is cancelled', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url, { protocolVersion: '2025-03-26' })
    const pending = post(url, [callTool(1, 'slow_count', { steps: 1, delayMs: 5_000 }), callTool(2, 'echo', { text: 'kept' })], session.options)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await post(url, notification('notifications/cancelled', { requestId: 1 }), session.options)
    const response = await pending
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'kept' }] } }])
  })
})

describe('POST refusals', () => {
  it('refuses an Accept without text/event-stream with 406', async () => {
    const { url } = await startHandler()
    const response = await post(url, initializeRequest(), { headers: { Accept: 'application/json' } })
    expect(response.status).toBe(406)
    expect((await errorBody(response)).error.message).toMatch(/Not Acceptable/)
  })

  it('refuses an Accept without application/json with 406', async () => {
    const { url } = await startHandler()
    const response = await post(url, initializeRequest(), { headers: { Accept: 'text/event-stream' } })
    expect(response.status).toBe(406)
  })

  it('refuses a body that is not application/json with 415', async () => {
    const { url } = await startHandler()
    const response = await post(url, JSON.stringify(initializeRequest()), { headers: { 'Content-Type': 'text/plain' } })
    expect(response.status).toBe(415)
    expect((await errorBody(response)).error.message).toMatch(/Unsupported Media Type/)
  })

  it('accepts application/json with a charset parameter', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const response = await post(url, initializeRequest(), { headers: { 'Content-Type': 'application/json; charset=utf-8' } })
    expect(response.status).toBe(200)
  })

  it('refuses a body past maxBodyBytes with 413', async () => {
    const { url } = await startHandler({ maxBodyBytes: 256 })
    const session = await initialize(url)
    const response = await post(url, callTool(1, 'echo', { text: 'x'.repeat(1_000) }), session.options)
    expect(response.status).toBe(413)
    expect((await errorBody(response)).error.message).toMatch(/256 bytes/)
    // just under the limit still works
    expect((await session.call(2, 'tools/call', { name: 'echo', arguments: { text: 'small' } })).result.content[0].text).toBe('small')
  })

  it('refuses a chunked body (no Content-Length) past maxBodyBytes with 413', async () => {
    const { url } = await startHandler({ maxBodyBytes: 256 })
    const chunk = new TextEncoder().encode(JSON.stringify(callTool(1, 'echo', { text: 'y'.repeat(1_000) })))
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk)
        controller.close()
      },
    })
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(413)
  })

  it('refuses a body that is not JSON with 400 and -32700', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, '{"jsonrpc": "2.0", "id": 1, "method": ', session.options)
    expect(response.status).toBe(400)
    expect(await errorBody(response)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  it('refuses JSON that is not a JSON-RPC message with 400 and -32600', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, { hello: 'world' }, session.options)
    expect(response.status).toBe(400)
    expect(await errorBody(response)).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it('refuses an empty batch with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-03-26' })
    const response = await post(url, [], session.options)
    expect(response.status).toBe(400)
  })

  it('refuses an unsupported MCP-Protocol-Version header with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, callTool(1, 'echo', { text: 'x' }), { ...session.options, version: '1999-01-01' })
    expect(response.status).toBe(400)
    expect((await errorBody(response)).error.message).toMatch(/MCP-Protocol-Version/)
  })

  it('refuses a request without Mcp-Session-Id after initialize with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await post(url, callTool(1, 'echo', { text: 'x' }), { version: session.version })
    expect(response.status).toBe(400)
    expect((await errorBody(response)).error.message).toMatch(/Mcp-Session-Id/)
  })

  it('answers an unknown session id with 404', async () => {
    const { url } = await startHandler()
    await initialize(url)
    const response = await post(url, callTool(1, 'echo', { text: 'x' }), { sessionId: crypto.randomUUID(), version: '2025-11-25' })
    expect(response.status).toBe(404)
    expect((await errorBody(response)).error.code).toBe(-32001)
  })
})

describe('POST batches', () => {
  it('answers a batch on a 2025-03-26 session with one JSON array in JSON mode', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url, { protocolVersion: '2025-03-26' })
    expect(session.version).toBe('2025-03-26')
    const response = await post(url, [callTool(10, 'echo', { text: 'a' }), notification('notifications/roots/list_changed'), callTool(11, 'add', { a: 2, b: 3 })], session.options)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await response.json()) as Array<{ id: number; result: { content: Array<{ text: string }> } }>
    expect(Array.isArray(body)).toBe(true)
    expect(body.map((m) => m.id).sort()).toEqual([10, 11])
    expect(body.find((m) => m.id === 10)!.result.content[0]!.text).toBe('a')
    expect(body.find((m) => m.id === 11)!.result.content[0]!.text).toBe('{"sum":5}')
  })

  it('answers each request of a batch on the SSE stream of a 2025-03-26 session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-03-26' })
    const response = await post(url, [callTool(10, 'echo', { text: 'a' }), callTool(11, 'echo', { text: 'b' })], session.options)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const messages = await readAnswer(response)
    expect(messages.map((m) => m.id).sort()).toEqual([10, 11])
  })

  it('answers a batch of notifications only with 202 on a 2025-03-26 session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-03-26' })
    const response = await post(url, [notification('notifications/roots/list_changed'), notification('notifications/roots/list_changed')], session.options)
    expect(response.status).toBe(202)
  })

  it('refuses a batch on a 2025-11-25 session with 400', async () => {
    const { url } = await startHandler({ preferJsonResponse: true })
    const session = await initialize(url)
    const response = await post(url, [callTool(10, 'echo', { text: 'a' }), callTool(11, 'echo', { text: 'b' })], session.options)
    expect(response.status).toBe(400)
    expect((await errorBody(response)).error).toMatchObject({ code: -32600, message: expect.stringMatching(/batch/) })
  })

  it('refuses a batch on a 2025-06-18 session with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-06-18' })
    const response = await post(url, [notification('notifications/roots/list_changed')], session.options)
    expect(response.status).toBe(400)
  })
})
