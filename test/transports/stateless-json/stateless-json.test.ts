/**
 * The stateless JSON endpoint (/rest) over real HTTP: POST only, application/json in and out, no
 * sessions, no SSE, and every refusal with its status and, for bad bodies, its JSON-RPC code.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { callTool, closeAll, errorBody, notification, post, rawRequest, request, startKoaApp } from '../streamable-http/server/http-harness.js'

afterEach(closeAll)

async function startRest(options: Parameters<typeof startKoaApp>[0] = {}): Promise<string> {
  return (await startRestWithPort(options)).url
}

async function startRestWithPort(options: Parameters<typeof startKoaApp>[0] = {}): Promise<{ url: string; port: number }> {
  const { port } = await startKoaApp(options)
  return { url: `http://127.0.0.1:${port}/rest`, port }
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) => post(url, body, { headers: { Accept: 'application/json', ...headers } })

describe('stateless JSON endpoint', () => {
  it('answers a tools/call with application/json, without initialize and without a session', async () => {
    const url = await startRest()
    const response = await postJson(url, callTool(7, 'echo', { text: 'rest' }))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'rest' }] } })
  })

  it('keeps two clients that use the same request id apart', async () => {
    const url = await startRest()
    const answers = await Promise.all(
      ['first', 'second', 'third'].map((text) =>
        postJson(url, callTool(1, 'slow_count', { steps: 2, delayMs: 10 }))
          .then(() => postJson(url, callTool(1, 'echo', { text })))
          .then((r) => r.json()),
      ),
    )
    expect(answers.map((a) => (a as { id: number; result: { content: Array<{ text: string }> } }).result.content[0]!.text)).toEqual(['first', 'second', 'third'])
    expect(answers.every((a) => (a as { id: number }).id === 1)).toBe(true)
  })

  it('stays JSON when the tool reports progress: a JSON-only client has no stream for it', async () => {
    const url = await startRest()
    const response = await postJson(url, callTool(3, 'slow_count', { steps: 2, delayMs: 5 }, { progressToken: 'p' }))
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(((await response.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe('counted to 2')
  })

  it('reports a tool that needs sampling as failed: the server cannot ask a JSON-only client', async () => {
    const url = await startRest()
    const response = await postJson(url, callTool(4, 'test_sampling', { prompt: 'hi' }), { 'MCP-Protocol-Version': '2025-11-25' })
    const body = (await response.json()) as { result?: { isError?: boolean }; error?: { code: number } }
    expect(body.error !== undefined || body.result?.isError === true).toBe(true)
  })

  it('answers requests that change session state (initialize, logging/setLevel) in a session of their own', async () => {
    const url = await startRest()
    const init = await postJson(url, request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rest', version: '1' } }))
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25')
    const level = await postJson(url, request(2, 'logging/setLevel', { level: 'debug' }), { 'MCP-Protocol-Version': '2025-11-25' })
    expect(await level.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
    expect(init.headers.get('mcp-session-id')).toBeNull()
  })

  it('answers a body of notifications only with 202 and no body', async () => {
    const url = await startRest()
    const response = await postJson(url, notification('notifications/initialized'))
    expect(response.status).toBe(202)
    expect(await response.text()).toBe('')
  })

  it('answers a batch with one JSON array on 2025-03-26 and refuses it with 400 on 2025-06-18', async () => {
    const url = await startRest()
    const batch = [callTool(1, 'echo', { text: 'a' }), request(2, 'ping')]
    const old = await postJson(url, batch, { 'MCP-Protocol-Version': '2025-03-26' })
    expect(old.status).toBe(200)
    expect(((await old.json()) as Array<{ id: number }>).map((m) => m.id).sort()).toEqual([1, 2])
    const current = await postJson(url, batch, { 'MCP-Protocol-Version': '2025-06-18' })
    expect(current.status).toBe(400)
    expect((await errorBody(current)).error.code).toBe(-32600)
  })

  it('refuses GET and DELETE with 405 and Allow: POST', async () => {
    const url = await startRest()
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { Accept: 'application/json' } })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST')
    }
  })

  it('refuses an Accept without application/json with 406', async () => {
    const url = await startRest()
    const response = await post(url, callTool(1, 'echo', { text: 'x' }), { headers: { Accept: 'text/event-stream' } })
    expect(response.status).toBe(406)
  })

  it('refuses a body that is not application/json with 415', async () => {
    const url = await startRest()
    const response = await post(url, 'text', { headers: { Accept: 'application/json', 'Content-Type': 'text/plain' } })
    expect(response.status).toBe(415)
  })

  it('refuses a body past the size limit with 413', async () => {
    const url = await startRest({ maxBodyBytes: 1024 })
    const response = await postJson(url, callTool(1, 'echo', { text: 'x'.repeat(4096) }))
    expect(response.status).toBe(413)
  })

  it('refuses a body that is not JSON with 400 and -32700, and one that is not JSON-RPC with -32600', async () => {
    const url = await startRest()
    const broken = await postJson(url, '{"jsonrpc":')
    expect(broken.status).toBe(400)
    expect((await errorBody(broken)).error.code).toBe(-32700)
    const notRpc = await postJson(url, { hello: 'world' })
    expect(notRpc.status).toBe(400)
    expect((await errorBody(notRpc)).error.code).toBe(-32600)
  })

  it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
    const url = await startRest()
    const response = await postJson(url, callTool(1, 'echo', { text: 'x' }), { 'MCP-Protocol-Version': '1999-01-01' })
    expect(response.status).toBe(400)
  })

  it('refuses a foreign Origin and a foreign Host with 403', async () => {
    const { url, port } = await startRestWithPort()
    const origin = await postJson(url, callTool(1, 'echo', { text: 'x' }), { Origin: 'https://evil.example' })
    expect(origin.status).toBe(403)
    // fetch may not set Host: node:http may
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' }
    const body = JSON.stringify(callTool(1, 'echo', { text: 'x' }))
    const host = await rawRequest(port, { method: 'POST', path: '/rest', headers: { ...headers, Host: 'evil.example' }, body })
    expect(host.status).toBe(403)
    const allowed = await rawRequest(port, { method: 'POST', path: '/rest', headers: { ...headers, Host: `localhost:${port}` }, body })
    expect(allowed.status).toBe(200)
  })
})

describe('stateless JSON endpoint, MCP 2026-07-28', () => {
  const meta = (capabilities: Record<string, unknown> = {}) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  })
  const headers = (method: string, name?: string) => ({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name === undefined ? {} : { 'Mcp-Name': name }) })

  it('serves a 2026-07-28 request as JSON, with resultType and no notifications even when it logs', async () => {
    const url = await startRest()
    const params = { name: 'test_logging_tool', arguments: {}, _meta: { ...meta(), 'io.modelcontextprotocol/logLevel': 'debug' } }
    const response = await postJson(url, request(5, 'tools/call', params), headers('tools/call', 'test_logging_tool'))
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toMatchObject({ id: 5, result: { resultType: 'complete', content: [{ type: 'text', text: 'logged' }] } })
  })

  it('asks for input with an input-required result, which a JSON-only client can answer', async () => {
    const url = await startRest()
    const params = { name: 'test_input_required_result_elicitation', arguments: {}, _meta: meta({ elicitation: {} }) }
    const response = await postJson(url, request(6, 'tools/call', params), headers('tools/call', params.name))
    const first = (await response.json()) as { result: { resultType: string; requestState: string } }
    expect(first.result.resultType).toBe('input_required')
    const retry = { ...params, inputResponses: { user_name: { action: 'accept', content: { name: 'Rest' } } }, requestState: first.result.requestState }
    const second = await postJson(url, request(7, 'tools/call', retry), headers('tools/call', params.name))
    expect(await second.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'Hello, Rest!' }] } })
  })

  it('does not open subscriptions/listen streams (404, -32601): there is no stream here', async () => {
    const url = await startRest()
    const response = await postJson(url, request(8, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: meta() }), headers('subscriptions/listen'))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ id: 8, error: { code: -32601 } })
  })
})
