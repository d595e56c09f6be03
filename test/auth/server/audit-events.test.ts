/**
 * Issue 33 (events): the authorization server's flows record each security event once, with who,
 * which client, resource and scopes, the address group and the request id; never a secret.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAuthorizationServer, type AuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import type { StoredAuditEvent } from '../../../src/observe/audit-event.js'
import { Observer } from '../../../src/observe/observer.js'
import { formLogin } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'
import { startUpstreamPair } from '../../helpers/upstream-pair.js'
import { startAuthServer } from '../../helpers/auth-server.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import { startProtectedStack } from '../../helpers/protected-stack.js'

const REDIRECT = 'http://127.0.0.1/callback'
const PASSWORD = 'audit-secret-password-7f3a'
const insecure = { execute: [oidc.allowInsecureRequests] }

let as: AuthorizationServer
let server: Server
let issuer: string
let dataDir: string
const events: StoredAuditEvent[] = []

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-audit-'))
  const observer = new Observer()
  observer.addAuditObserver((event) => events.push(event))
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  server = createServer((req, res) => handler!(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  as = await createAuthorizationServer({
    issuer: origin,
    dataDir,
    observer,
    resources: [{ uri: `${origin}/mcp`, scopes: ['mcp', 'mcp:admin'] }],
    rateLimits: { loginPerAccount: 3, loginPerAddress: 10_000, registrationPerAddress: 10_000 },
    refreshTokens: { reuseGraceSeconds: 0 },
  })
  issuer = as.issuer
  handler = observer.observeRequests(as.app.callback())
  for (const name of ['ann', 'bob', 'cat', 'dan']) await as.accounts.setUser(name, PASSWORD)
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await as.close()
  await rm(dataDir, { recursive: true, force: true })
})
beforeEach(() => {
  events.length = 0
})

const ofType = (type: string): StoredAuditEvent[] => events.filter((event) => event.type === type)

/** A public client and an authorization request for it, through the real pages as `username`. */
async function authorize(username: string, password = PASSWORD, consent: 'allow' | 'deny' = 'allow') {
  const config = await oidc.dynamicClientRegistration(new URL(issuer), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
  const { verifier, challenge } = await pkcePair()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    prompt: 'consent',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  events.length = 0
  const result = await formLogin(url, { username, password, redirectUri: REDIRECT, consent }).catch((error: unknown) => error as Error)
  return { config, verifier, result, clientId: config.clientMetadata().client_id }
}

describe('sign-in and consent events', () => {
  it('records a sign-in that succeeded and the consent given, once each, naming the account and the client', async () => {
    const { clientId, result } = await authorize('ann')
    expect(result).not.toBeInstanceOf(Error)
    const [signIn, ...moreSignIns] = ofType('sign-in.succeeded')
    expect(moreSignIns).toHaveLength(0)
    expect(signIn).toMatchObject({ result: 'success', username: 'ann', clientId, addressGroup: '127.0.0.1', details: { factor: 'password' } })
    expect(signIn!.subject).toBe((await as.accounts.findByUsername('ann'))!.id)
    expect(signIn!.requestId).toMatch(/\S/)
    const consents = ofType('consent.given')
    expect(consents).toHaveLength(1)
    expect(consents[0]).toMatchObject({ subject: signIn!.subject, clientId, resource: `${issuer}/mcp` })
    expect(consents[0]!.scopes).toContain('mcp')
  })

  it('records a failed sign-in with the name typed and invalid_credentials, never the password', async () => {
    const { result, clientId } = await authorize('bob', 'wrong-password-c0ffee')
    expect(result).toBeInstanceOf(Error)
    expect(ofType('sign-in.failed')).toEqual([
      expect.objectContaining({ result: 'failure', reason: 'invalid_credentials', username: 'bob', clientId, details: { factor: 'password' } }),
    ])
    expect(ofType('sign-in.succeeded')).toHaveLength(0)
    // an unknown name reads the same
    await authorize('nobody-here', 'wrong-password-c0ffee')
    expect(ofType('sign-in.failed')).toEqual([expect.objectContaining({ reason: 'invalid_credentials', username: 'nobody-here' })])
    expect(JSON.stringify(events)).not.toContain('c0ffee')
  })

  it('records sign-ins refused by the per-account limit as rate-limited', async () => {
    for (let i = 0; i < 3; i++) await authorize('dan', 'wrong-password-c0ffee')
    await authorize('dan')
    expect(ofType('sign-in.rate-limited')).toEqual([expect.objectContaining({ result: 'refused', reason: 'too_many_attempts_per_account', username: 'dan' })])
    expect(ofType('sign-in.succeeded')).toHaveLength(0)
  })

  it('records a consent the person denied', async () => {
    const { result, clientId } = await authorize('cat', PASSWORD, 'deny')
    expect(result).not.toBeInstanceOf(Error)
    expect(ofType('consent.denied')).toEqual([expect.objectContaining({ result: 'refused', reason: 'user_denied', clientId })])
    expect(ofType('consent.given')).toHaveLength(0)
  })
})

describe('token events', () => {
  it('records tokens issued for a code and a refresh, a refresh token reused, and the grant it revoked', async () => {
    const { config, verifier, result, clientId } = await authorize('ann')
    if (result instanceof Error) throw result
    events.length = 0
    const tokens = await oidc.authorizationCodeGrant(config, result.callback, { pkceCodeVerifier: verifier })
    const subject = (await as.accounts.findByUsername('ann'))!.id
    expect(ofType('token.issued')).toEqual([
      expect.objectContaining({ result: 'success', clientId, subject, resource: `${issuer}/mcp`, details: { grant_type: 'authorization_code', refresh_token: true } }),
    ])
    await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect(ofType('token.issued').map((event) => event.details?.['grant_type'])).toEqual(['authorization_code', 'refresh_token'])
    events.length = 0
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
    expect(ofType('refresh-token.reuse-detected')).toEqual([expect.objectContaining({ result: 'refused', clientId, subject })])
    expect(ofType('grant.revoked')).toEqual([expect.objectContaining({ reason: 'refresh-token-reuse', clientId, subject })])
    expect(ofType('token.refused')).toEqual([expect.objectContaining({ reason: 'invalid_grant', details: { grant_type: 'refresh_token' } })])
    const serialized = JSON.stringify(events)
    for (const secret of [tokens.access_token, tokens.refresh_token!]) expect(serialized).not.toContain(secret.slice(0, 12))
  })

  it('records a client_credentials token with its request id, and a refused one with the OAuth error code', async () => {
    const client = await as.addClient({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'mcp',
    })
    events.length = 0
    const ask = (secret: string) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret, resource: `${issuer}/mcp` }),
      })
    const ok = await ask(client.client_secret!)
    expect(ok.status).toBe(200)
    await ok.body?.cancel()
    expect(ofType('token.issued')).toEqual([
      expect.objectContaining({
        clientId: client.client_id,
        resource: `${issuer}/mcp`,
        scopes: ['mcp'],
        requestId: ok.headers.get('x-request-id'),
        details: { grant_type: 'client_credentials', refresh_token: false },
      }),
    ])
    const refused = await ask('not-the-secret')
    expect(refused.status).toBe(401)
    await refused.body?.cancel()
    expect(ofType('token.refused')).toEqual([expect.objectContaining({ result: 'refused', reason: 'invalid_client', requestId: refused.headers.get('x-request-id') })])
    expect(JSON.stringify(events)).not.toContain(client.client_secret!.slice(0, 12))
  })

  it('records a grant revoked at the revocation endpoint as the client, and one an administrator ended as the administrator', async () => {
    const { config, verifier, result, clientId } = await authorize('bob')
    if (result instanceof Error) throw result
    const tokens = await oidc.authorizationCodeGrant(config, result.callback, { pkceCodeVerifier: verifier })
    events.length = 0
    await oidc.tokenRevocation(config, tokens.refresh_token!)
    expect(ofType('grant.revoked')).toEqual([expect.objectContaining({ reason: 'revoked-by-client', clientId, actor: { clientId, channel: 'http' } })])

    const second = await authorize('bob')
    if (second.result instanceof Error) throw second.result
    await oidc.authorizationCodeGrant(second.config, second.result.callback, { pkceCodeVerifier: second.verifier })
    const [grant] = await as.grants.list({ clientId: second.clientId })
    events.length = 0
    expect(await as.grants.revoke(grant!.grantId)).toBe(true)
    expect(ofType('grant.revoked')).toEqual([expect.objectContaining({ reason: 'administrator', clientId: second.clientId })])
  })
})

