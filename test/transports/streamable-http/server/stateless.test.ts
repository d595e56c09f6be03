/**
 * Stateless Streamable HTTP over real HTTP: no initialize, no session, no GET stream; every POST
 * stands alone on one McpServer built once.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDemoServer } from '../../../../src/demo/demo-server.js'
import { callTool, closeAll, get, notification, post, readAnswer, request, startHandler } from './http-harness.js'

afterEach(closeAll)

describe('stateless mode', () => {
  it('answers tools/call without initialize and without a session id', async () => {
    const { url, handler } = await startHandler({ stateless: true })
    const response = await post(url, callTool(1, 'echo', { text: 'no session' }), { version: '2025-11-25' })
    expect(response.status).toBe(200)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(await readAnswer(response)).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'no session' }] } }])
    expect(handler.sessionCount).toBe(0)
  })

  it('answers with JSON when preferJsonResponse is on', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    const response = await post(url, callTool(1, 'add', { a: 1, b: 2 }), { version: '2025-11-25' })
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toMatchObject({ id: 1, result: { structuredContent: { sum: 3 } } })
  })

  it('takes the protocol version from MCP-Protocol-Version, 2025-03-26 when absent', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    // from 2025-11-25 invalid tool arguments are a tool error; before, a JSON-RPC -32602
    const current = (await (await post(url, callTool(1, 'echo', {}), { version: '2025-11-25' })).json()) as { result?: { isError?: boolean } }
    expect(current.result?.isError).toBe(true)
    const legacy = (await (await post(url, callTool(2, 'echo', {}))).json()) as { error?: { code: number } }
    expect(legacy.error?.code).toBe(-32602)
  })

  it('accepts a batch without a version header (2025-03-26) and refuses one on 2025-11-25', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    const batch = [callTool(1, 'echo', { text: 'a' }), callTool(2, 'echo', { text: 'b' })]
    const accepted = await post(url, batch)
    expect(accepted.status).toBe(200)
    expect(((await accepted.json()) as Array<{ id: number }>).map((m) => m.id).sort()).toEqual([1, 2])
    expect((await post(url, batch, { version: '2025-11-25' })).status).toBe(400)
  })

  it('answers a notification with 202', async () => {
    const { url } = await startHandler({ stateless: true })
    const response = await post(url, notification('notifications/initialized'), { version: '2025-11-25' })
    expect(response.status).toBe(202)
    expect(await response.text()).toBe('')
  })

  it('streams progress on the POST itself', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    const response = await post(url, callTool(3, 'slow_count', { steps: 2, delayMs: 1 }, { progressToken: 's' }), { version: '2025-11-25' })
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect((await readAnswer(response)).map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 'notifications/progress', 3])
  })

  it('refuses GET and DELETE with 405 and Allow: POST', async () => {
    const { url } = await startHandler({ stateless: true })
    const getResponse = await get(url)
    expect(getResponse.status).toBe(405)
    expect(getResponse.headers.get('allow')).toBe('POST')
    const deleteResponse = await fetch(url, { method: 'DELETE' })
    expect(deleteResponse.status).toBe(405)
    expect(deleteResponse.headers.get('allow')).toBe('POST')
    const putResponse = await fetch(url, { method: 'PUT' })
    expect(putResponse.status).toBe(405)
    expect(putResponse.headers.get('allow')).toBe('POST')
  })

  it('serves every request from the one McpServer it was given, through one long-lived session per protocol version', async () => {
    const server = createDemoServer()
    const seen: number[] = []
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true }, server)
    // registered after the handler was made: only the same instance can serve it
    server.registerTool({ name: 'count_sessions', description: 'how many sessions the server holds now' }, () => {
      seen.push(server.sessions.size)
      return { content: [{ type: 'text', text: String(server.sessions.size) }] }
    })
    for (let id = 1; id <= 3; id++) {
      const answer = (await (await post(url, callTool(id, 'count_sessions'), { version: '2025-11-25' })).json()) as { result: { content: Array<{ text: string }> } }
      expect(answer.result.content[0]!.text).toBe('1')
    }
    expect(seen).toEqual([1, 1, 1])
    await post(url, callTool(4, 'count_sessions'), { version: '2025-06-18' })
    expect(seen.at(-1)).toBe(2)
  })

  it('keeps concurrent clients apart even when they use the same request id', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    const answers = await Promise.all(['first', 'second', 'third'].map(async (text) => (await post(url, callTool(1, 'echo', { text }), { version: '2025-11-25' })).json()))
    expect(answers).toEqual(['first', 'second', 'third'].map((text) => ({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })))
  })

  it('ends the work of a client that hangs up', async () => {
    const server = createDemoServer()
    let aborted = false
    server.registerTool(
      { name: 'wait_forever', description: 'waits until cancelled' },
      (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = true
            reject(context.signal.reason)
          })
        }),
    )
    const { url } = await startHandler({ stateless: true }, server)
    const controller = new AbortController()
    const response = await post(url, callTool(1, 'wait_forever'), { version: '2025-11-25', signal: controller.signal })
    expect(aborted).toBe(false)
    controller.abort()
    await response.body?.cancel().catch(() => {})
    await vi.waitFor(() => expect(aborted).toBe(true), { timeout: 1_000 })
  })

  it('answers ping without initialize', async () => {
    const { url } = await startHandler({ stateless: true, preferJsonResponse: true })
    expect(await (await post(url, request(9, 'ping'), { version: '2025-06-18' })).json()).toEqual({ jsonrpc: '2.0', id: 9, result: {} })
  })
})
