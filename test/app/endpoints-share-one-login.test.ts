/**
 * Issue 28, item 2: every protected endpoint of `start` (/mcp, /sse with its /messages, /rest) is a
 * resource identifier of its own, with metadata a client accepts for the URL it was given (RFC
 * 9728 §3.3), and the endpoints are one server: a token for any of them is accepted on all, and a
 * login for one covers the others (a refresh with `resource` set to another, RFC 8707 §2.2).
 */
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { JWT_BEARER_GRANT } from '../../src/auth/server/provider/jwt-bearer-grant.js'
import type { AuthorizationServerOptions } from '../../src/auth/server/options.js'
import { formLogin } from '../helpers/form-login.js'
import { freePort } from '../helpers/free-port.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'hana', password: 'hana password 1' }
const insecure = { execute: [oidc.allowInsecureRequests] }

interface Started {
  job: MainJob
  origin: string
  stop(): Promise<void>
}

async function start(options: { redis?: string; config?: AuthorizationServerOptions } = {}): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-endpoints-'))
  const port = await freePort()
  const origin = `http://localhost:${port}`
  const job = await createMainJob({
    origin,
    dataDir,
    // another server the authorization server issues tokens for: not part of this one
    resources: [`http://localhost:${port}/elsewhere`],
    demo: false,
    config: { rateLimits: false, ...options.config },
    ...(options.redis !== undefined ? { redis: { url: options.redis, prefix: `endpoints-${port}:` } } : {}),
  })
  await job.as.accounts.setUser(USER.username, USER.password, { name: 'Hana' }, ['mcp'])
  const listener: Server = createServer(job.handler)
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve))
  return {
    job,
    origin,
    async stop() {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
      await job.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** A public client's PKCE login through the pages for `resource`; the tokens and what the login showed. */
async function login(origin: string, resource: string): Promise<{ config: oidc.Configuration; tokens: oidc.TokenEndpointResponse; pages: string[] }> {
  const config = await oidc.dynamicClientRegistration(new URL(origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
  const verifier = oidc.randomPKCECodeVerifier()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp',
    resource,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })
  const { callback, pages } = await formLogin(url, { ...USER, redirectUri: REDIRECT })
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource })
  return { config, tokens, pages }
}

function audience(token: string): unknown {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())['aud']
}