describe('registration events', () => {
  it('records a dynamic registration and the client deleting itself, once each, never the registration access token', async () => {
    const registered = await fetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'mcp' }),
    })
    expect(registered.status).toBe(201)
    const body = (await registered.json()) as { client_id: string; registration_access_token: string; registration_client_uri: string }
    expect(ofType('client.registered')).toEqual([
      expect.objectContaining({
        clientId: body.client_id,
        scopes: ['mcp'],
        addressGroup: '127.0.0.1',
        requestId: registered.headers.get('x-request-id'),
        details: expect.objectContaining({ origin: 'dynamic' }),
      }),
    ])
    const deleted = await fetch(body.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${body.registration_access_token}` } })
    expect(deleted.status).toBe(204)
    expect(ofType('client.removed')).toEqual([expect.objectContaining({ clientId: body.client_id, actor: { clientId: body.client_id, channel: 'http' } })])
    expect(JSON.stringify(events)).not.toContain(body.registration_access_token.slice(0, 12))
  })
})

describe('replay events', () => {
  it('records a DPoP proof used twice at the token endpoint once, beside the token refused', async () => {
    const client = await as.addClient({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'mcp',
    })
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = await exportJWK(publicKey)
    const proof = (nonce?: string) =>
      new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${issuer}/token`, iat: Math.floor(Date.now() / 1000), ...(nonce !== undefined ? { nonce } : {}) })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey)
    const ask = async (dpop: string) => {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret!, resource: `${issuer}/mcp` }),
      })
      await response.body?.cancel()
      return response
    }
    const nonce = (await ask(await proof())).headers.get('dpop-nonce')!
    const once = await proof(nonce)
    expect((await ask(once)).status).toBe(200)
    events.length = 0
    const replay = await ask(once)
    expect(replay.status).toBe(400)
    expect(ofType('dpop.replay-refused')).toEqual([
      expect.objectContaining({
        result: 'refused',
        reason: 'invalid_grant',
        clientId: client.client_id,
        requestId: replay.headers.get('x-request-id'),
        details: { endpoint: 'grant', grant_type: 'client_credentials' },
      }),
    ])
    expect(ofType('token.refused')).toHaveLength(1)
    expect(ofType('assertion.replay-refused')).toHaveLength(0)
    expect(JSON.stringify(events)).not.toContain(once.slice(0, 24))
  })

  it('records a client assertion (private_key_jwt) used twice once', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    const client = await as.addClient({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [jwk] },
      scope: 'mcp',
    })
    const now = Math.floor(Date.now() / 1000)
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(client.client_id)
      .setSubject(client.client_id)
      .setAudience(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey)
    const ask = async () => {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
          resource: `${issuer}/mcp`,
        }),
      })
      await response.body?.cancel()
      return response.status
    }
    expect(await ask()).toBe(200)
    events.length = 0
    expect(await ask()).toBe(401)
    expect(ofType('assertion.replay-refused')).toEqual([
      expect.objectContaining({ result: 'refused', reason: 'invalid_client', details: { endpoint: 'grant', grant_type: 'client_credentials' } }),
    ])
    expect(ofType('token.refused')).toEqual([expect.objectContaining({ reason: 'invalid_client' })])
    expect(JSON.stringify(events)).not.toContain(assertion.slice(-24))
  })
})

