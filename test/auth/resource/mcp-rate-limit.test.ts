// Issue 33: fair limits per principal on MCP calls (a token bucket per subject + client, per
// resource; failed authentications per address group; tools with a cost; 429 with Retry-After).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { BearerAuth } from '../../../src/auth/resource/bearer-auth.js'
import { createJwtVerifier } from '../../../src/auth/resource/jwt-verifier.js'
import { requireBearer } from '../../../src/auth/resource/koa-bearer.js'
import { McpRateLimit } from '../../../src/auth/resource/mcp-rate-limit.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

let stack: ProtectedStack
let signingKey: Awaited<ReturnType<typeof importJWK>>
let signingKid: string

beforeAll(async () => {
  stack = await startProtectedStack({
    mcp: { rateLimit: { requestsPerMinute: 6, burst: 5, toolCosts: { admin_stats: 3 }, unauthenticatedRequestsPerMinute: 6, unauthenticatedBurst: 3 } },
  })
  const jwks = JSON.parse(await readFile(join(stack.dataDir, 'jwks.json'), 'utf8')) as { current: Array<JWK & { kid: string; alg: string }> }
  const es256 = jwks.current.find((key) => key.alg === 'ES256')!
  signingKey = await importJWK(es256, 'ES256')
  signingKid = es256.kid
})
afterAll(() => stack.stop())

/** A token of the authorization server's own key for `subject` and `clientId`. */
function token(subject: string, clientId = 'client-a', scope = 'mcp mcp:admin'): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: clientId, scope })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKid })
    .setIssuer(stack.as.issuer)
    .setAudience(stack.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .setSubject(subject)
    .sign(signingKey)
}

const call = (id: number, name = 'whoami') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } })

function post(authorization: string | undefined, message: unknown = call(1)) {
  return fetch(`${stack.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization !== undefined ? { authorization } : {}),
    },
    body: JSON.stringify(message),
  })
}

describe('rate limit per principal on a protected MCP endpoint', () => {
  it('answers a burst, then 429 with Retry-After and a JSON-RPC error the client can read', async () => {
    const bearer = `Bearer ${await token('burst-user')}`
    for (let i = 0; i < 5; i++) expect((await post(bearer, call(i))).status).not.toBe(429)
    const refused = await post(bearer, call(42))
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true)
    expect(refused.headers.get('content-type')).toContain('application/json')
    const body = (await refused.json()) as { jsonrpc: string; id: number; error: { code: number; message: string; data: { retryAfterSeconds: number } } }
    expect(body.jsonrpc).toBe('2.0')
    expect(body.id).toBe(42)
    expect(body.error.code).toBe(-32029)
    expect(body.error.message).toContain(`retry in ${retryAfter} s`)
    expect(body.error.data.retryAfterSeconds).toBe(retryAfter)
  })

  it('keeps each principal its own bucket: another user, or the same user through another client, is not affected', async () => {
    const spent = `Bearer ${await token('spender', 'client-a')}`
    for (let i = 0; i < 6; i++) await post(spent, call(i))
    expect((await post(spent)).status).toBe(429)
    expect((await post(`Bearer ${await token('bystander', 'client-a')}`)).status).not.toBe(429)
    expect((await post(`Bearer ${await token('spender', 'client-b')}`)).status).not.toBe(429)
  })

  it('takes a tool its configured cost', async () => {
    const bearer = `Bearer ${await token('costly')}`
    // 5 tokens: admin_stats takes 3, a second one would need 3 of the 2 left; a call of cost 1 still passes
    expect((await post(bearer, call(1, 'admin_stats'))).status).not.toBe(429)
    expect((await post(bearer, call(2, 'admin_stats'))).status).toBe(429)
    expect((await post(bearer, call(3, 'whoami'))).status).not.toBe(429)
    expect((await post(bearer, call(4, 'whoami'))).status).not.toBe(429)
    expect((await post(bearer, call(5, 'whoami'))).status).toBe(429)
  })

  it('counts a body that is not JSON too, when tool costs make the check read it', async () => {
    const bearer = `Bearer ${await token('malformed')}`
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${stack.origin}/mcp`, {
        method: 'POST',
        headers: { authorization: bearer, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc": "2.0", "id": ',
      })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429])
  })

  it('counts requests that fail authentication per address group, and never a valid token there', async () => {
    const bad = `Bearer ${'x'.repeat(40)}`
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await post(i === 0 ? undefined : bad)).status)
    expect(statuses).toEqual([401, 401, 401])
    const flooded = await post(bad, call(9))
    expect(flooded.status).toBe(429)
    expect(Number(flooded.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await flooded.json()) as { id: number }).id).toBe(9)
    expect((await post(undefined)).status).toBe(429)
    // the same address with a valid token is its principal, not its address
    expect((await post(`Bearer ${await token('same-address')}`)).status).not.toBe(429)
  })

  it('answers a request that is not JSON-RPC (the GET stream) with an OAuth-style 429', async () => {
    const bearer = `Bearer ${await token('streamer')}`
    for (let i = 0; i < 5; i++) await post(bearer, call(i))
    const refused = await fetch(`${stack.origin}/mcp`, { headers: { authorization: bearer, accept: 'text/event-stream' } })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await refused.json()).toMatchObject({ error: 'slow_down' })
  })
})

describe('rate limit through the Koa adapter (requireBearer)', () => {
  let server: Server
  let origin: string
  let bearer: string

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const auth = new BearerAuth({
      verifier: createJwtVerifier({ issuer: 'https://as.example.test', audience: `${origin}/mcp`, jwks: { keys: [jwk] } }),
      resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    })
    const app = new Koa()
    app.use(requireBearer(auth, { limit: new McpRateLimit({ requestsPerMinute: 1, burst: 2 }) }))
    app.use((ctx) => {
      ctx.body = { ok: true }
    })
    server.on('request', app.callback())
    bearer = `Bearer ${await new SignJWT({ scope: 'mcp', client_id: 'koa-client' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer('https://as.example.test')
      .setAudience(`${origin}/mcp`)
      .setSubject('koa-user')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey)}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('answers past the burst with the same 429 as the node:http adapter', async () => {
    const send = () => fetch(`${origin}/mcp`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: JSON.stringify(call(5)) })
    expect([(await send()).status, (await send()).status]).toEqual([200, 200])
    const refused = await send()
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('content-type')).toContain('application/json')
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32029, data: { retryAfterSeconds: expect.any(Number) } } })
  })
})
