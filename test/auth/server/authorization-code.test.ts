import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formLogin, CookieJar } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'
import { storeText } from '../../helpers/store-contents.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const USER = { username: 'alice', password: 'correct horse battery' }

let s: RunningAuthServer
let resource: string

beforeAll(async () => {
  s = await startAuthServer({ refreshTokens: { reuseGraceSeconds: 0 } })
  resource = `${s.origin}/mcp`
  await s.as.accounts.setUser(USER.username, USER.password, { name: 'Alice' }, ['mcp', 'mcp:admin'])
})
afterAll(() => s.stop(true))

async function registerPublicClient(redirectUri = 'http://127.0.0.1/callback', extra: Record<string, unknown> = {}): Promise<oidc.Configuration> {
  const server = await oidc.discovery(new URL(s.issuer), 'placeholder', undefined, undefined, insecure)
  const registered = await oidc.dynamicClientRegistration(
    new URL(s.issuer),
    { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', client_name: 'Test MCP client', ...extra },
    oidc.None(),
    insecure,
  )
  expect(server.serverMetadata().issuer).toBe(s.issuer)
  return registered
}

async function authorize(config: oidc.Configuration, options: { redirectUri: string; scope?: string; resource?: string | null; jar?: CookieJar; consent?: 'allow' | 'deny' }) {
  const { verifier, challenge } = await pkcePair()
  const state = oidc.randomState()
  const params: Record<string, string> = {
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'mcp',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }
  if (options.resource !== null) params['resource'] = options.resource ?? resource
  const url = oidc.buildAuthorizationUrl(config, params)
  const result = await formLogin(url, {
    ...USER,
    redirectUri: options.redirectUri,
    ...(options.jar ? { jar: options.jar } : {}),
    ...(options.consent ? { consent: options.consent } : {}),
  })
  return { ...result, verifier, state }
}

async function exchange(config: oidc.Configuration, callback: URL, verifier: string, state: string) {
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })
}

describe('authorization code with PKCE through the login and consent pages', () => {
  it('issues an RFC 9068 JWT bound to the resource, and a refresh token without offline_access', async () => {
    const config = await registerPublicClient()
    const { callback, verifier, state, pages } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback' })
    expect(pages).toEqual(['login', 'consent'])
    expect(callback.searchParams.get('iss')).toBe(s.issuer)
    const tokens = await exchange(config, callback, verifier, state)
    expect(tokens.refresh_token).toBeTypeOf('string')
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt')
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!))
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: s.issuer, audience: resource, typ: 'at+jwt' })
    expect(protectedHeader.alg).toBe('ES256')
    expect(payload.scope).toBe('mcp')
    expect(payload.client_id).toBe(config.clientMetadata().client_id)
    expect(payload.sub).toBe((await s.as.accounts.findByUsername('alice'))!.id)
  })

  it('binds the token to the configured resource when the client omits resource (2025-03-26 clients)', async () => {
    const config = await registerPublicClient()
    const { callback, verifier, state } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback', resource: null })
    const tokens = await exchange(config, callback, verifier, state)
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!))
    const { payload } = await jwtVerify(tokens.access_token, jwks, { audience: resource })
    expect(payload.aud).toBe(resource)
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect((await jwtVerify(refreshed.access_token, jwks)).payload.aud).toBe(resource)
  })

  it('refuses a resource the server does not protect with invalid_target', async () => {
    const config = await registerPublicClient()
    const { challenge } = await pkcePair()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'mcp',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/mcp',
    })
    const response = await fetch(url, { redirect: 'manual' })
    const location = new URL(response.headers.get('location')!)
    expect(location.searchParams.get('error')).toBe('invalid_target')
  })

  it('matches a port-less loopback redirect URI on any port for a web client', async () => {
    const config = await registerPublicClient('http://localhost/callback')
    expect(config.clientMetadata().application_type ?? 'web').toBe('web')
    const { callback, verifier, state } = await authorize(config, { redirectUri: 'http://localhost:53117/callback' })
    expect(callback.host).toBe('localhost:53117')
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { redirect_uri: 'http://localhost:53117/callback' })
    expect(tokens.access_token).toBeTypeOf('string')
  })

  it('does not match a loopback redirect on another path or host', async () => {
    const config = await registerPublicClient('http://127.0.0.1:4000/callback')
    for (const redirect of ['http://127.0.0.1:5000/other', 'http://localhost:4000/callback']) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirect,
        scope: 'mcp',
        code_challenge: (await pkcePair()).challenge,
        code_challenge_method: 'S256',
      })
      const response = await fetch(url, { redirect: 'manual' })
      // Never redirected to an unverified URI: an error page instead.
      expect(response.status).toBe(400)
      expect(response.headers.get('location')).toBeNull()
      expect(await response.text()).toContain('redirect_uri did not match')
    }
  })

  it('requires PKCE: a missing code_challenge and the plain method are refused', async () => {
    const config = await registerPublicClient()
    const base = { redirect_uri: 'http://127.0.0.1/callback', scope: 'mcp', state: 'x' }
    const missing = await fetch(oidc.buildAuthorizationUrl(config, base), { redirect: 'manual' })
    expect(new URL(missing.headers.get('location')!).searchParams.get('error')).toBe('invalid_request')
    const plain = await fetch(oidc.buildAuthorizationUrl(config, { ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }), { redirect: 'manual' })
    const location = new URL(plain.headers.get('location')!)
    expect(location.searchParams.get('error')).toBe('invalid_request')
    expect(location.searchParams.get('error_description')).toMatch(/code_challenge_method/)
  })

  it('sends access_denied to the client when the user denies consent', async () => {
    const config = await registerPublicClient()
    const { callback } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback', consent: 'deny' })
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect(callback.searchParams.get('iss')).toBe(s.issuer)
  })

  it('remembers consent per client across browser sessions', async () => {
    const config = await registerPublicClient()
    const first = await authorize(config, { redirectUri: 'http://127.0.0.1/callback' })
    expect(first.pages).toEqual(['login', 'consent'])
    const second = await authorize(config, { redirectUri: 'http://127.0.0.1/callback', jar: new CookieJar() })
    expect(second.pages).toEqual(['login'])
    expect(second.callback.searchParams.get('code')).toBeTruthy()
    const wider = await authorize(config, { redirectUri: 'http://127.0.0.1/callback', scope: 'mcp mcp:admin', jar: new CookieJar() })
    expect(wider.pages).toEqual(['login', 'consent'])
  })

  it('shows the login page again with an error for a wrong password', async () => {
    const config = await registerPublicClient()
    await expect(
      formLogin(
        oidc.buildAuthorizationUrl(config, {
          redirect_uri: 'http://127.0.0.1/callback',
          scope: 'mcp',
          code_challenge: (await pkcePair()).challenge,
          code_challenge_method: 'S256',
        }),
        { username: 'alice', password: 'wrong password!', redirectUri: 'http://127.0.0.1/callback' },
      ),
    ).rejects.toThrow(/unexpected 401[\s\S]*Wrong username or password/)
  })
})

