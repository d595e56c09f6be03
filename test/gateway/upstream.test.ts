/**
 * Issue 31, item 3: `--upstream URL`, the gateway in front of an HTTP MCP server without auth. The
 * upstream (the official SDK v2 on node:http, stateful sessions) never sees the caller's token; it
 * gets a principal JWT in the operator's header that verifies at our JWKS with audience = its URL.
 */
import { McpServer } from '@modelcontextprotocol/server'
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createGatewayJob, type GatewayJob, type GatewayJobOptions } from '../../src/app/gateway-job.js'
import { McpClient } from '../../src/client/mcp-client.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { listenOnLoopback } from '../helpers/listen.js'
import { sdkLegacyPeer } from '../transports/http-client/sdk-peers.js'

const HEADER = 'X-Principal'
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
})

interface Upstream {
  url: string
  port: number
  /** The headers of every request the upstream received. */
  seen: IncomingHttpHeaders[]
  close(): Promise<void>
}

/** An SDK v2 server with sessions; its `whoami` tool returns the principal header and session it was called with. */
async function upstreamServer(port = 0): Promise<Upstream> {
  const seen: IncomingHttpHeaders[] = []
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>()
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers)
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? sessions.get(id) : undefined
    if (transport === undefined) {
      if (req.method !== 'POST' || id !== undefined) {
        res.writeHead(id === undefined ? 405 : 404).end()
        return
      }
      const created = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, created) })
      const server = new McpServer({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } })
      server.registerTool('whoami', { description: 'What the upstream received' }, async (ctx) => {
        const headers = ctx.http?.req?.headers
        return {
          content: [
            {
              type: 'text',
              text: JSON.stringify({
                principal: headers?.get(HEADER) ?? null,
                authorization: headers?.get('authorization') ?? null,
                session: headers?.get('mcp-session-id') ?? null,
              }),
            },
          ],
        }
      })
      await server.connect(created)
      transport = created
    }
    await transport.handleRequest(req, res)
  }
  const server: Server = createServer((req, res) => void handler(req, res))
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const actual = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    seen,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

async function gateway(upstream: GatewayJobOptions['upstream'], extra: Partial<GatewayJobOptions> = {}): Promise<{ job: GatewayJob; origin: string; token(): Promise<string> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gw-upstream-'))
  closers.push(() => rm(dataDir, { recursive: true, force: true }))
  let handler: GatewayJob['handler'] | undefined
  const http = await listenOnLoopback((req, res) => handler!(req, res))
  closers.push(() => http.close())
  const lines: string[] = []
  const job = await createGatewayJob({ origin: http.url, dataDir, upstream, config: { rateLimits: false }, log: (line) => lines.push(line), ...extra })
  closers.push(() => job.close())
  handler = job.handler
  const origin = http.url
  return {
    job,
    origin,
    async token() {
      const client = await job.as!.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' })
      const res = await fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp` }),
      })
      const body = (await res.json()) as { access_token: string }
      return body.access_token
    },
  }
}

async function connect(origin: string, token: string): Promise<McpClient> {
  const client = new McpClient({ name: 'caller', version: '1.0.0' })
  closers.push(() => client.close())
  await client.connect(new StreamableHttpClientTransport(new URL(`${origin}/mcp`), { headers: { authorization: `Bearer ${token}` } }))
  return client
}

async function whoami(client: McpClient): Promise<{ principal: string | null; authorization: string | null; session: string | null }> {
  const result = await client.callTool('whoami', {})
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
}

/** One stateless (2026-07-28) tools/call, as a plain POST. */
function statelessCall(origin: string, token: string, name: string, id = 7): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  })
}

/** The JSON-RPC answer of a POST answered in JSON or SSE. */
async function answer(res: Response): Promise<{ result?: { content: Array<{ text: string }> }; error?: { code: number; message: string } }> {
  const text = await res.text()
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) return JSON.parse(text)
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)))
  return data.find((message) => 'result' in message || 'error' in message)
}

describe('gateway --upstream', () => {
  it('sends the upstream a principal JWT verifiable at our JWKS, never the caller token', async () => {
    const upstream = await upstreamServer()
    closers.push(() => upstream.close())
    const { origin, token, job } = await gateway({ url: upstream.url, header: HEADER })
    const [tokenA, tokenB] = [await token(), await token()]
    const a = await connect(origin, tokenA)
    const b = await connect(origin, tokenB)
    const seenA = await whoami(a)
    const seenB = await whoami(b)

    expect(seenA.authorization).toBeNull()
    for (const headers of upstream.seen) {
      expect(headers.authorization).toBeUndefined()
      expect(JSON.stringify(headers)).not.toContain(tokenA)
      expect(JSON.stringify(headers)).not.toContain(tokenB)
      expect(headers[HEADER.toLowerCase()]).toEqual(expect.any(String))
    }

    const jwks = createRemoteJWKSet(new URL(`${origin}/jwks`))
    const callerA = (await jwtVerify(tokenA, jwks, { issuer: job.issuer })).payload
    const { payload, protectedHeader } = await jwtVerify(seenA.principal!, jwks, { issuer: job.issuer, audience: upstream.url, typ: 'mcp-principal+jwt' })
    expect(protectedHeader.typ).toBe('mcp-principal+jwt')
    expect(payload).toMatchObject({ client_id: callerA['client_id'], scope: callerA['scope'] })
    expect(payload.sub).toBe(callerA.sub)
    expect(payload.exp! - payload.iat!).toBe(300)
    expect(payload.jti).toEqual(expect.any(String))
    // not an access token: our own resource server refuses it
    const replayed = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seenA.principal}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    })
    expect(replayed.status).toBe(401)

    const principalB = (await jwtVerify(seenB.principal!, jwks, { audience: upstream.url })).payload
    expect(principalB['client_id']).not.toBe(payload['client_id'])
    // two principals, two upstream sessions
    expect(seenA.session).toEqual(expect.any(String))
    expect(seenB.session).toEqual(expect.any(String))
    expect(seenA.session).not.toBe(seenB.session)
  })

  it('serves a stateless (2026-07-28) request through a long-lived upstream session of the principal', async () => {
    const upstream = await upstreamServer()
    closers.push(() => upstream.close())
    const { origin, token, job } = await gateway({ url: upstream.url, header: HEADER })
    const caller = await token()
    const first = await answer(await statelessCall(origin, caller, 'whoami', 1))
    const second = await answer(await statelessCall(origin, caller, 'whoami', 2))
    const one = JSON.parse(first.result!.content[0]!.text)
    const two = JSON.parse(second.result!.content[0]!.text)
    expect(one.authorization).toBeNull()
    expect(one.session).toEqual(expect.any(String))
    expect(two.session).toBe(one.session)
    const jwks = createRemoteJWKSet(new URL(`${origin}/jwks`))
    await expect(jwtVerify(one.principal, jwks, { issuer: job.issuer, audience: upstream.url })).resolves.toBeDefined()
  })

  it('answers a clear JSON-RPC error while the upstream is down, and serves the next request once it is back', async () => {
    const probe = await upstreamServer()
    const port = probe.port
    await probe.close()
    const { origin, token } = await gateway({ url: `http://127.0.0.1:${port}/mcp`, header: HEADER }, { children: { restartDelayMs: 50, maxRestartDelayMs: 50 } })
    const caller = await token()
    const refused = await statelessCall(origin, caller, 'whoami', 1)
    const error = (await answer(refused)).error
    expect(error?.message).toContain(`the upstream MCP server http://127.0.0.1:${port}/mcp could not be reached`)

    const upstream = await upstreamServer(port)
    closers.push(() => upstream.close())
    let served: Awaited<ReturnType<typeof answer>> | undefined
    for (let attempt = 0; attempt < 20 && served?.result === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      served = await answer(await statelessCall(origin, caller, 'whoami', 2 + attempt))
    }
    expect(JSON.parse(served!.result!.content[0]!.text).principal).toEqual(expect.any(String))
  })

  it.each(['sse', 'auto'] as const)('fronts a legacy HTTP+SSE upstream (transport %s)', async (transport) => {
    const legacy = await sdkLegacyPeer()
    closers.push(() => legacy.close())
    const { origin, token } = await gateway({ url: legacy.url, transport })
    const client = await connect(origin, await token())
    expect((await client.callTool('echo', { text: 'through the gateway' })).content).toEqual([{ type: 'text', text: 'through the gateway' }])
  })

  it('is refused with another authorization server, whose keys are not ours to sign with', async () => {
    await expect(createGatewayJob({ origin: 'http://127.0.0.1:1', upstream: { url: 'http://127.0.0.1:2/mcp' }, authServer: 'http://127.0.0.1:3' })).rejects.toThrow(/principal JWT/)
  })
})

