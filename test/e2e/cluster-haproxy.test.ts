// Issue 16: three `mcp-auth start --redis` processes behind a real HAProxy (round robin) on one
// public origin, one real redis-server (append-only, fsync always), Chromium for the pages.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { HAPROXY_CHECK, startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const PASSWORD = 'cluster demo password'
const REDIRECT = 'http://127.0.0.1:9/callback'
const PROTOCOL = '2025-11-25'
const WATCHED = 'test://watched-resource'
/** Token requests one client may make per window, counted across every node (the configuration file's). */
const TOKENS_PER_CLIENT = 12
const DRAIN_DELAY_SECONDS = (HAPROXY_CHECK.interMs * HAPROXY_CHECK.fall) / 1000

interface Node {
  port: number
  child: ChildProcess
}

let redis: RedisServer
let proxy: Haproxy
let browser: Browser
let dataDir: string
let configFile: string
let nodePorts: number[] = []
const nodes: Array<Node | undefined> = []

async function startNode(i: number): Promise<void> {
  const port = nodePorts[i]!
  const { child } = await startCli(
    // a drain delay as long as HAProxy's checks take to see a node go (this file stops every node at once)
    [
      'start',
      '--redis',
      redis.url,
      '--demo',
      '--issuer',
      proxy.origin,
      '--trust-proxy',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--config',
      configFile,
      '--drain-delay',
      String(DRAIN_DELAY_SECONDS),
    ],
    { env: { MCP_AUTH_DEMO_PASSWORD: PASSWORD }, timeoutMs: 30_000 },
  )
  nodes[i] = { port, child }
}

const nodeUrl = (i: number): string => `http://127.0.0.1:${nodePorts[i]}`

/** Until HAProxy's health checks see every node up (a restarted node is out for a check or two). */
async function untilAllHealthy(): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const seen = new Set<string>()
    for (let i = 0; i < 9; i++) seen.add((await fetch(`${proxy.origin}/healthz`)).headers.get('x-served-by') ?? '')
    if (seen.size === 3) return
    if (Date.now() > deadline) throw new Error(`HAProxy sends to ${[...seen].join(', ')} only`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  redis = await startRedisServer({ persistence: true })
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-cluster-'))
  configFile = join(dataDir, '..', `${dataDir.split('/').pop()}-config.json`)
  await writeFile(configFile, JSON.stringify({ rateLimits: { tokenPerClient: TOKENS_PER_CLIENT } }))
  nodePorts = await Promise.all([freePort(), freePort(), freePort()])
  proxy = await startHaproxy(nodePorts)
  // three nodes at once on one empty data directory and an empty Redis: they agree on one key set
  await Promise.all([0, 1, 2].map(startNode))
  await untilAllHealthy()
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(nodes.map((node) => (node === undefined ? undefined : stopChild(node.child, 'SIGKILL'))))
  await proxy?.close()
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
  await rm(configFile, { force: true })
})

/** A public client, logged in as demo through the pages in Chromium, via the proxy. */
async function browserLogin(): Promise<{ config: oidc.Configuration; tokens: oidc.TokenEndpointResponse; servedBy: string[] }> {
  const insecure = { execute: [oidc.allowInsecureRequests] }
  const config = await oidc.dynamicClientRegistration(new URL(proxy.origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
  const verifier = oidc.randomPKCECodeVerifier()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp',
    resource: `${proxy.origin}/mcp`,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })
  const context = await browser.newContext()
  const servedBy: string[] = []
  try {
    const page = await context.newPage()
    page.on('response', (response) => {
      if (response.url().startsWith(proxy.origin)) servedBy.push(response.headers()['x-served-by'] ?? '?')
    })
    let callback: URL | undefined
    await context.route(`${REDIRECT}**`, async (route) => {
      callback = new URL(route.request().url())
      await route.fulfill({ body: 'done' })
    })
    await page.goto(url.href)
    await page.fill('#username', 'demo')
    await page.fill('#password', PASSWORD)
    await page.click('#sign-in')
    await page.waitForSelector('#allow')
    await page.click('#allow')
    await page.waitForURL(`${REDIRECT}**`)
    const tokens = await oidc.authorizationCodeGrant(config, callback!, { pkceCodeVerifier: verifier, expectedState: oidc.skipStateCheck })
    return { config, tokens, servedBy }
  } finally {
    await context.close()
  }
}

let login: Awaited<ReturnType<typeof browserLogin>>
let refreshToken = ''

/** A JSON-RPC POST to a node's /mcp (or the proxy's), answered as JSON or one SSE stream. */
async function post(
  base: string,
  body: object,
  sessionId?: string,
): Promise<{ status: number; sessionId: string | null; servedBy: string | null; messages: Array<Record<string, unknown>> }> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${login.tokens.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  const messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? events(text).map((event) => JSON.parse(event.data) as Record<string, unknown>)
    : text === ''
      ? []
      : [JSON.parse(text) as Record<string, unknown>]
  return { status: res.status, sessionId: res.headers.get('mcp-session-id'), servedBy: res.headers.get('x-served-by'), messages }
}

