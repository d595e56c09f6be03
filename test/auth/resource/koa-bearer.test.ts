import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { BearerAuth } from '../../../src/auth/resource/bearer-auth.js'
import { createJwtVerifier } from '../../../src/auth/resource/jwt-verifier.js'
import { requireBearer } from '../../../src/auth/resource/koa-bearer.js'

const ISSUER = 'https://as.example.test'
let server: Server
let origin: string
let token: string
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']
let publicJwk: Record<string, unknown>

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  signingKey = privateKey
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }
  publicJwk = jwk
  const app = new Koa()
  let handler: ReturnType<Koa['callback']> | undefined
  server = createServer((req, res) => handler!(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const auth = new BearerAuth({
    verifier: createJwtVerifier({ issuer: ISSUER, audience: `${origin}/api`, jwks: { keys: [jwk] } }),
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/api`,
    requiredScopes: ['read'],
  })
  app.use(requireBearer(auth))
  app.use((ctx) => {
    ctx.body = { subject: (ctx.state['auth'] as { subject?: string }).subject }
  })
  handler = app.callback()
  token = await new SignJWT({ scope: 'read', client_id: 'c1' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(`${origin}/api`)
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey)
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('requireBearer (Koa)', () => {
  it('puts the verified identity in ctx.state.auth for the next middleware', async () => {
    const response = await fetch(`${origin}/api`, { headers: { authorization: `Bearer ${token}` } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ subject: 'user-1' })
  })

  it('answers a missing token with 401 and the challenge, without calling the next middleware', async () => {
    const response = await fetch(`${origin}/api`)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api", scope="read"`)
    expect(await response.json()).toEqual({ error_description: 'this resource needs an access token in the Authorization header' })
  })

  it('accepts a token whose audience is the resource URI with a trailing slash', async () => {
    const slashed = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(`${origin}/api/`)
      .setSubject('user-2')
      .setExpirationTime('5m')
      .sign(signingKey)
    const response = await fetch(`${origin}/api`, { headers: { authorization: `Bearer ${slashed}` } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ subject: 'user-2' })
  })

  it('stops honouring a remembered token at its exp', async () => {
    const verifier = createJwtVerifier({ issuer: ISSUER, audience: `${origin}/api`, jwks: { keys: [publicJwk] }, clockToleranceSeconds: 0 })
    const exp = Math.floor(Date.now() / 1000) + 2
    const shortLived = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(`${origin}/api`)
      .setExpirationTime(exp)
      .sign(signingKey)
    expect((await verifier.verify(shortLived)).scopes).toEqual(['read'])
    expect((await verifier.verify(shortLived)).scopes).toEqual(['read'])
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100))
    await expect(verifier.verify(shortLived)).rejects.toThrow(/expired/)
  })
})