describe('mcp-auth gateway --upstream', () => {
  it('serves the metadata and a call through to the upstream, with the principal JWT in X-MCP-Auth-Principal', async () => {
    const upstream = await upstreamServer()
    closers.push(() => upstream.close())
    const dir = await mkdtemp(join(tmpdir(), 'gw-upstream-cli-'))
    closers.push(() => rm(dir, { recursive: true, force: true }))
    const secret = 'a machine secret long enough for the gateway test 0123'
    const config = join(dir, 'auth-server.json')
    await writeFile(
      config,
      JSON.stringify({ clients: [{ client_id: 'machine', client_secret: secret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' }] }),
    )
    const { child, url } = await startCli(['gateway', '--port', '0', '--data-dir', join(dir, 'data'), '--config', config, '--upstream', upstream.url])
    closers.push(() => stopChild(child))

    const metadata = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)
    expect(metadata.status).toBe(200)
    expect(await metadata.json()).toMatchObject({ resource: `${url}/mcp` })
    const tokenResponse = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`machine:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${url}/mcp`, scope: 'mcp' }),
    })
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string }
    const seen = JSON.parse((await answer(await statelessCall(url, token, 'whoami'))).result!.content[0]!.text)
    expect(seen.authorization).toBeNull()
    expect(upstream.seen.every((headers) => typeof headers['x-mcp-auth-principal'] === 'string')).toBe(true)
    const { payload } = await jwtVerify(upstream.seen[0]!['x-mcp-auth-principal'] as string, createRemoteJWKSet(new URL(`${url}/jwks`)), { audience: upstream.url })
    expect(payload['client_id']).toBe('machine')
  })

  it.each([
    [['--upstream', 'http://127.0.0.1:9/mcp', '--', 'mcp-server-everything'], /not both/],
    [['--upstream-header', 'X-Who'], /goes with --upstream/],
    [['--upstream', 'http://127.0.0.1:9/mcp', '--auth-server', 'http://127.0.0.1:8'], /needs our authorization server/],
  ])('refuses %j with a usage error', async (args, message) => {
    const { code, stderr } = await runCli(['gateway', '--port', '0', ...args])
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
  })
})
