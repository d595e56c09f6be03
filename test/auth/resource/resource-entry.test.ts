// Issue 28, item 15: a user protecting a server finds everything in `mcp-auth/resource`:
// `protectMcpHandler` (body limit optional, the Streamable HTTP default applies) and a Koa
// middleware for the protected resource metadata document (no `ctx.respond = false` glue).
// `mcp-auth/http` still exports `protectMcpHandler` for existing imports.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaults } from '../../../src/config/defaults.js'
import { McpServer, StreamableHttpHandler, streamableHttpKoa } from '../../../src/index.js'
import * as http from '../../../src/http.js'
import { BearerAuth, createJwtVerifier, protectMcpHandler, requireBearer, serveProtectedResourceMetadata } from '../../../src/auth/resource/index.js'

const ISSUER = 'https://as.example.test'
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']
let jwk: Record<string, unknown>
const servers: Server[] = []

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const token = (audience: string) =>
  new SignJWT({ scope: 'mcp', client_id: 'c1' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signingKey)

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  signingKey = pair.privateKey
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }
})
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

describe('protectMcpHandler from mcp-auth/resource', () => {
  let origin: string
  beforeAll(async () => {
    let route: ReturnType<typeof protectMcpHandler> | undefined
    origin = await listen((req, res) => void route!(req, res))
    const auth = new BearerAuth({
      verifier: createJwtVerifier({ issuer: ISSUER, audience: `${origin}/mcp`, jwks: { keys: [jwk] } }),
      resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
      toolScopes: { admin_stats: ['mcp:admin'] },
    })
    // no options: the body limit is the Streamable HTTP default
    route = protectMcpHandler(auth, async (req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ subject: req.auth?.subject, body: body ?? null }))
    })
  })

  it('is the function mcp-auth/http exports, so old imports keep working', () => {
    expect(http.protectMcpHandler).toBe(protectMcpHandler)
  })

  it('works without a body limit, reading a tools/call body up to the default and refusing one over it with 413', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }
    const headers = { authorization: `Bearer ${await token(`${origin}/mcp`)}`, 'content-type': 'application/json' }
    const small = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(call) })
    expect(small.status).toBe(200)
    expect(await small.json()).toEqual({ subject: 'alice', body: call })
    const padding = 'x'.repeat(defaults.streamableHttp.maxBodyBytes)
    const large = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: JSON.stringify({ ...call, padding }) })
    expect(large.status).toBe(413)
  })
})

describe('serveProtectedResourceMetadata (Koa)', () => {
  let origin: string
  beforeAll(async () => {
    let callback: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
    origin = await listen((req, res) => callback!(req, res))
    const resource = `${origin}/mcp`
    const app = new Koa()
    app.use(serveProtectedResourceMetadata({ resource, authorizationServers: [ISSUER], scopesSupported: ['mcp'] }))
    app.use(
      requireBearer(
        new BearerAuth({
          verifier: createJwtVerifier({ issuer: ISSUER, audience: resource, jwks: { keys: [jwk] } }),
          resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
        }),
      ),
    )
    const server = new McpServer({ name: 'koa-protected', version: '1.0.0' })
    app.use(streamableHttpKoa(new StreamableHttpHandler(server, { allowedHosts: ['127.0.0.1'] }), { path: '/mcp' }))
    callback = app.callback()
  })

  it('serves the document at the path-aware and the root well-known URL, readable from any origin', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${origin}${path}`, { headers: { origin: 'https://app.example' } })
      expect(response.status, path).toBe(200)
      expect(response.headers.get('content-type')).toContain('application/json')
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(await response.json()).toMatchObject({ resource: `${origin}/mcp`, authorization_servers: [ISSUER], scopes_supported: ['mcp'] })
    }
  })

  it('answers a preflight with 204 and any other method with 405', async () => {
    const preflight = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version')
    const post = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })

  it('passes every other path on: the bearer check, then the MCP endpoint', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const refused = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(initialize) })
    expect(refused.status).toBe(401)
    const accepted = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${await token(`${origin}/mcp`)}` },
      body: JSON.stringify(initialize),
    })
    expect(accepted.status).toBe(200)
    expect(accepted.headers.get('mcp-session-id')).toBeTruthy()
    expect(await accepted.text()).toContain('"serverInfo":{"name":"koa-protected"')
  })
})
