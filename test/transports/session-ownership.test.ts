// Issue 13, items 12 and 13: a session belongs to the principal that opened it (anyone else gets
// 404, as for an unknown id), and one principal cannot fill the session table.
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../helpers/protected-stack.js'
import { createMcpHttpApp } from '../../src/app/mcp-http-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { listenOnLoopback } from '../helpers/listen.js'

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const ACCEPT = 'application/json, text/event-stream'

let stack: ProtectedStack | undefined
let closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await stack?.stop()
  stack = undefined
  for (const close of closers) await close()
  closers = []
})

async function machineToken(s: ProtectedStack, name: string): Promise<string> {
  const client = await s.as.addClient({ client_name: name, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
  const response = await fetch(`${s.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${s.origin}/mcp` }),
  })
  return ((await response.json()) as { access_token: string }).access_token
}

async function initialize(url: string, token?: string): Promise<{ status: number; id: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(INIT),
  })
  await response.text()
  const id = response.headers.get('mcp-session-id')
  if (id !== null) {
    const initialized = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    await initialized.text()
  }
  return { status: response.status, id }
}

async function send(url: string, token: string, sessionId: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    ...init,
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${token}`,
      ...init.headers,
    },
    ...(init.method === undefined || init.method === 'POST'
      ? { body: init.body ?? JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }) }
      : {}),
  })
  await response.body?.cancel()
  return response.status
}

describe('a session belongs to its principal', () => {
  it("answers 404 to another principal's POST, GET, resumption and DELETE, and the owner's session lives on", async () => {
    stack = await startProtectedStack()
    const url = `${stack.origin}/mcp`
    const alice = await machineToken(stack, 'alice')
    const mallory = await machineToken(stack, 'mallory')
    const { id } = await initialize(url, alice)
    expect(id).not.toBeNull()
    expect(await send(url, mallory, id!)).toBe(404)
    expect(await send(url, mallory, id!, { method: 'GET', headers: { accept: 'text/event-stream' } })).toBe(404)
    expect(await send(url, mallory, id!, { method: 'GET', headers: { accept: 'text/event-stream', 'last-event-id': `${id}:0` } })).toBe(404)
    expect(await send(url, mallory, id!, { method: 'DELETE' })).toBe(404)
    // A made-up id gets the same answer: nothing tells mallory which ids exist.
    expect(await send(url, mallory, '00000000-0000-4000-8000-000000000000')).toBe(404)
    expect(await send(url, alice, id!)).toBe(200)
  })

  it("answers 404 to another principal's messages on a legacy /sse session", async () => {
    stack = await startProtectedStack()
    const alice = await machineToken(stack, 'alice')
    const mallory = await machineToken(stack, 'mallory')
    const controller = new AbortController()
    const stream = await fetch(`${stack.origin}/sse`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${alice}` }, signal: controller.signal })
    const reader = stream.body!.getReader()
    let text = ''
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value)
    const endpoint = /data: (\S+)/.exec(text)![1]!
    const post = (token: string) =>
      fetch(new URL(endpoint, stack!.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(INIT),
      }).then(async (r) => {
        await r.text()
        return r.status
      })
    expect(await post(mallory)).toBe(404)
    expect(await post(alice)).toBe(202)
    controller.abort()
  })
})

describe('session caps per principal', () => {
  it("ends the principal's least recently used idle session past its cap, while others can still open sessions", async () => {
    stack = await startProtectedStack({ mcp: { maxSessionsPerPrincipal: 3, maxSessions: 4 } })
    const url = `${stack.origin}/mcp`
    const greedy = await machineToken(stack, 'greedy')
    const other = await machineToken(stack, 'other')
    const opened = []
    for (let i = 0; i < 10; i++) opened.push(await initialize(url, greedy))
    expect(opened.every((result) => result.status === 200)).toBe(true)
    // Only its three most recent sessions are left; the oldest answer 404 (the client starts anew).
    expect(await send(url, greedy, opened[0]!.id!)).toBe(404)
    expect(await send(url, greedy, opened[9]!.id!)).toBe(200)
    // The table is not full for anyone else.
    expect((await initialize(url, other)).status).toBe(200)
  })

  it('counts clients of an unprotected server by address', async () => {
    const app = createMcpHttpApp(createDemoServer(), { host: '127.0.0.1', allowedHosts: ['127.0.0.1', '127.0.0.2', 'localhost'], maxSessionsPerPrincipal: 2 })
    const { url, close } = await listenOnLoopback(app.handler)
    closers.push(async () => {
      await close()
      await app.close()
    })
    const fromSecond = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(`${url}/mcp`, { method: 'POST', localAddress: '127.0.0.2', headers: { 'content-type': 'application/json', accept: ACCEPT } }, (res) => {
          res.resume()
          resolve(res.statusCode!)
        })
        req.on('error', reject)
        req.end(JSON.stringify(INIT))
      })
    const first = await initialize(`${url}/mcp`)
    await initialize(`${url}/mcp`)
    await initialize(`${url}/mcp`)
    const stale = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': first.id!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    })
    expect(stale.status).toBe(404)
    expect(await fromSecond()).toBe(200)
    expect(app.streamable.sessionCount).toBe(3)
  })
})
