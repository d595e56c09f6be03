// Issue 27, item 11: while Redis is away, every path of a `start --redis` node answers 503 with
// Retry-After in its own format (OAuth JSON at the authorization server, JSON-RPC at MCP) and
// never 500 (a DPoP-bound token got 500 server_error at /mcp); metadata needs no storage; the node
// serves again once Redis is back.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DpopKey, generateDpopKey } from '../../src/auth/client/dpop.js'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { CookieJar } from '../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const PROTOCOL = '2025-11-25'
const REDIRECT = 'http://127.0.0.1:9/callback'

interface Node {
  child: ChildProcess
  output: () => string
  url: string
  basic: string
  bearer: string
  dpopToken: string
  key: DpopKey
  /** An interaction page opened before the outage, with the browser's cookies and the form's CSRF token. */
  interaction: string
  jar: CookieJar
  csrf: string
  publicClient: string
}

let redis: RedisServer
const dirs: string[] = []
let plain: Node
let withNonces: Node

async function startNode(prefix: string, extra: string[]): Promise<Node> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-outage-'))
  dirs.push(dir)
  const { child, url, output } = await startCli(['start', '--port', '0', '--data-dir', dir, '--redis', redis.url, '--redis-prefix', prefix, ...extra], {
    env: { MCP_AUTH_DEMO_PASSWORD: 'outage demo password' },
  })
  const registered = (await (
    await fetch(`${url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [], grant_types: ['client_credentials'], response_types: [], scope: 'mcp' }),
    })
  ).json()) as { client_id: string; client_secret: string }
  const basic = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`
  const bearer = await token(url, basic)
  const key = await DpopKey.load(await generateDpopKey())
  const dpopAnswer = await dpopTokenRequestWithBasic(url, basic, key)
  expect(dpopAnswer.status).toBe(200)
  const dpopToken = ((await dpopAnswer.json()) as { access_token: string; token_type: string }).access_token
  const publicClient = (
    (await (
      await fetch(`${url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      })
    ).json()) as { client_id: string }
  ).client_id
  const jar = new CookieJar()
  const started = await fetch(authorizeUrl(url, publicClient), { redirect: 'manual' })
  jar.store(started, new URL(url))
  expect(started.status).toBe(303)
  const interaction = new URL(started.headers.get('location')!, url).href
  const page = await fetch(interaction, { headers: { cookie: jar.header(new URL(interaction)) } })
  expect(page.status).toBe(200)
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
  // a first DPoP call teaches the key the resource's nonce (when it asks for one)
  const warm = await mcpPost(url, { dpop: { token: dpopToken, key } })
  key.observe(`${url}/mcp`, warm)
  return { child, output, url, basic, bearer, dpopToken, key, interaction, jar, csrf, publicClient }
}

function authorizeUrl(url: string, clientId: string): string {
  return `${url}/authorize?${new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    resource: `${url}/mcp`,
  })}`
}

async function token(url: string, basic: string): Promise<string> {
  const response = await fetch(`${url}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=mcp',
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

/** A client_credentials request with a DPoP proof, once more with the server's nonce when it asks for one. */
async function dpopTokenRequestWithBasic(url: string, basic: string, key: DpopKey): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', dpop: await key.proof('POST', `${url}/token`) },
      body: 'grant_type=client_credentials&scope=mcp',
    })
    key.observe(`${url}/token`, response)
    if (attempt > 0 || response.status !== 400 || !response.headers.has('dpop-nonce')) return response
    await response.body?.cancel()
  }
}

async function authorization(url: string, path: string, method: string, auth: { bearer?: string; dpop?: { token: string; key: DpopKey } }): Promise<Record<string, string>> {
  if (auth.bearer !== undefined) return { authorization: `Bearer ${auth.bearer}` }
  const { token: accessToken, key } = auth.dpop!
  return { authorization: `DPoP ${accessToken}`, dpop: await key.proof(method, `${url}${path}`, accessToken) }
}

async function mcpPost(url: string, auth: { bearer?: string; dpop?: { token: string; key: DpopKey } }, path = '/mcp'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      ...(await authorization(url, path, 'POST', auth)),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'outage-test', version: '1.0.0' } },
    }),
  })
}

