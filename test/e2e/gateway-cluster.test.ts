// Issue 31 (item 6): two `mcp-auth gateway --redis` processes behind a real HAProxy (round robin)
// on one public origin and one real redis-server, serving the stdio test server. A stateful
// session's child runs in one process: the other forwards the session's requests there.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { StreamableHttpClientTransport } from '../../src/transports/streamable-http/client/index.js'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { HAPROXY_CHECK, startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const TEST_SERVER = fileURLToPath(new URL('../fixtures/gateway/stdio-test-server.mjs', import.meta.url))
const PROTOCOL = '2025-11-25'
const DRAIN_DELAY_SECONDS = (HAPROXY_CHECK.interMs * HAPROXY_CHECK.fall) / 1000

let redis: RedisServer
let proxy: Haproxy
let dataDir: string
let ports: number[] = []
const nodes: ChildProcess[] = []
let token = ''

async function startNode(i: number): Promise<void> {
  const { child } = await startCli(
    [
      'gateway',
      '--redis',
      redis.url,
      '--issuer',
      proxy.origin,
      '--trust-proxy',
      '--port',
      String(ports[i]),
      '--data-dir',
      dataDir,
      '--drain-delay',
      String(DRAIN_DELAY_SECONDS),
      '--',
      process.execPath,
      TEST_SERVER,
      'ok',
    ],
    { timeoutMs: 20_000 },
  )
  nodes[i] = child
}

/** Until HAProxy's health checks see both nodes up. */
async function untilBothHealthy(): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const seen = new Set<string>()
    for (let i = 0; i < 6; i++) seen.add((await fetch(`${proxy.origin}/healthz`)).headers.get('x-served-by') ?? '')
    if (seen.size === 2) return
    if (Date.now() > deadline) throw new Error(`HAProxy sends to ${[...seen].join(', ')} only`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-cluster-'))
  ports = await Promise.all([freePort(), freePort()])
  proxy = await startHaproxy(ports)
  await Promise.all([0, 1].map(startNode))
  await untilBothHealthy()
  const config = await oidc.dynamicClientRegistration(
    new URL(proxy.origin),
    { redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' },
    undefined,
    { execute: [oidc.allowInsecureRequests] },
  )
  const auth = `Basic ${Buffer.from(`${config.clientMetadata().client_id}:${config.clientMetadata().client_secret}`).toString('base64')}`
  const response = await fetch(`${proxy.origin}/token`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${proxy.origin}/mcp` }),
  })
  const body = (await response.json()) as { access_token?: string }
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`)
  token = body.access_token
}, 40_000)

afterAll(async () => {
  await Promise.all(nodes.map((node) => stopChild(node, 'SIGKILL')))
  await proxy?.close()
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
})

interface Answer {
  status: number
  servedBy: string
  sessionId: string | null
  messages: Array<Record<string, unknown>>
}

/** A JSON-RPC POST through the proxy, answered as JSON or one SSE stream (every message of it). */
async function post(body: unknown, sessionId?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  if (sessionId !== undefined) Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL })
  const response = await fetch(`${proxy.origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await response.text()
  const messages = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice('data: '.length)))
    : text === ''
      ? []
      : [JSON.parse(text)]
  return { status: response.status, servedBy: response.headers.get('x-served-by') ?? '', sessionId: response.headers.get('mcp-session-id'), messages }
}

async function initialize(): Promise<{ sessionId: string; servedBy: string }> {
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'cluster', version: '1' } } })
  expect(init.status).toBe(200)
  expect(init.messages).toContainEqual(expect.objectContaining({ id: 0, result: expect.objectContaining({ protocolVersion: PROTOCOL }) }))
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sessionId!)).status).toBe(202)
  return { sessionId: init.sessionId!, servedBy: init.servedBy }
}

const pidOf = (answer: Answer): number => {
  const result = answer.messages.find((message) => 'result' in message)?.result as { content: Array<{ text: string }> }
  return (JSON.parse(result.content[0]!.text) as { pid: number }).pid
}

describe('a gateway session on two nodes behind a round-robin balancer', () => {
  it("relays the child's sampling requests and the client's answers whichever node each POST lands on", async () => {
    const client = new McpClient({ name: 'cluster', version: '1' }, { protocolVersion: PROTOCOL })
    let asked = 0
    client.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: `answer ${++asked}` }, model: 'test-model' }))
    await client.connect(new StreamableHttpClientTransport(new URL(`${proxy.origin}/mcp`), { headers: { authorization: `Bearer ${token}` } }))
    try {
      for (let i = 1; i <= 4; i++) {
        const result = await client.callTool({ name: 'sample', arguments: { prompt: `question ${i}` } })
        expect((result.content[0] as { text: string }).text).toBe(`sampled: answer ${i}`)
      }
    } finally {
      await client.close()
    }
  }, 20_000)

  it('reaches the one child from either node, and ends cleanly when that node drains', async () => {
    const { sessionId, servedBy: owner } = await initialize()
    const pids = new Set<number>()
    const servedBy = new Set<string>()
    for (let id = 1; id <= 10; id++) {
      const call = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, sessionId)
      expect(call.status).toBe(200)
      pids.add(pidOf(call))
      servedBy.add(call.servedBy)
    }
    // the balancer alternated, the child is one
    expect(servedBy).toEqual(new Set(['n0', 'n1']))
    expect(pids.size).toBe(1)

    // progress reaches the client whichever node the request landed on
    const slow = await post(
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'slow', arguments: { ms: 150, steps: 3 }, _meta: { progressToken: 'p11' } } },
      sessionId,
    )
    expect(slow.messages.filter((message) => message.method === 'notifications/progress')).toHaveLength(3)
    expect(slow.messages.at(-1)).toMatchObject({ id: 11, result: { content: [{ text: 'slow done: ' }] } })

    // the owning node drains while a call runs: the call finishes, then the session ends
    const index = Number(owner.slice(1))
    const inFlight = post({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'slow', arguments: { ms: 1_500, steps: 3, tag: 'drained' } } }, sessionId)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const exited = new Promise((resolve) => nodes[index]!.once('exit', resolve))
    nodes[index]!.kill('SIGTERM')
    const finished = await inFlight
    expect(finished.status).toBe(200)
    expect(finished.messages.at(-1)).toMatchObject({ id: 12, result: { content: [{ text: 'slow done: drained' }] } })
    await exited

    const gone = await post({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, sessionId)
    expect(gone.status).toBe(404)
    expect(gone.messages[0]).toMatchObject({ error: { code: -32001 } })

    // the client starts anew: the other node serves it, with a child of its own
    const fresh = await initialize()
    expect(fresh.servedBy).not.toBe(owner)
    const call = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, fresh.sessionId)
    expect(call.status).toBe(200)
    expect(pids.has(pidOf(call))).toBe(false)
  }, 30_000)
})
