/**
 * The standalone GET stream: who may open it, that there is one per session, that messages not
 * tied to a request travel on it (and only on it), and keep-alive comments while it is idle.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { WATCHED_RESOURCE_URI } from '../../../../src/demo/demo-resources.js'
import { callTool, closeAll, errorBody, get, getSse, initialize, post, postSse, readAnswer, request, startHandler } from './http-harness.js'

afterEach(closeAll)

describe('GET on the MCP endpoint', () => {
  it('refuses a GET that does not accept text/event-stream with 406', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const response = await get(url, { ...session.options, headers: { Accept: 'application/json' } })
    expect(response.status).toBe(406)
    expect((await errorBody(response)).error.message).toMatch(/text\/event-stream/)
  })

  it('opens the standalone SSE stream for a session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const stream = await getSse(url, session.options)
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(stream.response.headers.get('cache-control')).toMatch(/no-cache/)
  })

  it('refuses a second concurrent GET stream with 409', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    await getSse(url, session.options)
    const second = await get(url, session.options)
    expect(second.status).toBe(409)
    await second.text()
  })

  it('opens the GET stream again once the first one was closed', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const first = await getSse(url, session.options)
    first.abort()
    await vi.waitFor(async () => {
      const again = await get(url, session.options)
      const status = again.status
      await again.body?.cancel()
      expect(status).toBe(200)
    })
  })

  it('refuses a GET without Mcp-Session-Id with 400 and one for an unknown session with 404', async () => {
    const { url } = await startHandler()
    expect((await get(url)).status).toBe(400)
    expect((await get(url, { sessionId: crypto.randomUUID() })).status).toBe(404)
  })

  it('refuses a GET with an unsupported MCP-Protocol-Version with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    expect((await get(url, { sessionId: session.id, version: '2030-01-01' })).status).toBe(400)
  })
})

describe('messages not tied to a request', () => {
  it('delivers a resource update on the GET stream and not on the POST that caused it', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    expect((await session.call(1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })).result).toEqual({})
    const standalone = await getSse(url, session.options)
    const touched = await readAnswer(await post(url, callTool(2, 'touch_watched_resource'), session.options))
    expect(touched).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: expect.stringMatching(/^watched resource is now version \d+$/) }] } }])
    const update = await standalone.waitForMessage((m) => m.method === 'notifications/resources/updated')
    expect(update.params).toEqual({ uri: WATCHED_RESOURCE_URI })
    // the POST stream carried the response only; the GET stream only the notification
    expect(standalone.messages.filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(1)
    expect(standalone.messages.some((m) => 'id' in m)).toBe(false)
  })

  it('sends nothing to a session that did not subscribe', async () => {
    const { url } = await startHandler()
    const subscriber = await initialize(url)
    const bystander = await initialize(url)
    await subscriber.call(1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })
    const subscriberStream = await getSse(url, subscriber.options)
    const bystanderStream = await getSse(url, bystander.options)
    await bystander.call(2, 'tools/call', { name: 'touch_watched_resource', arguments: {} })
    await subscriberStream.waitForMessage((m) => m.method === 'notifications/resources/updated')
    expect(bystanderStream.messages).toEqual([])
  })

  it('puts a tools list change made at run time on the GET stream only, even while a POST stream is open', async () => {
    const { url, server } = await startHandler()
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    const busy = await postSse(url, callTool(3, 'slow_count', { steps: 3, delayMs: 40 }, { progressToken: 'busy' }), session.options)
    await busy.waitForMessage((m) => m.method === 'notifications/progress')
    server.registerTool({ name: 'late_tool', description: 'registered at run time' }, () => ({ content: [{ type: 'text', text: 'late' }] }))
    const change = await standalone.waitForMessage((m) => m.method === 'notifications/tools/list_changed')
    expect(change).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
    const onPost = await busy.toEnd()
    expect(onPost.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response'])
    expect(standalone.messages).toHaveLength(1)
    // and the new tool is served to this session
    expect((await session.call(4, 'tools/call', { name: 'late_tool', arguments: {} })).result.content[0].text).toBe('late')
  })

  it('keeps request-related messages off the GET stream: progress goes on the POST that asked', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    const messages = await readAnswer(await post(url, callTool(5, 'slow_count', { steps: 2, delayMs: 1 }, { progressToken: 'p' }), session.options))
    expect(messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(2)
    // a ping round trip later, the GET stream has still carried nothing
    await readAnswer(await post(url, request(6, 'ping'), session.options))
    expect(standalone.messages).toEqual([])
  })

  it('carries a server request (roots/list) on the POST of the tool that made it, not on the GET stream', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { capabilities: { roots: { listChanged: true } } })
    const standalone = await getSse(url, session.options)
    const call = await postSse(url, callTool(7, 'list_roots'), session.options)
    const rootsRequest = await call.waitForMessage((m) => m.method === 'roots/list')
    const reply = await post(url, { jsonrpc: '2.0', id: rootsRequest.id, result: { roots: [{ uri: 'file:///work', name: 'work' }] } }, session.options)
    expect(reply.status).toBe(202)
    expect((await call.toEnd()).at(-1)).toMatchObject({ id: 7, result: { content: [{ text: 'file:///work' }] } })
    expect(standalone.messages).toEqual([])
  })

  it('sends keep-alive comments on an idle GET stream', async () => {
    const { url } = await startHandler({ keepAliveMs: 20 })
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    await standalone.waitForComment((c) => c.trim() === 'keep-alive', 2_000)
    await vi.waitFor(() => expect(standalone.comments.length).toBeGreaterThanOrEqual(2))
    expect(standalone.messages).toEqual([])
  })

  it('sends no keep-alive comments when keepAliveMs is 0', async () => {
    const { url } = await startHandler({ keepAliveMs: 0 })
    const session = await initialize(url)
    const standalone = await getSse(url, session.options)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(standalone.comments).toEqual([])
  })
})
