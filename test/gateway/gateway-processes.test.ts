/**
 * Issue 31, item 2: children never cross principals. A stateful session gets a child of its own,
 * a stateless principal one long-lived child, idle children end, and the caps refuse clearly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/index.js'
import { SseClientTransport } from '../../src/transports/http-client/index.js'
import { startGatewayStack, statelessRequest, type GatewayStack } from '../helpers/gateway-stack.js'

const whoami = async (client: Awaited<ReturnType<GatewayStack['connect']>>) => {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  return JSON.parse((result.content[0] as { text: string }).text) as { pid: number; subject: string; clientId: string; scope: string }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('the gateway: one child per stateful session, one per stateless principal', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ children: { childIdleMs: 400 } })
  })
  afterAll(() => stack.stop())

  it('gives two principals two children, each told whom it serves in its environment', async () => {
    const [a, b] = [await stack.connect(await stack.token('alice-app')), await stack.connect(await stack.token('bob-app'))]
    const [wa, wb] = [await whoami(a), await whoami(b)]
    expect(wa.pid).not.toBe(wb.pid)
    expect(wa.clientId).not.toBe(wb.clientId)
    expect(wa.subject).toBeTruthy()
    expect(wa.scope).toBe('mcp')
    expect(stack.job.host.pool.size).toBe(2)
    await Promise.all([a.close(), b.close()])
  })

  it("ends a stateful session's child with the session", async () => {
    const client = await stack.connect(await stack.token('carol-app'))
    const { pid } = await whoami(client)
    await client.close()
    await until(() => stack.job.host.pool.size === 0)
    expect(() => process.kill(pid, 0)).toThrow()
  })

  it("serves a stateless principal's requests from one long-lived child, never a process per request", async () => {
    const token = await stack.token('dave-app')
    const pids = new Set<number>()
    for (let id = 1; id <= 4; id++) {
      const { body, headers } = statelessRequest(id, 'tools/call', { name: 'whoami', arguments: {} })
      const answer = await stack.post(token, body, headers)
      expect(answer.status).toBe(200)
      const result = answer.message.result as { content: Array<{ text: string }>; resultType: string }
      expect(result.resultType).toBe('complete')
      pids.add(JSON.parse(result.content[0]!.text).pid)
    }
    // the JSON-only endpoint (an older revision, no session) reaches the same child
    const rest = await stack.post(
      token,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { 'mcp-protocol-version': '2025-06-18', accept: 'application/json' },
      '/rest',
    )
    pids.add(JSON.parse((rest.message.result as { content: Array<{ text: string }> }).content[0]!.text).pid)
    expect(pids.size).toBe(1)
    expect(stack.job.host.longLivedChildren).toBe(1)
  })

  it('answers server/discover from what the child said at initialize', async () => {
    const { body, headers } = statelessRequest(1, 'server/discover')
    const answer = await stack.post(await stack.token('dave-app'), body, headers)
    const result = answer.message.result as Record<string, any>
    expect(result.supportedVersions).toContain('2026-07-28')
    expect(result.capabilities.tools).toEqual({})
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'stdio-test-server', version: '1.0.0' })
  })

  it('ends a stateless child after its idle time', async () => {
    const { body, headers } = statelessRequest(1, 'tools/call', { name: 'echo', arguments: { message: 'x' } })
    await stack.post(await stack.token('erin-app'), body, headers)
    expect(stack.job.host.longLivedChildren).toBeGreaterThanOrEqual(1)
    await until(() => stack.job.host.longLivedChildren === 0)
  })
})

describe('the caps on children', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ children: { maxChildren: 2, maxChildrenPerPrincipal: 1 } })
  })
  afterAll(() => stack.stop())

  const initialize = (token: string) =>
    stack.post(token, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })

  it("refuses a principal's child over its cap with 429 and Retry-After, and everyone's over the total with 503", async () => {
    const [a, b, c] = [await stack.token('a'), await stack.token('b'), await stack.token('c')]
    expect((await initialize(a)).status).toBe(200)
    const again = await initialize(a)
    expect(again.status).toBe(429)
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((again.message.error as { message: string }).message).toMatch(/already runs 1 MCP server process.*its limit/)
    expect((await initialize(b)).status).toBe(200)
    const full = await initialize(c)
    expect(full.status).toBe(503)
    expect(full.headers.get('retry-after')).toBeTruthy()
    expect((full.message.error as { message: string }).message).toMatch(/runs 2 MCP server processes \(its limit\)/)
    // a stateless request of a fourth principal is refused the same way, before any process starts
    const { body, headers } = statelessRequest(1, 'tools/call', { name: 'echo', arguments: { message: 'x' } })
    const stateless = await stack.post(await stack.token('d'), body, headers)
    expect(stateless.status).toBe(503)
    expect(stateless.headers.get('retry-after')).toBeTruthy()
  })
})

describe('progress, cancellation and sampling through a stateful session', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack()
  })
  afterAll(() => stack.stop())

  it("relays the child's progress on the request's own token", async () => {
    const client = await stack.connect(await stack.token())
    const seen: number[] = []
    const result = await client.callTool(
      { name: 'slow', arguments: { ms: 150, steps: 3, tag: 'p' } },
      { onprogress: (progress: { progress: number }) => seen.push(progress.progress) },
    )
    expect((result.content[0] as { text: string }).text).toBe('slow done: p')
    expect(seen).toEqual([1, 2, 3])
    await client.close()
  })

  it('tells the child when the client cancels, under the id the child knows', async () => {
    const client = await stack.connect(await stack.token())
    const controller = new AbortController()
    const call = client.callTool({ name: 'slow', arguments: { ms: 2000, steps: 20 } }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 200)
    await expect(call).rejects.toThrow()
    await until(() => stack.log.some((line) => /stdio-test-server: request \d+ cancelled/.test(line)))
    await client.close()
  })

  it("carries the child's sampling request to the client and the answer back", async () => {
    const client = await stack.connect(await stack.token(), (c) =>
      c.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' })),
    )
    const result = await client.callTool({ name: 'sample', arguments: { prompt: 'the answer?' } })
    expect((result.content[0] as { text: string }).text).toBe('sampled: forty-two')
    await client.close()
  })

  it('copies the children’s stderr to the log, naming the principal', async () => {
    expect(stack.log.some((line) => /^\[child pid=\d+ subject=\S+ client=\S+\] stdio-test-server: request \d+ cancelled$/.test(line))).toBe(true)
  })
})

describe("a child's request before the client opened its GET stream", () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack()
  })
  afterAll(() => stack.stop())

  it('is kept for the GET stream and delivered when the client opens it (server-filesystem asks roots/list at once)', async () => {
    const token = await stack.token()
    const init = await stack.post(token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 't', version: '1' } },
    })
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' }
    const call = (id: number, name: string) => stack.post(token, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { prompt: 'late GET' } } }, headers)
    // the child asks sampling/createMessage after its answer: no request of the client is in flight
    expect(((await call(2, 'ask-later')).message.result as { content: Array<{ text: string }> }).content[0]!.text).toBe('asked')
    await new Promise((resolve) => setTimeout(resolve, 300))
    // the client opens its GET stream late: the request is there
    const controller = new AbortController()
    const get = await fetch(`${stack.origin}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers }, signal: controller.signal })
    const reader = get.body!.getReader()
    let text = ''
    while (!text.includes('sampling/createMessage')) text += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
    const request = JSON.parse(
      text
        .split('\n')
        .find((line) => line.includes('sampling/createMessage'))!
        .slice('data: '.length),
    )
    const answered = await stack.post(token, { jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'kept' }, model: 'm' } }, headers)
    expect(answered.status).toBe(202)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(((await call(3, 'last-sampled')).message.result as { content: Array<{ text: string }> }).content[0]!.text).toBe('kept')
  })
})

describe('the legacy HTTP+SSE endpoint (/sse)', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack()
  })
  afterAll(() => stack.stop())

  it("serves a 2024-11-05 client's session from a child of its own", async () => {
    const token = await stack.token()
    const client = new McpClient({ name: 'legacy', version: '1' }, { protocolVersion: '2024-11-05', supportedProtocolVersions: ['2024-11-05'] })
    await client.connect(new SseClientTransport(new URL(`${stack.origin}/sse`), { headers: { authorization: `Bearer ${token}` } }))
    const result = await client.callTool({ name: 'echo', arguments: { message: 'over /sse' } })
    expect((result.content[0] as { text: string }).text).toBe('echo: over /sse')
    expect(stack.job.host.pool.size).toBe(1)
    await client.close()
  })
})