function events(text: string): Array<{ id?: string; data: string }> {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => {
      const lines = block.split(/\r?\n/)
      const id = lines
        .find((line) => line.startsWith('id:'))
        ?.slice(3)
        .trim()
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n')
      return id === undefined ? { data } : { id, data }
    })
    .filter((event) => event.data !== '')
}

/** A GET stream on one node, its events collected as they come. */
function openStream(base: string, sessionId: string, lastEventId?: string): { events: Array<{ id?: string; data: string }>; ready: Promise<number>; close(): void } {
  const controller = new AbortController()
  const collected: Array<{ id?: string; data: string }> = []
  const ready = fetch(`${base}/mcp`, {
    headers: {
      authorization: `Bearer ${login.tokens.access_token}`,
      accept: 'text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      'mcp-session-id': sessionId,
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
    signal: controller.signal,
  }).then((res) => {
    if (res.ok && res.body !== null) {
      void (async () => {
        let buffer = ''
        const decoder = new TextDecoder()
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true })
            const cut = buffer.lastIndexOf('\n\n')
            if (cut < 0) continue
            collected.push(...events(buffer.slice(0, cut)))
            buffer = buffer.slice(cut + 2)
          }
        } catch {
          // the node went away, or the test closed the stream
        }
      })()
    }
    return res.status
  })
  return { events: collected, ready, close: () => controller.abort() }
}

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const updates = (stream: { events: Array<{ id?: string; data: string }> }) => stream.events.filter((event) => event.data.includes('notifications/resources/updated'))

let sessionId = ''