async function restPost(url: string, auth: { bearer?: string; dpop?: { token: string; key: DpopKey } }): Promise<Response> {
  return fetch(`${url}/rest`, {
    method: 'POST',
    headers: { ...(await authorization(url, '/rest', 'POST', auth)), 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
  })
}

async function sseGet(url: string, auth: { bearer?: string; dpop?: { token: string; key: DpopKey } }): Promise<Response> {
  const controller = new AbortController()
  const response = await fetch(`${url}/sse`, { headers: { ...(await authorization(url, '/sse', 'GET', auth)), accept: 'text/event-stream' }, signal: controller.signal })
  if (response.status === 200) controller.abort()
  return response
}

/** What is wrong with `response` as a storage outage answer (503, Retry-After in whole seconds, the surface's format: a page for a browser), if anything. */
async function unavailable(response: Response, format: 'oauth' | 'jsonrpc' | 'page' | 'health', what: string): Promise<string[]> {
  const text = await response.text()
  const problems: string[] = []
  if (response.status !== 503) problems.push(`${what}: ${response.status} ${text.slice(0, 200)}`)
  if (!/^\d+$/.test(response.headers.get('retry-after') ?? '')) problems.push(`${what}: no Retry-After`)
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    if (format === 'oauth' || format === 'jsonrpc') problems.push(`${what}: not JSON: ${text.slice(0, 200)}`)
  }
  if (format === 'oauth' && (body['error'] !== 'temporarily_unavailable' || typeof body['error_description'] !== 'string'))
    problems.push(`${what}: not an OAuth temporarily_unavailable error: ${text.slice(0, 200)}`)
  if (format === 'jsonrpc' && (body['jsonrpc'] !== '2.0' || typeof (body['error'] as { code?: unknown } | undefined)?.code !== 'number'))
    problems.push(`${what}: not a JSON-RPC error: ${text.slice(0, 200)}`)
  return problems
}

beforeAll(async () => {
  // append-only: what the nodes stored is there again when Redis comes back
  redis = await startRedisServer({ persistence: true })
  ;[plain, withNonces] = await Promise.all([startNode('plain:', []), startNode('nonces:', ['--dpop-nonces'])])
}, 40_000)

afterAll(async () => {
  await Promise.all([plain, withNonces].map((node) => (node === undefined ? undefined : stopChild(node.child, 'SIGKILL'))))
  await redis?.close()
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('a start --redis node while Redis is down', () => {
  it('answers 503 with Retry-After on every path that needs storage, metadata without it, and serves again once Redis is back', async () => {
    await redis.stop()
    const logged = [plain, withNonces].map((node) => node.output().length)
    const problems: string[] = []
    try {
      for (const node of [plain, withNonces]) {
        const { url } = node
        const dpop = { token: node.dpopToken, key: node.key }
        problems.push(...(await unavailable(await fetch(`${url}/healthz`), 'health', 'healthz')))
        problems.push(...(await unavailable(await mcpPost(url, { bearer: node.bearer }), 'jsonrpc', 'mcp bearer')))
        problems.push(...(await unavailable(await mcpPost(url, { dpop }), 'jsonrpc', 'mcp dpop')))
        problems.push(...(await unavailable(await restPost(url, { dpop }), 'jsonrpc', 'rest dpop')))
        // stateless JSON and the legacy SSE stream need no storage with a Bearer token: served as usual
        expect((await restPost(url, { bearer: node.bearer })).status).toBe(200)
        expect((await sseGet(url, { bearer: node.bearer })).status).toBe(200)
        problems.push(...(await unavailable(await sseGet(url, { dpop }), 'jsonrpc', 'sse dpop')))
        const tokenRequest = await fetch(`${url}/token`, {
          method: 'POST',
          headers: { authorization: node.basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&scope=mcp',
        })
        problems.push(...(await unavailable(tokenRequest, 'oauth', 'token')))
        const dpopTokenAnswer = await fetch(`${url}/token`, {
          method: 'POST',
          headers: { authorization: node.basic, 'content-type': 'application/x-www-form-urlencoded', dpop: await node.key.proof('POST', `${url}/token`) },
          body: 'grant_type=client_credentials&scope=mcp',
        })
        problems.push(...(await unavailable(dpopTokenAnswer, 'oauth', 'token dpop')))
        const registration = await fetch(`${url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
        })
        problems.push(...(await unavailable(registration, 'oauth', 'register')))
        problems.push(...(await unavailable(await fetch(authorizeUrl(url, node.publicClient), { redirect: 'manual' }), 'page', 'authorize')))
        const cookie = node.jar.header(new URL(node.interaction))
        problems.push(...(await unavailable(await fetch(node.interaction, { headers: { cookie }, redirect: 'manual' }), 'page', 'interaction page')))
        const login = await fetch(`${node.interaction}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          body: new URLSearchParams({ username: 'demo', password: 'outage demo password', csrf: node.csrf }),
          redirect: 'manual',
        })
        problems.push(...(await unavailable(login, 'page', 'interaction login')))
        // metadata needs no storage
        expect((await fetch(`${url}/.well-known/oauth-authorization-server`)).status).toBe(200)
        expect((await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(200)
      }
    } finally {
      await redis.start()
    }
    expect(problems).toEqual([])
    // an outage is no fault of the code: no stack trace per request
    for (const [i, node] of [plain, withNonces].entries()) expect(node.output().slice(logged[i])).not.toMatch(/^\s+at /m)
    for (const node of [plain, withNonces]) {
      const deadline = Date.now() + 10_000
      while ((await fetch(`${node.url}/healthz`)).status !== 200) {
        if (Date.now() > deadline) throw new Error('the node did not turn healthy after Redis came back')
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await token(node.url, node.basic)
      expect((await mcpPost(node.url, { bearer: node.bearer })).status).toBe(200)
      expect((await mcpPost(node.url, { dpop: { token: node.dpopToken, key: node.key } })).status).toBe(200)
    }
  }, 40_000)
})
