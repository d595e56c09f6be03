// Issue 27 item 13: two `mcp-auth start --redis` nodes behind a real HAProxy (health checks on
// /healthz, retries 2, option redispatch, as docs/deployment.md shows, with a short check interval
// and a drain delay to match), one real redis-server. Under steady load through the proxy (16
// clients: authenticated tool calls and token requests), each node in turn gets SIGTERM and is
// started again: no request fails. A GET stream held across a node's drain ends with a retry hint
// and resumes on the other node.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { HAPROXY_CHECK, startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const PROTOCOL = '2025-11-25'
const CLIENTS = 16
/** The drain delay: HAProxy's check interval × checks to fail, plus a margin (docs/deployment.md). */
const DRAIN_DELAY_SECONDS = (HAPROXY_CHECK.interMs * HAPROXY_CHECK.fall + 500) / 1000

let redis: RedisServer
let proxy: Haproxy
let dataDir: string
let configFile: string
let nodePorts: number[] = []
const nodes: Array<{ child: ChildProcess } | undefined> = []
let basic = ''
let accessToken = ''

async function startNode(i: number): Promise<void> {
  const started = await startCli(
    [
      'start',
      '--redis',
      redis.url,
      '--issuer',
      proxy.origin,
      '--trust-proxy',
      '--port',
      String(nodePorts[i]),
      '--data-dir',
      dataDir,
      '--config',
      configFile,
      '--drain-delay',
      String(DRAIN_DELAY_SECONDS),
    ],
    { timeoutMs: 30_000 },
  )
  nodes[i] = { child: started.child }
}

const nodeUrl = (i: number): string => `http://127.0.0.1:${nodePorts[i]}`

/** Until the node's own /healthz answers 503 "draining". */
async function untilDraining(i: number): Promise<void> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const res = await fetch(`${nodeUrl(i)}/healthz`)
    const body = (await res.json()) as { status: string }
    if (res.status === 503 && body.status === 'draining') return
    if (Date.now() > deadline) throw new Error(`node ${i} does not say it drains: ${res.status} ${JSON.stringify(body)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** SIGTERM, and the exit code once the node has drained. */
function terminate(i: number): Promise<number | null> {
  const { child } = nodes[i]!
  nodes[i] = undefined
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

/** Until HAProxy's health checks see both nodes up. */
async function untilBothServe(): Promise<void> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const seen = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${proxy.origin}/healthz`)
      seen.add(res.headers.get('x-served-by') ?? '')
      await res.body?.cancel()
    }
    if (seen.size === 2) return
    if (Date.now() > deadline) throw new Error(`HAProxy sends to ${[...seen].join(', ')} only`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-rolling-'))
  configFile = `${dataDir}-config.json`
  nodePorts = await Promise.all([freePort(), freePort()])
  proxy = await startHaproxy(nodePorts)
  // the load sends some thousand token requests and tool calls a minute from one client, one token and one address
  await writeFile(
    configFile,
    JSON.stringify({ rateLimits: { tokenPerAddress: 1_000_000, tokenPerClient: 1_000_000 }, resources: [{ uri: `${proxy.origin}/mcp`, rateLimit: false }] }),
  )
  await startNode(0)
  await startNode(1)
  await untilBothServe()
  const registered = await fetch(`${proxy.origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' }),
  })
  expect(registered.status).toBe(201)
  const client = (await registered.json()) as { client_id: string; client_secret: string }
  basic = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`
  const token = await tokenRequest()
  expect(token.status).toBe(200)
  accessToken = ((await token.json()) as { access_token: string }).access_token
}, 60_000)

afterAll(async () => {
  await Promise.all(nodes.map((node) => (node === undefined ? undefined : stopChild(node.child, 'SIGKILL'))))
  await proxy?.close()
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
  await rm(configFile, { force: true })
})

/** A client_credentials token request through the proxy, or straight to a node as the proxy would forward it. */
function tokenRequest(base = proxy.origin): Promise<Response> {
  const forwarded: Record<string, string> = base === proxy.origin ? {} : { 'x-forwarded-host': new URL(proxy.origin).host, 'x-forwarded-proto': 'http' }
  return fetch(`${base}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', ...forwarded },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${proxy.origin}/mcp` }),
  })
}