describe('three mcp-auth start --redis processes behind HAProxy', () => {
  it('logs in through the pages in Chromium, its steps answered by different nodes', async () => {
    login = await browserLogin()
    refreshToken = login.tokens.refresh_token!
    expect(login.tokens.access_token).toBeTypeOf('string')
    expect(refreshToken).toBeTypeOf('string')
    // authorize, login page, login post, consent page, consent post…: round robin spreads them
    expect(new Set(login.servedBy).size).toBeGreaterThanOrEqual(2)
  }, 30_000)

  it('serves one stateful MCP session whose POSTs alternate between the nodes', async () => {
    const init = await post(proxy.origin, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'cluster-test', version: '1' } },
    })
    expect(init.status).toBe(200)
    sessionId = init.sessionId!
    expect(sessionId).toBeTypeOf('string')
    expect((await post(proxy.origin, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).status).toBe(202)
    const servedBy = new Set<string>([init.servedBy!])
    for (let i = 0; i < 6; i++) {
      const call = await post(proxy.origin, { jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } }, sessionId)
      expect(call.status).toBe(200)
      expect(JSON.stringify(call.messages.at(-1))).toContain(String(i + 1))
      servedBy.add(call.servedBy!)
    }
    expect(servedBy.size).toBe(3)
    const subscribed = await post(proxy.origin, { jsonrpc: '2.0', id: 20, method: 'resources/subscribe', params: { uri: WATCHED } }, sessionId)
    expect(subscribed.messages.at(-1)).toMatchObject({ id: 20, result: {} })
  }, 30_000)

  it('delivers to a GET stream on node A what a request on node B raised, and resumes on node C after A is killed -9, nothing lost or repeated', async () => {
    const onA = openStream(nodeUrl(0), sessionId)
    expect(await onA.ready).toBe(200)
    // B raises the notices; A holds the stream they go to
    for (const round of [1, 2]) {
      const touched = await post(nodeUrl(1), { jsonrpc: '2.0', id: 30 + round, method: 'tools/call', params: { name: 'touch_watched_resource', arguments: {} } }, sessionId)
      expect(touched.status).toBe(200)
      await until(() => updates(onA).length === round, `notice ${round} on node A's stream`)
    }
    const [first, second] = updates(onA)
    nodes[0]!.child.kill('SIGKILL')
    await new Promise<void>((resolve) => nodes[0]!.child.once('exit', () => resolve()))
    nodes[0] = undefined
    // the client had handled the first notice only when A died: it resumes from there on C
    const onC = openStream(nodeUrl(2), sessionId, first!.id!)
    expect(await onC.ready).toBe(200)
    await until(() => updates(onC).length === 1, 'the missed notice replayed on node C')
    expect(updates(onC)[0]).toEqual(second)
    // and C holds the stream now: the next notice, raised on B, arrives there once
    const touched = await post(nodeUrl(1), { jsonrpc: '2.0', id: 33, method: 'tools/call', params: { name: 'touch_watched_resource', arguments: {} } }, sessionId)
    expect(touched.status).toBe(200)
    await until(() => updates(onC).length === 2, 'the next notice on node C')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const seen = [...updates(onA), ...updates(onC)].map((event) => event.id)
    expect(updates(onC)).toHaveLength(2)
    expect(new Set(seen).size).toBe(3)
    onA.close()
    onC.close()
    await startNode(0)
    await untilAllHealthy()
  }, 60_000)

  it('lets one of two nodes redeem a refresh token used on both at the same moment, never two chains', async () => {
    const form = (token: string) =>
      new URLSearchParams({ grant_type: 'refresh_token', client_id: login.config.clientMetadata().client_id, refresh_token: token, resource: `${proxy.origin}/mcp` })
    const send = (base: string, token: string) =>
      fetch(`${base}/token`, {
        method: 'POST',
        // directly on a node's port, as the proxy would forward it
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-host': new URL(proxy.origin).host, 'x-forwarded-proto': 'http' },
        body: form(token),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }))
    const answers = await Promise.all([send(nodeUrl(0), refreshToken), send(nodeUrl(1), refreshToken)])
    const successors = answers.filter((answer) => answer.status === 200).map((answer) => answer.body['refresh_token']!)
    expect(successors.length).toBeGreaterThanOrEqual(1)
    const live: string[] = []
    for (const successor of successors) {
      const next = await send(nodeUrl(2), successor)
      if (next.status === 200) live.push(next.body['refresh_token']!)
    }
    expect(live).toHaveLength(1)
    refreshToken = live[0]!
  }, 30_000)

  it('counts a client’s token requests across the nodes: the limit holds whichever node each lands on', async () => {
    const config = await oidc.dynamicClientRegistration(
      new URL(proxy.origin),
      { redirect_uris: [REDIRECT], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' },
      undefined,
      { execute: [oidc.allowInsecureRequests] },
    )
    const auth = `Basic ${Buffer.from(`${config.clientMetadata().client_id}:${config.clientMetadata().client_secret}`).toString('base64')}`
    const statuses: number[] = []
    const servedBy = new Set<string>()
    for (let i = 0; i < TOKENS_PER_CLIENT + 2; i++) {
      const res = await fetch(`${proxy.origin}/token`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${proxy.origin}/mcp` }),
      })
      statuses.push(res.status)
      servedBy.add(res.headers.get('x-served-by') ?? '')
      await res.body?.cancel()
    }
    expect(servedBy.size).toBe(3)
    expect(statuses.slice(0, TOKENS_PER_CLIENT).every((status) => status === 200)).toBe(true)
    expect(statuses.slice(TOKENS_PER_CLIENT)).toEqual([429, 429])
  }, 30_000)

  it('keeps clients, accounts and grants when every node restarts', async () => {
    await Promise.all(nodes.map((node) => (node === undefined ? undefined : stopChild(node.child))))
    await Promise.all([0, 1, 2].map(startNode))
    await untilAllHealthy()
    const refreshed = await oidc.refreshTokenGrant(login.config, refreshToken, { resource: `${proxy.origin}/mcp` })
    expect(refreshed.access_token).toBeTypeOf('string')
    refreshToken = refreshed.refresh_token!
    login = { ...login, tokens: refreshed }
    // the account logs in again, and the session from before the restart still answers
    expect((await browserLogin()).tokens.access_token).toBeTypeOf('string')
    const call = await post(proxy.origin, { jsonrpc: '2.0', id: 50, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 2 } } }, sessionId)
    expect(call.status).toBe(200)
  }, 60_000)

  it('answers 503 while Redis is down, without a node crashing, and serves again once Redis is back', async () => {
    await redis.stop()
    const token = await fetch(`${proxy.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: login.config.clientMetadata().client_id, refresh_token: refreshToken }),
    })
    expect(token.status).toBe(503)
    expect(await token.json()).toMatchObject({ error: 'temporarily_unavailable' })
    const mcp = await post(nodeUrl(1), { jsonrpc: '2.0', id: 60, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }, sessionId)
    expect(mcp.status).toBe(503)
    expect(mcp.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } })
    expect((await fetch(`${nodeUrl(2)}/healthz`)).status).toBe(503)
    for (const node of nodes) expect(node!.child.exitCode).toBeNull()
    await redis.start()
    const deadline = Date.now() + 10_000
    while ((await fetch(`${nodeUrl(2)}/healthz`)).status !== 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    await untilAllHealthy()
    const refreshed = await oidc.refreshTokenGrant(login.config, refreshToken, { resource: `${proxy.origin}/mcp` })
    expect(refreshed.access_token).toBeTypeOf('string')
    const again = await post(proxy.origin, { jsonrpc: '2.0', id: 61, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }, sessionId)
    expect(again.status).toBe(200)
  }, 60_000)
})