describe('a client known by its metadata document', () => {
  it('records its first use as its registration, once', async () => {
    const clientId = 'https://client.example/cimd.json'
    const document = { client_id: clientId, client_name: 'Document Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }
    const observer = new Observer()
    const seen: StoredAuditEvent[] = []
    observer.addAuditObserver((event) => seen.push(event))
    const cimdDir = await mkdtemp(join(tmpdir(), 'mcp-auth-audit-cimd-'))
    const cimdServer = createServer()
    await new Promise<void>((resolve) => cimdServer.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(cimdServer.address() as AddressInfo).port}`
    const cimd = await createAuthorizationServer({
      issuer: origin,
      dataDir: cimdDir,
      observer,
      resources: [{ uri: `${origin}/mcp`, scopes: ['mcp'] }],
      rateLimits: false,
      clientIdMetadataDocuments: { allowPrivateAddresses: true },
      // the document, as its https URL would serve it
      fetch: async (url) =>
        url === clientId
          ? new Response(JSON.stringify(document), { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' } })
          : new Response(null, { status: 404 }),
    })
    cimdServer.on('request', observer.observeRequests(cimd.app.callback()))
    try {
      await cimd.accounts.setUser('gil', PASSWORD)
      for (let i = 0; i < 2; i++) {
        const { verifier, challenge } = await pkcePair()
        const url = `${origin}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })}`
        const { callback } = await formLogin(url, { username: 'gil', password: PASSWORD, redirectUri: REDIRECT })
        const token = await fetch(`${origin}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: callback.searchParams.get('code')!,
            client_id: clientId,
            code_verifier: verifier,
            redirect_uri: REDIRECT,
          }),
        })
        expect(token.status).toBe(200)
        await token.body?.cancel()
      }
      await expect.poll(() => seen.filter((event) => event.type === 'client.registered').length).toBe(1)
      expect(seen.filter((event) => event.type === 'client.registered')).toEqual([
        expect.objectContaining({ clientId, addressGroup: '127.0.0.1', details: { origin: 'metadata-document' } }),
      ])
      expect(seen.filter((event) => event.type === 'token.issued')).toHaveLength(2)
    } finally {
      cimdServer.closeAllConnections()
      await new Promise<void>((resolve) => cimdServer.close(() => resolve()))
      await cimd.close()
      await rm(cimdDir, { recursive: true, force: true })
    }
  })
})