describe('refresh tokens', () => {
  it('rotate on every use, and a replayed one revokes the whole grant', async () => {
    const config = await registerPublicClient()
    const { callback, verifier, state } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback' })
    const tokens = await exchange(config, callback, verifier, state)
    const second = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect(second.refresh_token).toBeTypeOf('string')
    expect(second.refresh_token).not.toBe(tokens.refresh_token)
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
    // The family is gone: the newest refresh token no longer works either.
    await expect(oidc.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
  })

  it('honour a rotated token once more inside the grace window', async () => {
    const graceful = await startAuthServer({ refreshTokens: { reuseGraceSeconds: 30 } })
    try {
      await graceful.as.accounts.setUser(USER.username, USER.password)
      const config = await oidc.dynamicClientRegistration(
        new URL(graceful.issuer),
        { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' },
        oidc.None(),
        insecure,
      )
      const { verifier, challenge } = await pkcePair()
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: 'http://127.0.0.1/callback',
        scope: 'mcp',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
      const { callback } = await formLogin(url, { ...USER, redirectUri: 'http://127.0.0.1/callback' })
      const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
      const lost = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
      const retried = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
      expect(retried.access_token).toBeTypeOf('string')
      expect(lost.refresh_token).toBeTypeOf('string')
      expect((await oidc.refreshTokenGrant(config, retried.refresh_token!)).access_token).toBeTypeOf('string')
    } finally {
      await graceful.stop(true)
    }
  })
})

describe('tokens at rest', () => {
  it('the data file holds no usable refresh token, code or registration access token', async () => {
    const response = await fetch(`${s.origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
    })
    const registration = (await response.json()) as { client_id: string; registration_access_token: string }
    const config = await registerPublicClient()
    const { callback, verifier, state } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback' })
    const code = callback.searchParams.get('code')!
    const tokens = await exchange(config, callback, verifier, state)
    const file = await storeText(s.dataDir)
    for (const secret of [tokens.refresh_token!, code, registration.registration_access_token]) expect(file).not.toContain(secret)
    // …while every one of them still works.
    expect((await oidc.refreshTokenGrant(config, tokens.refresh_token!)).access_token).toBeTypeOf('string')
    const read = await fetch(`${s.origin}/register/${registration.client_id}`, { headers: { authorization: `Bearer ${registration.registration_access_token}` } })
    expect(read.status).toBe(200)
  })
})

describe('code replay, revocation and introspection', () => {
  it('a replayed authorization code is refused and revokes what the code issued', async () => {
    const config = await registerPublicClient()
    const { callback, verifier, state } = await authorize(config, { redirectUri: 'http://127.0.0.1/callback' })
    const tokens = await exchange(config, callback, verifier, state)
    await expect(exchange(config, callback, verifier, state)).rejects.toMatchObject({ error: 'invalid_grant' })
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
  })

  it('revokes a refresh token (RFC 7009) and introspection then reports it inactive (RFC 7662)', async () => {
    const confidential = await oidc.dynamicClientRegistration(
      new URL(s.issuer),
      { redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'client_secret_basic' },
      oidc.ClientSecretBasic(),
      insecure,
    )
    const { callback, verifier, state } = await authorize(confidential, { redirectUri: 'https://app.example/callback' })
    const tokens = await exchange(confidential, callback, verifier, state)
    const before = await oidc.tokenIntrospection(confidential, tokens.refresh_token!)
    expect(before.active).toBe(true)
    expect(before.client_id).toBe(confidential.clientMetadata().client_id)
    await oidc.tokenRevocation(confidential, tokens.refresh_token!)
    expect((await oidc.tokenIntrospection(confidential, tokens.refresh_token!)).active).toBe(false)
    await expect(oidc.refreshTokenGrant(confidential, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
  })
})