function mcpPost(body: object, sessionId?: string): Promise<Response> {
  return fetch(`${proxy.origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(body),
  })
}

/** The JSON-RPC messages of a POST's answer, JSON or SSE. */
async function messagesOf(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text()
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return text === '' ? [] : [JSON.parse(text) as Record<string, unknown>]
  return text
    .split(/\r?\n\r?\n/)
    .flatMap((block) => block.split(/\r?\n/).filter((line) => line.startsWith('data:')))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as Record<string, unknown>)
}

async function openSession(): Promise<string> {
  const init = await mcpPost({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'rolling', version: '1' } },
  })
  expect(init.status).toBe(200)
  await messagesOf(init)
  const sessionId = init.headers.get('mcp-session-id')!
  const initialized = await mcpPost({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)
  expect(initialized.status).toBe(202)
  await initialized.body?.cancel()
  return sessionId
}

/** One client of the load: tool calls on its session and token requests, in turn, until `stop`. */
async function client(n: number, sessionId: string, stop: { done: boolean }, tally: { served: number; failures: string[] }): Promise<void> {
  for (let i = 0; !stop.done; i++) {
    const what = i % 2 === 0 ? 'tool call' : 'token request'
    try {
      if (i % 2 === 0) {
        const res = await mcpPost({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'add', arguments: { a: n, b: i } } }, sessionId)
        const messages = await messagesOf(res)
        const text = JSON.stringify(messages.at(-1))
        if (res.status !== 200 || !text.includes(String(n + i)) || !text.includes('"result"')) tally.failures.push(`${what}: ${res.status} ${text.slice(0, 200)}`)
      } else {
        const res = await tokenRequest()
        const body = (await res.json()) as { access_token?: string }
        if (res.status !== 200 || typeof body.access_token !== 'string') tally.failures.push(`${what}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`)
      }
      tally.served++
    } catch (error) {
      // a connection reset, a socket closed before the answer
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      tally.failures.push(`${what}: ${(error as Error).message} ${cause?.code ?? cause?.message ?? ''}`)
    }
  }
}

describe('a rolling restart of two mcp-auth start --redis nodes behind HAProxy', () => {
  it('serves every tool call and token request while each node in turn drains, exits 0 and starts again', async () => {
    const sessions = await Promise.all(Array.from({ length: CLIENTS }, () => openSession()))
    const stop = { done: false }
    const tally = { served: 0, failures: [] as string[] }
    const load = Promise.all(sessions.map((sessionId, n) => client(n, sessionId, stop, tally)))
    try {
      await new Promise((resolve) => setTimeout(resolve, 500))
      for (const i of [0, 1]) {
        const before = tally.served
        const exited = terminate(i)
        // the node tells the balancer first, and goes on serving what still reaches it meanwhile
        await untilDraining(i)
        const direct = await tokenRequest(nodeUrl(i))
        expect(direct.status).toBe(200)
        await direct.body?.cancel()
        expect(await exited).toBe(0)
        expect(tally.served).toBeGreaterThan(before)
        await startNode(i)
        await untilBothServe()
      }
      await new Promise((resolve) => setTimeout(resolve, 300))
    } finally {
      stop.done = true
      await load
    }
    expect(tally.failures).toEqual([])
    expect(tally.served).toBeGreaterThan(200)
  }, 90_000)

  it('ends a GET stream of a draining node with a retry hint; the client resumes it on the other node', async () => {
    const sessionId = await openSession()
    const stream = await fetch(`${proxy.origin}/mcp`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'text/event-stream', 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': sessionId },
    })
    expect(stream.status).toBe(200)
    const servedBy = stream.headers.get('x-served-by')!
    const i = Number(servedBy.slice(1))
    const exited = terminate(i)
    // the stream ends cleanly (no reset), its last field a retry hint
    const text = await stream.text()
    expect(text).toMatch(/retry: \d+\n\n$/)
    const primed = /^id: (\S+)$/m.exec(text)![1]!
    expect(await exited).toBe(0)
    const resumed = await fetch(`${proxy.origin}/mcp`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'text/event-stream', 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': sessionId, 'last-event-id': primed },
    })
    expect(resumed.status).toBe(200)
    expect(resumed.headers.get('x-served-by')).not.toBe(servedBy)
    await resumed.body?.cancel()
    await startNode(i)
    await untilBothServe()
  }, 60_000)

  it('stops at once on a second signal during the drain (Ctrl-C twice)', async () => {
    const ownDir = await mkdtemp(join(tmpdir(), 'mcp-auth-twice-'))
    const { child, output } = await startCli(['start', '--port', '0', '--data-dir', ownDir, '--drain-delay', '60'], { timeoutMs: 30_000 })
    try {
      const url = /listening on (\S+)/.exec(output())![1]!
      expect((await fetch(`${url}/healthz`)).status).toBe(200)
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      const deadline = Date.now() + 5_000
      while (!output().includes('draining:') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      const health = await fetch(`${url}/healthz`)
      expect(health.status).toBe(503)
      expect(await health.json()).toEqual({ status: 'draining' })
      const started = Date.now()
      child.kill('SIGINT')
      expect(await exited).toBe(0)
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      await stopChild(child, 'SIGKILL')
      await rm(ownDir, { recursive: true, force: true })
    }
  }, 60_000)
})