describe('a sign-in delegated to an upstream identity provider', () => {
  it('records the upstream factor: a sign-in that came back signed in, and one the provider refused', async () => {
    const pair = await startUpstreamPair({ user: { username: 'ursula', password: 'ursula password 1' } })
    const seen: StoredAuditEvent[] = []
    pair.stack.as.observer.addAuditObserver((event) => seen.push(event))
    try {
      const signIn = async (consent: 'allow' | 'deny') => {
        const config = await oidc.dynamicClientRegistration(new URL(pair.stack.origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
        const { challenge } = await pkcePair()
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })
        await formLogin(url, { username: 'ursula', password: 'ursula password 1', redirectUri: REDIRECT, consent })
        return config.clientMetadata().client_id
      }
      // denied at the upstream provider's consent page (its first for our server): it sends access_denied back
      const denied = await signIn('deny')
      expect(seen.filter((event) => event.type.startsWith('sign-in.'))).toEqual([
        expect.objectContaining({ type: 'sign-in.failed', result: 'failure', reason: 'access_denied', clientId: denied, details: { factor: 'upstream' } }),
      ])
      seen.length = 0
      const allowed = await signIn('allow')
      expect(seen.filter((event) => event.type.startsWith('sign-in.'))).toEqual([
        expect.objectContaining({ type: 'sign-in.succeeded', clientId: allowed, username: 'ursula', details: { factor: 'upstream' } }),
      ])
    } finally {
      await pair.stop()
    }
  })
})

