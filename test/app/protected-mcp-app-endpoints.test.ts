/**
 * Issue 28, item 2: `createProtectedMcpApp` mounted at a path of its own publishes, for each
 * protected endpoint, metadata whose `resource` is that endpoint's URL (RFC 9728 §3.3), names it
 * in that endpoint's challenges, and accepts a token for any of its endpoints on all of them.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Koa from 'koa'
import { createProtectedMcpApp, type ProtectedMcpApp } from '../../src/app/protected-mcp-app.js'
import { serveProtectedResourceMetadata } from '../../src/auth/resource/index.js'
import { createDemoServer } from '../../src/demo/demo-server.js'

const ISSUER = 'https://auth.example.com'
let server: Server
let origin: string
let app: ProtectedMcpApp
let key: CryptoKey

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }
  let handler: ProtectedMcpApp['handler'] | undefined
  // the issuer's keys from the same test server (the app fetches them as from an authorization server)
  server = createServer((req, res) => (req.url === '/jwks' ? res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })) : handler?.(req, res)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  app = createProtectedMcpApp(createDemoServer(), {
    host: '127.0.0.1',
    origin,
    path: '/custom',
    issuer: ISSUER,
    jwksUri: `${origin}/jwks`,
    resourceName: 'custom',
    scopesSupported: ['mcp'],
  })
  handler = app.handler
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await app.close()
})

function token(aud: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: 'c', scope: 'mcp' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(aud)
    .setSubject('someone')
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key)
}

async function post(path: string, authorization?: string): Promise<Response> {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  })
}

describe('createProtectedMcpApp at a custom path', () => {
  it('returns the main resource and every endpoint identifier', () => {
    expect(app.resource).toBe(`${origin}/custom`)
    expect(app.resources).toEqual([`${origin}/custom`, `${origin}/sse`, `${origin}/rest`])
  })

  it("serves each endpoint's metadata with its own resource, the main one at the root too, and names it in that endpoint's challenge", async () => {
    for (const [path, named] of [
      ['/custom', '/custom'],
      ['/rest', '/rest'],
      ['/messages', '/sse'],
    ] as const) {
      const refused = await post(path)
      expect(refused.status, path).toBe(401)
      expect(refused.headers.get('www-authenticate'), path).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource${named}"`)
    }
    for (const named of ['/custom', '/sse', '/rest']) {
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource${named}`)).json()) as Record<string, unknown>
      expect(metadata).toMatchObject({ resource: `${origin}${named}`, authorization_servers: [ISSUER], resource_name: 'custom', scopes_supported: ['mcp'] })
    }
    expect(((await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json()) as { resource: string }).resource).toBe(`${origin}/custom`)
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404)
  })

  it('accepts a token for any of its endpoints on every endpoint, and refuses one for another resource', async () => {
    for (const aud of [`${origin}/custom`, `${origin}/rest`, `${origin}/sse`]) {
      const bearer = `Bearer ${await token(aud)}`
      expect((await post('/rest', bearer)).status, aud).toBe(200)
    }
    const other = await post('/rest', `Bearer ${await token(`${origin}/other`)}`)
    expect(other.status).toBe(401)
    expect(other.headers.get('www-authenticate')).toContain('the access token is for another resource')
  })
})

describe('serveProtectedResourceMetadata (Koa) given several endpoints', () => {
  it('serves each with its own resource at its own path, and the first at the root', async () => {
    const koa = new Koa()
    koa.use(serveProtectedResourceMetadata(['/api/mcp', '/api/sse'].map((path) => ({ resource: `https://mcp.example.com${path}`, authorizationServers: [ISSUER] }))))
    const listener = createServer(koa.callback())
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/.well-known/oauth-protected-resource`
    try {
      const resourceAt = async (path: string) => ((await (await fetch(`${base}${path}`)).json()) as { resource: string }).resource
      expect(await resourceAt('/api/mcp')).toBe('https://mcp.example.com/api/mcp')
      expect(await resourceAt('/api/sse')).toBe('https://mcp.example.com/api/sse')
      expect(await resourceAt('')).toBe('https://mcp.example.com/api/mcp')
      expect((await fetch(`${base}/api/rest`)).status).toBe(404)
    } finally {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
    }
  })
})