/** Status of an authenticated request to each endpoint (the /sse stream is opened, then dropped). */
async function statusAt(origin: string, path: '/mcp' | '/sse' | '/rest', token: string): Promise<number> {
  const controller = new AbortController()
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' }
  const body = JSON.stringify(
    path === '/rest'
      ? { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
      : { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  )
  const response = await fetch(`${origin}${path}`, { method: path === '/sse' ? 'GET' : 'POST', headers, signal: controller.signal, ...(path === '/sse' ? {} : { body }) })
  controller.abort()
  await response.body?.cancel().catch(() => undefined)
  return response.status
}

async function refresh(config: oidc.Configuration, refreshToken: string, resource: string): Promise<oidc.TokenEndpointResponse | { error: string }> {
  try {
    return await oidc.refreshTokenGrant(config, refreshToken, { resource })
  } catch (error) {
    return { error: String((error as { error?: string }).error) }
  }
}

const CI = 'https://ci.example.com'

describe('the endpoints of `start` (embedded storage)', () => {
  let s: Started
  let ciKey: CryptoKey
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256')
    ciKey = pair.privateKey
    s = await start({
      config: {
        clients: [{ client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' }],
        jwtBearer: {
          issuers: [
            { issuer: CI, jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kty: 'EC', kid: 'ci1', alg: 'ES256' }] }, subjects: { 'job:nightly': { client: 'deployer' } } },
          ],
        },
      },
    })
  })
  afterAll(() => s.stop())

  it('challenges each endpoint with its own metadata, whose resource is the endpoint URL', async () => {
    for (const [path, method, named] of [
      ['/mcp', 'POST', '/mcp'],
      ['/sse', 'GET', '/sse'],
      ['/messages', 'POST', '/sse'],
      ['/rest', 'POST', '/rest'],
    ] as const) {
      const response = await fetch(`${s.origin}${path}`, { method, headers: { accept: 'text/event-stream, application/json' } })
      expect(response.status, path).toBe(401)
      const metadataUrl = `${s.origin}/.well-known/oauth-protected-resource${named}`
      expect(response.headers.get('www-authenticate'), path).toContain(`resource_metadata="${metadataUrl}"`)
      const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>
      // the rest of the document is the main endpoint's
      expect(metadata, path).toEqual({
        resource: `${s.origin}${named}`,
        authorization_servers: [s.origin],
        scopes_supported: ['mcp', 'mcp:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'mcp-auth demo server',
        dpop_signing_alg_values_supported: expect.any(Array),
      })
    }
    const root = (await (await fetch(`${s.origin}/.well-known/oauth-protected-resource`)).json()) as { resource: string }
    expect(root.resource).toBe(`${s.origin}/mcp`)
    expect(s.job.mcp.resource).toBe(`${s.origin}/mcp`)
    expect(s.job.mcp.resources).toEqual([`${s.origin}/mcp`, `${s.origin}/sse`, `${s.origin}/rest`])
  })

  it('accepts a token for /mcp at /sse and /rest, and one for /sse at /mcp', async () => {
    const { tokens, config } = await login(s.origin, `${s.origin}/mcp`)
    expect(audience(tokens.access_token)).toBe(`${s.origin}/mcp`)
    for (const path of ['/mcp', '/sse', '/rest'] as const) expect(await statusAt(s.origin, path, tokens.access_token), path).toBe(200)
    const forSse = await refresh(config, tokens.refresh_token!, `${s.origin}/sse`)
    if ('error' in forSse) throw new Error(String(forSse.error))
    expect(await statusAt(s.origin, '/mcp', forSse.access_token)).toBe(200)
  })

  it('refuses a token for another resource of the same authorization server', async () => {
    const client = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
    const response = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${s.origin}/elsewhere` }),
    })
    const { access_token } = (await response.json()) as { access_token: string }
    expect(audience(access_token)).toBe(`${s.origin}/elsewhere`)
    for (const path of ['/mcp', '/sse', '/rest'] as const) expect(await statusAt(s.origin, path, access_token), path).toBe(401)
  })

  it('gives client_credentials a token for an alias, with the alias as audience', async () => {
    const client = await s.job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
    const response = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${s.origin}/rest` }),
    })
    expect(response.status).toBe(200)
    const { access_token, scope } = (await response.json()) as { access_token: string; scope: string }
    expect(audience(access_token)).toBe(`${s.origin}/rest`)
    expect(scope).toBe('mcp')
    expect(await statusAt(s.origin, '/rest', access_token)).toBe(200)
  })

  it('gives the JWT bearer grant a token for an alias, with the alias as audience', async () => {
    const now = Math.floor(Date.now() / 1000)
    const assertion = await new SignJWT({ sub: 'job:nightly', aud: s.origin, jti: randomUUID(), iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'ES256', kid: 'ci1' })
      .setIssuer(CI)
      .sign(ciKey)
    const response = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion, client_id: 'deployer', resource: `${s.origin}/sse` }),
    })
    const body = (await response.json()) as { access_token: string }
    expect(response.status, JSON.stringify(body)).toBe(200)
    expect(audience(body.access_token)).toBe(`${s.origin}/sse`)
    expect(await statusAt(s.origin, '/sse', body.access_token)).toBe(200)
  })

  it('refreshes a login for /sse into tokens for /mcp and /rest without a new consent, and refuses a resource outside the grant', async () => {
    const { config, tokens, pages } = await login(s.origin, `${s.origin}/sse`)
    // one server on the consent page, and the token for the endpoint the client named
    expect(pages).toEqual(['login', 'consent'])
    expect(audience(tokens.access_token)).toBe(`${s.origin}/sse`)
    let refreshToken = tokens.refresh_token!
    for (const path of ['/mcp', '/rest', '/sse'] as const) {
      const refreshed = await refresh(config, refreshToken, `${s.origin}${path}`)
      if ('error' in refreshed) throw new Error(`${path}: ${String(refreshed.error)}`)
      expect(audience(refreshed.access_token), path).toBe(`${s.origin}${path}`)
      expect(refreshed.scope, path).toBe('mcp')
      refreshToken = refreshed.refresh_token!
    }
    expect(await refresh(config, refreshToken, `${s.origin}/elsewhere`)).toEqual({ error: 'invalid_target' })
    // a refresh that names no resource gets the endpoint the login was for
    const plain = await oidc.refreshTokenGrant(config, refreshToken)
    expect(audience(plain.access_token)).toBe(`${s.origin}/sse`)
  })
})

describe('the endpoints of `start` on Redis', () => {
  let redis: RedisServer
  let s: Started
  beforeAll(async () => {
    redis = await startRedisServer()
    s = await start({ redis: redis.url })
  })
  afterAll(async () => {
    await s?.stop()
    await redis?.close()
  })

  it('refreshes a login for /mcp into a token for /sse that /sse accepts', async () => {
    const { config, tokens } = await login(s.origin, `${s.origin}/mcp`)
    const refreshed = await refresh(config, tokens.refresh_token!, `${s.origin}/sse`)
    if ('error' in refreshed) throw new Error(String(refreshed.error))
    expect(audience(refreshed.access_token)).toBe(`${s.origin}/sse`)
    expect(await statusAt(s.origin, '/sse', refreshed.access_token)).toBe(200)
    expect(await refresh(config, refreshed.refresh_token!, `${s.origin}/elsewhere`)).toEqual({ error: 'invalid_target' })
  })
})
