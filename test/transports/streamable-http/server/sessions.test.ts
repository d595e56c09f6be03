/**
 * Session lifetime over real HTTP: DELETE, idle expiry, the session limit, and 405 for methods
 * the endpoint does not serve.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { callTool, closeAll, errorBody, get, getSse, initialize, post, postSse, rawRequest, startHandler } from './http-harness.js'

afterEach(closeAll)

const del = (url: string, headers: Record<string, string>) => fetch(url, { method: 'DELETE', headers })

describe('DELETE', () => {
  it('ends the session and releases it in the handler and the server', async () => {
    const { url, handler, server } = await startHandler()
    const session = await initialize(url)
    const other = await initialize(url)
    expect(handler.sessionCount).toBe(2)
    expect(server.sessions.size).toBe(2)
    const response = await del(url, { 'Mcp-Session-Id': session.id, 'MCP-Protocol-Version': session.version })
    expect(response.status).toBe(200)
    expect(handler.sessionCount).toBe(1)
    expect(server.sessions.size).toBe(1)
    // the other session is untouched
    expect((await other.call(1, 'tools/call', { name: 'echo', arguments: { text: 'still here' } })).result.content[0].text).toBe('still here')
  })

  it('answers 404 to every later request of the deleted session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    await del(url, { 'Mcp-Session-Id': session.id })
    const postAfter = await post(url, callTool(1, 'echo', { text: 'x' }), session.options)
    expect(postAfter.status).toBe(404)
    expect((await errorBody(postAfter)).error.code).toBe(-32001)
    expect((await get(url, session.options)).status).toBe(404)
    expect((await del(url, { 'Mcp-Session-Id': session.id })).status).toBe(404)
  })

  it('ends the open streams of the deleted session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    const busy = await postSse(url, callTool(1, 'slow_count', { steps: 100, delayMs: 20 }), session.options)
    await del(url, { 'Mcp-Session-Id': session.id })
    await standalone.toEnd(1_000)
    await busy.toEnd(1_000)
    expect(busy.messages.some((m) => m.id === 1)).toBe(false)
  })

  it('refuses a DELETE without Mcp-Session-Id with 400', async () => {
    const { url } = await startHandler()
    await initialize(url)
    expect((await del(url, {})).status).toBe(400)
  })
})

describe('idle sessions', () => {
  it('expire after sessionIdleMs, then answer 404', async () => {
    const { url, handler, server } = await startHandler({ sessionIdleMs: 100 })
    const session = await initialize(url)
    expect(handler.sessionCount).toBe(1)
    await vi.waitFor(() => expect(handler.sessionCount).toBe(0), { timeout: 2_000, interval: 25 })
    expect(server.sessions.size).toBe(0)
    expect((await post(url, callTool(1, 'echo', { text: 'x' }), session.options)).status).toBe(404)
  })

  it('stay alive while each request comes within sessionIdleMs of the last', async () => {
    const { url } = await startHandler({ sessionIdleMs: 300 })
    const session = await initialize(url)
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 60))
      expect((await session.call(i, 'ping')).result).toEqual({})
    }
  })

  it('are not expired while a request is still being answered', async () => {
    const { url } = await startHandler({ sessionIdleMs: 80 })
    const session = await initialize(url)
    const stream = await postSse(url, callTool(1, 'slow_count', { steps: 5, delayMs: 60 }), session.options)
    const messages = await stream.toEnd()
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'counted to 5' }] } })
  })

  it('are not expired while their GET stream is open', async () => {
    const { url, handler } = await startHandler({ sessionIdleMs: 80 })
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(handler.sessionCount).toBe(1)
    standalone.abort()
    await vi.waitFor(() => expect(handler.sessionCount).toBe(0), { timeout: 2_000, interval: 25 })
  })
})

describe('maxSessions', () => {
  it('refuses initialize beyond the limit with 503 until a session ends', async () => {
    const { url } = await startHandler({ maxSessions: 1 })
    const first = await initialize(url)
    const refused = await post(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('mcp-session-id')).toBeNull()
    expect((await errorBody(refused)).error.code).toBe(-32603)
    await del(url, { 'Mcp-Session-Id': first.id })
    await expect(initialize(url)).resolves.toMatchObject({ version: '2025-11-25' })
  })
})

describe('methods the endpoint does not serve', () => {
  it('answers PUT with 405 and an Allow header', async () => {
    const { url } = await startHandler()
    const response = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE')
    await response.text()
  })

  it('answers PATCH with 405 too, through node:http', async () => {
    const { port } = await startHandler()
    const response = await rawRequest(port, { method: 'PATCH', headers: { Host: `127.0.0.1:${port}` }, body: '' })
    expect(response.status).toBe(405)
    expect(response.headers.allow).toBe('GET, POST, DELETE')
  })
})
