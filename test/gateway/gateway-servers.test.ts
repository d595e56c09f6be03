/**
 * Issue 31, item 4: several stdio servers behind one gateway, each at `/<name>/mcp` a resource of
 * its own with its own scopes, on one authorization server: a user signs in once for all of them.
 */
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGatewayJob, type GatewayServer } from '../../src/app/gateway-job.js'
import { McpClient } from '../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { formLogin } from '../helpers/form-login.js'
import { startGatewayStack, statelessRequest, type GatewayStack } from '../helpers/gateway-stack.js'
import { TEST_SERVER } from '../helpers/paths.js'
import { pkcePair } from '../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const USER = { username: 'alice', password: 'correct horse battery staple' }
const REDIRECT = 'http://127.0.0.1/callback'

const SERVERS: GatewayServer[] = [
  { name: 'a', child: { command: process.execPath, args: [TEST_SERVER, 'ok'] }, resource: { name: 'Server A' } },
  {
    name: 'b',
    child: { command: process.execPath, args: [TEST_SERVER, 'ok'] },
    shared: true,
    resource: { name: 'Server B', scopes: ['mcp', 'b:admin'], requiredScopes: ['mcp'], toolScopes: { whoami: ['b:admin'] } },
  },
]

describe('several servers behind one gateway', () => {
  let stack: GatewayStack
  let origin: string
  beforeAll(async () => {
    stack = await startGatewayStack({ child: undefined, servers: SERVERS })
    origin = stack.origin
    await stack.job.as!.accounts.setUser(USER.username, USER.password, { name: 'Alice' }, ['mcp', 'b:admin'])
  })
  afterAll(() => stack.stop())

  /** A client_credentials token for `resource` (a client per name). */
  const clients = new Map<string, { id: string; secret: string }>()
  async function clientToken(name: string, resource: string, scope?: string): Promise<string> {
    let client = clients.get(name)
    if (client === undefined) {
      const added = await stack.job.as!.addClient({
        client_name: name,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp b:admin',
      })
      client = { id: added.client_id, secret: added.client_secret! }
      clients.set(name, client)
    }
    const response = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope !== undefined ? { scope } : {}) }),
    })
    const body = (await response.json()) as { access_token?: string }
    if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`)
    return body.access_token
  }

  async function connect(path: string, token: string): Promise<McpClient> {
    const client = new McpClient({ name: 'gateway-servers-test', version: '1' }, { protocolVersion: '2025-11-25', supportedProtocolVersions: ['2025-11-25'] })
    await client.connect(new StreamableHttpClientTransport(new URL(`${origin}${path}`), { headers: { authorization: `Bearer ${token}` } }))
    return client
  }

  it("serves each server's metadata at its own well-known URL, naming its own resource and scopes", async () => {
    const a = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/a/mcp`)).json()) as Record<string, unknown>
    const b = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/b/mcp`)).json()) as Record<string, unknown>
    expect(a).toMatchObject({ resource: `${origin}/a/mcp`, authorization_servers: [origin], scopes_supported: ['mcp'], resource_name: 'Server A' })
    expect(b).toMatchObject({ resource: `${origin}/b/mcp`, authorization_servers: [origin], scopes_supported: ['mcp', 'b:admin'], resource_name: 'Server B' })
    const bSse = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/b/sse`)).json()) as Record<string, unknown>
    expect(bSse.resource).toBe(`${origin}/b/sse`)
    // no server owns the root document, nor the root /mcp
    const root = await fetch(`${origin}/.well-known/oauth-protected-resource`)
    expect(root.status).toBe(404)
    await root.body?.cancel()
    const rootMcp = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(rootMcp.headers.get('www-authenticate')).toBeNull()
    await rootMcp.body?.cancel()
  })

  it("refuses a token for /a/mcp at /b/mcp with 401 naming b's metadata", async () => {
    const token = await clientToken('audience-app', `${origin}/a/mcp`)
    const { status } = await stack.post(token, statelessRequest(1, 'tools/list').body, statelessRequest(1, 'tools/list').headers, '/a/mcp')
    expect(status).toBe(200)
    const refused = await fetch(`${origin}/b/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...statelessRequest(2, 'tools/list').headers,
      },
      body: JSON.stringify(statelessRequest(2, 'tools/list').body),
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/b/mcp"`)
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token')
    await refused.body?.cancel()
  })

  it('gives a user who signs in once tokens for both servers, and calls through both work', async () => {
    const config = await oidc.dynamicClientRegistration(new URL(origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    const { verifier, challenge } = await pkcePair()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'mcp b:admin',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    url.searchParams.append('resource', `${origin}/a/mcp`)
    url.searchParams.append('resource', `${origin}/b/mcp`)
    const { callback, pages } = await formLogin(url, { ...USER, redirectUri: REDIRECT })
    expect(pages).toEqual(['login', 'consent'])
    const forA = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource: `${origin}/a/mcp` })
    // the second server's token: the same grant, no second login (RFC 8707 §2.2)
    const forB = await oidc.refreshTokenGrant(config, forA.refresh_token!, { resource: `${origin}/b/mcp` })
    expect(forA.scope).toBe('mcp')
    expect(forB.scope?.split(' ').sort()).toEqual(['b:admin', 'mcp'])

    const a = await connect('/a/mcp', forA.access_token)
    const b = await connect('/b/mcp', forB.access_token)
    const echoed = await a.callTool('echo', { message: 'to a' })
    expect((echoed.content[0] as { text: string }).text).toBe('echo: to a')
    const whoami = async (client: McpClient) => JSON.parse(((await client.callTool('whoami', {})).content[0] as { text: string }).text) as { pid: number; subject?: string }
    const [whoA, whoB] = [await whoami(a), await whoami(b)]
    // each server its own children: a's serves the user, b's (shared) everyone, told no principal
    expect(whoA.pid).not.toBe(whoB.pid)
    expect(whoA.subject).toBe((await stack.job.as!.accounts.findByUsername(USER.username))!.id)
    expect(whoB.subject).toBeUndefined()
    expect(stack.job.servers!.map((server) => [server.name, server.resource])).toEqual([
      ['a', `${origin}/a/mcp`],
      ['b', `${origin}/b/mcp`],
    ])
    await Promise.all([a.close(), b.close()])
  })

  it("enforces b's tool scope: 403 insufficient_scope without b:admin, the call with it", async () => {
    const narrow = await clientToken('narrow-app', `${origin}/b/mcp`, 'mcp')
    const call = statelessRequest(3, 'tools/call', { name: 'whoami', arguments: {} })
    const refused = await fetch(`${origin}/b/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...call.headers },
      body: JSON.stringify(call.body),
    })
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope')
    expect(refused.headers.get('www-authenticate')).toContain('b:admin')
    await refused.body?.cancel()
    const wide = await clientToken('narrow-app', `${origin}/b/mcp`, 'mcp b:admin')
    const { status, message } = await stack.post(wide, call.body, call.headers, '/b/mcp')
    expect(status).toBe(200)
    expect(message.result).toBeDefined()
  })

  it('names the prefixed messages path in the HTTP+SSE endpoint event', async () => {
    const token = await clientToken('sse-app', `${origin}/b/sse`)
    const controller = new AbortController()
    const response = await fetch(`${origin}/b/sse`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let text = ''
    const readUntil = async (part: string): Promise<void> => {
      while (!text.includes(part)) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`the stream ended before ${part}: ${text}`)
        text += new TextDecoder().decode(value)
      }
    }
    await readUntil('\n\n')
    const endpoint = /event: endpoint\ndata: (\/b\/messages\?sessionId=\S+)/.exec(text)?.[1]
    expect(endpoint).toBeDefined()
    // the client posts there, and b's session takes it (a session unknown there would be 404)
    const posted = await fetch(`${origin}${endpoint}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } } }),
    })
    expect(posted.status).toBe(202)
    await posted.body?.cancel()
    const elsewhere = await fetch(`${origin}${endpoint!.replace('/b/', '/a/')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    expect(elsewhere.status).not.toBe(202)
    await elsewhere.body?.cancel()
    controller.abort()
  })
})

describe('server names behind one gateway', () => {
  const child = { command: process.execPath, args: [TEST_SERVER, 'ok'] }
  const job = (servers: GatewayServer[], extra = {}) => createGatewayJob({ origin: 'http://127.0.0.1:1', dataDir: '/nonexistent', servers, ...extra })

  it("refuses a name that is one of the origin's own paths, no path segment, or given twice", async () => {
    await expect(job([{ name: 'authorize', child }])).rejects.toThrow(/"authorize" is a path the gateway serves itself/)
    await expect(job([{ name: 'mcp', child }])).rejects.toThrow(/"mcp" is a path the gateway serves itself/)
    await expect(job([{ name: 'Files', child }])).rejects.toThrow(/"Files" is not a server name/)
    await expect(job([{ name: 'a/b', child }])).rejects.toThrow(/not a server name/)
    await expect(
      job([
        { name: 'x', child },
        { name: 'x', child },
      ]),
    ).rejects.toThrow(/"x" is given twice/)
    await expect(job([])).rejects.toThrow(/servers` is empty/)
  })

  it('takes exactly one of child, upstream and servers', async () => {
    await expect(job([{ name: 'a', child }], { child })).rejects.toThrow(/exactly one of `child`/)
  })
})
