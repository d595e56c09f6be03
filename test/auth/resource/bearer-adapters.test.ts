// Issue 13 (code shape): the Koa `requireBearer` and the node:http `protectMcpHandler` are thin
// layers over one check (authorizeMcpRequest); the same table runs through each.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BearerAuth } from '../../../src/auth/resource/bearer-auth.js'
import { createJwtVerifier } from '../../../src/auth/resource/jwt-verifier.js'
import { requireBearer } from '../../../src/auth/resource/koa-bearer.js'
import { protectMcpHandler } from '../../../src/auth/resource/protect-mcp-handler.js'
import type { AuthInfo } from '../../../src/auth-info/auth-info.js'

const ISSUER = 'https://as.example.test'
const MAX_BODY = 64 * 1024
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']
let jwk: Record<string, unknown>

/** Each adapter in front of an endpoint that echoes what it was handed. */
const adapters: Record<string, (auth: BearerAuth) => (req: IncomingMessage, res: ServerResponse) => void> = {
  'node:http protectMcpHandler': (auth) => {
    const route = protectMcpHandler(
      auth,
      async (req, res, body) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ subject: req.auth?.subject, scopes: req.auth?.scopes, body: body ?? null }))
      },
      { maxBodyBytes: MAX_BODY },
    )
    return (req, res) => void route(req, res)
  },
  'Koa requireBearer': (auth) => {
    const app = new Koa()
    app.use(requireBearer(auth, { maxBodyBytes: MAX_BODY }))
    app.use((ctx) => {
      const info = ctx.state['auth'] as AuthInfo
      ctx.body = { subject: info.subject, scopes: info.scopes, body: (ctx.request as { body?: unknown }).body ?? null }
    })
    return app.callback()
  },
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  signingKey = pair.privateKey
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }
})

for (const [name, adapter] of Object.entries(adapters)) {
  describe(name, () => {
    let server: Server
    let origin: string
    const token = (scope: string) =>
      new SignJWT({ scope, client_id: 'c1' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
        .setIssuer(ISSUER)
        .setAudience(`${origin}/mcp`)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(signingKey)
    const post = (headers: Record<string, string>, body: unknown, path = '/mcp') =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
    const adminCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'admin_stats', arguments: {} } }

    beforeAll(async () => {
      let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
      server = createServer((req, res) => handler!(req, res))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const auth = new BearerAuth({
        verifier: createJwtVerifier({ issuer: ISSUER, audience: `${origin}/mcp`, jwks: { keys: [jwk] } }),
        resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
        requiredScopes: ['mcp'],
        toolScopes: { admin_stats: ['mcp:admin'] },
      })
      handler = adapter(auth)
    })
    afterAll(async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    })

    it('answers 401 with a challenge naming the metadata and the scope when no token is sent', async () => {
      const response = await post({ origin: 'https://app.example' }, adminCall)
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`)
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example')
    })

    it('answers a CORS preflight with 204 and the allowed methods and headers', async () => {
      const response = await fetch(`${origin}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } })
      expect(response.status).toBe(204)
      expect(response.headers.get('access-control-allow-methods')).toContain('POST')
      expect(response.headers.get('access-control-allow-headers')).toContain('authorization')
    })

    it('refuses a token in the query string', async () => {
      const response = await post({}, adminCall, `/mcp?access_token=${await token('mcp')}`)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: string }).error).toBe('invalid_request')
    })

    it('answers 403 insufficient_scope naming what a tool needs, and lets the wider token through with the parsed body', async () => {
      const narrow = await post({ authorization: `Bearer ${await token('mcp')}` }, adminCall)
      expect(narrow.status).toBe(403)
      expect(narrow.headers.get('www-authenticate')).toContain('scope="mcp mcp:admin"')
      const wide = await post({ authorization: `Bearer ${await token('mcp mcp:admin')}` }, adminCall)
      expect(wide.status).toBe(200)
      expect(await wide.json()).toEqual({ subject: 'alice', scopes: ['mcp', 'mcp:admin'], body: adminCall })
    })

    it('lets a call of a tool named after a member of every object (constructor, __proto__, toString) through to the server, no 500', async () => {
      for (const name of ['constructor', '__proto__', 'toString']) {
        const call = { ...adminCall, params: { name, arguments: {} } }
        const response = await post({ authorization: `Bearer ${await token('mcp')}` }, call)
        expect(response.status, name).toBe(200)
      }
    })

    it('answers 413 for a body over the limit before any tool scope is checked', async () => {
      const response = await post({ authorization: `Bearer ${await token('mcp')}` }, JSON.stringify({ ...adminCall, padding: 'x'.repeat(MAX_BODY) }))
      expect(response.status).toBe(413)
    })

    it('answers 400 with a JSON-RPC parse error for a body that is not JSON', async () => {
      const response = await post({ authorization: `Bearer ${await token('mcp')}` }, '{ not json')
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700)
    })
  })
}