describe('two nodes on one Redis', () => {
  it('record a metadata-document client registered once between them, whichever node sees it first', async () => {
    const redis = await startRedisServer()
    const clientId = 'https://client.example/two-nodes.json'
    const document = { client_id: clientId, client_name: 'Two Nodes', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }
    const fetchDocument = async (url: string) =>
      url === clientId ? new Response(JSON.stringify(document), { headers: { 'content-type': 'application/json' } }) : new Response(null, { status: 404 })
    const sharedDir = await mkdtemp(join(tmpdir(), 'mcp-auth-audit-nodes-'))
    const options = { dataDir: sharedDir, redis: { url: redis.url, prefix: 'events:' }, clientIdMetadataDocuments: { allowPrivateAddresses: true }, fetch: fetchDocument }
    const nodes = [await startAuthServer(options), await startAuthServer(options)]
    // one trail for both, as the Redis stream is
    const trail: StoredAuditEvent[] = []
    for (const node of nodes) node.as.observer.addAuditObserver((event) => trail.push(event))
    try {
      await nodes[0]!.as.accounts.setUser('ivy', PASSWORD)
      for (const node of [...nodes, ...nodes]) {
        const { challenge } = await pkcePair()
        const url = `${node.origin}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })}`
        const { callback } = await formLogin(url, { username: 'ivy', password: PASSWORD, redirectUri: REDIRECT })
        expect(callback.searchParams.get('code')).toBeTypeOf('string')
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(trail.filter((event) => event.type === 'client.registered')).toEqual([expect.objectContaining({ clientId, details: { origin: 'metadata-document' } })])
      expect(trail.filter((event) => event.type === 'sign-in.succeeded')).toHaveLength(4)
    } finally {
      await Promise.all(nodes.map((node) => node.stop()))
      await rm(sharedDir, { recursive: true, force: true })
      await redis.stop()
    }
  })
})

describe('the JWT bearer grant', () => {
  it('records the token issued for the mapped client and the account, and an assertion replayed', async () => {
    const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
    const ci = await generateKeyPair('ES256')
    const stack = await startProtectedStack({
      as: {
        clients: [{ client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [], redirect_uris: [], scope: 'mcp' }],
        jwtBearer: {
          issuers: [
            {
              issuer: 'https://ci.example.com',
              jwks: { keys: [{ ...(await exportJWK(ci.publicKey)), kty: 'EC', kid: 'ci1', alg: 'ES256' }] },
              subjects: { 'repo:acme/app': { client: 'deployer' }, 'job:nightly': { account: 'demo' } },
            },
          ],
        },
      },
    })
    const seen: StoredAuditEvent[] = []
    stack.as.observer.addAuditObserver((event) => seen.push(event))
    const assertion = (sub: string) => {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ sub, aud: stack.origin, jti: randomUUID(), iat: now, exp: now + 300 })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer('https://ci.example.com')
        .sign(ci.privateKey)
    }
    const grant = async (jwt: string) => {
      const response = await fetch(`${stack.origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: jwt, client_id: 'deployer', resource: `${stack.origin}/mcp` }),
      })
      await response.body?.cancel()
      return response.status
    }
    try {
      const once = await assertion('repo:acme/app')
      expect(await grant(once)).toBe(200)
      expect(await grant(await assertion('job:nightly'))).toBe(200)
      const demo = (await stack.as.accounts.findByUsername('demo'))!.id
      expect(seen.filter((event) => event.type === 'token.issued')).toEqual([
        expect.objectContaining({ clientId: 'deployer', resource: `${stack.origin}/mcp`, scopes: ['mcp'], details: { grant_type: JWT_BEARER, refresh_token: false } }),
        expect.objectContaining({ clientId: 'deployer', subject: demo, resource: `${stack.origin}/mcp`, details: { grant_type: JWT_BEARER, refresh_token: false } }),
      ])
      expect(seen.find((event) => event.type === 'token.issued')!.subject).toBeUndefined()
      seen.length = 0
      expect(await grant(once)).toBe(400)
      expect(seen.map((event) => [event.type, event.reason])).toEqual([
        ['token.refused', 'invalid_grant'],
        ['assertion.replay-refused', 'invalid_grant'],
      ])
      expect(JSON.stringify(seen)).not.toContain(once.slice(-24))
    } finally {
      await stack.stop()
    }
  })
})
