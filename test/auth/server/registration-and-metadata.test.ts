import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { generateKeyPair, exportJWK, createRemoteJWKSet, jwtVerify } from 'jose'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { storeText } from '../../helpers/store-contents.js'

const insecure = { execute: [oidc.allowInsecureRequests] }

async function register(origin: string, body: Record<string, unknown>, headers: Record<string, string> = {}, path = '/register') {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers }
}

describe('metadata', () => {
  let s: RunningAuthServer
  beforeAll(async () => {
    s = await startAuthServer()
  })
  afterAll(() => s.stop(true))

  it('serves RFC 8414 and OIDC discovery advertising exactly what works', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await fetch(`${s.origin}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      const metadata = (await response.json()) as Record<string, unknown>
      expect(metadata).toMatchObject({
        issuer: s.issuer,
        code_challenge_methods_supported: ['S256'],
        registration_endpoint: `${s.origin}/register`,
        authorization_endpoint: `${s.origin}/authorize`,
        token_endpoint: `${s.origin}/token`,
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        response_types_supported: ['code'],
      })
      expect(metadata['grant_types_supported']).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']))
      expect(metadata['scopes_supported']).toEqual(expect.arrayContaining(['mcp', 'offline_access']))
      expect(metadata['revocation_endpoint']).toBeTypeOf('string')
      expect(metadata['introspection_endpoint']).toBeTypeOf('string')
    }
    const viaOauth = await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, { ...insecure, algorithm: 'oauth2' })
    expect(viaOauth.serverMetadata().issuer).toBe(s.issuer)
    const viaOidc = await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, { ...insecure, algorithm: 'oidc' })
    expect(viaOidc.serverMetadata().issuer).toBe(s.issuer)
  })

  it('does not serve the development interaction pages', async () => {
    const response = await fetch(`${s.origin}/interaction/abc`)
    expect(response.status).toBe(400)
    expect(await response.text()).not.toContain('oidc-provider')
  })
})

describe('an issuer with a path', () => {
  let s: RunningAuthServer
  beforeAll(async () => {
    s = await startAuthServer({ issuerPath: '/tenant' })
  })
  afterAll(() => s.stop(true))

  it('publishes one issuer at the path-inserted, appended and root addresses', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server/tenant',
      '/.well-known/openid-configuration/tenant',
      '/tenant/.well-known/openid-configuration',
      '/tenant/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server',
    ]) {
      const response = await fetch(`${s.origin}${path}`)
      expect(response.status, path).toBe(200)
      expect(((await response.json()) as { issuer: string }).issuer).toBe(`${s.origin}/tenant`)
    }
    const config = await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, { ...insecure, algorithm: 'oauth2' })
    expect(config.serverMetadata().token_endpoint).toBe(`${s.origin}/tenant/token`)
  })

  it('answers /authorize, /token and /register at the origin root without metadata (2025-03-26 fallback)', async () => {
    const registered = await register(s.origin, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' })
    expect(registered.status).toBe(201)
    const clientId = String(registered.body['client_id'])
    const authorize = await fetch(
      `${s.origin}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'mcp' })}`,
      { redirect: 'manual' },
    )
    expect(authorize.status).toBe(303)
    expect(authorize.headers.get('location')).toMatch(/^\/tenant\/interaction\//)
    const token = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: clientId, code_verifier: 'x'.repeat(43), redirect_uri: 'http://127.0.0.1/cb' }),
    })
    expect(token.status).toBe(400)
    expect(((await token.json()) as { error: string }).error).toBe('invalid_grant')
  })
})

describe('dynamic client registration (RFC 7591 / 7592)', () => {
  let s: RunningAuthServer
  beforeAll(async () => {
    s = await startAuthServer()
  })
  afterAll(() => s.stop(true))

  it('registers a public client with a loopback redirect and answers CORS preflights', async () => {
    const preflight = await fetch(`${s.origin}/register`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST')
    const { status, body, headers } = await register(
      s.origin,
      { redirect_uris: ['http://localhost:33418/callback'], token_endpoint_auth_method: 'none', application_type: 'native', software_id: 'test-client' },
      { origin: 'https://app.example' },
    )
    expect(status).toBe(201)
    expect(headers.get('access-control-allow-origin')).toBe('*')
    expect(body).toMatchObject({ application_type: 'native', token_endpoint_auth_method: 'none', software_id: 'test-client' })
    expect(body['client_secret']).toBeUndefined()
  })

  it.each([
    ['http on a non-loopback host', 'http://app.example/callback', 'invalid_redirect_uri'],
    ['a custom scheme', 'myapp://callback', 'invalid_redirect_uri'],
    ['a fragment', 'https://app.example/callback#x', 'invalid_redirect_uri'],
    ['a relative URI', '/callback', 'invalid_redirect_uri'],
  ])('refuses a redirect URI with %s', async (_label, uri, error) => {
    const { status, body } = await register(s.origin, { redirect_uris: [uri], token_endpoint_auth_method: 'none' })
    expect(status).toBe(400)
    expect(body['error']).toBe(error)
    expect(body['error_description']).toContain(uri)
  })

  it('refuses malformed metadata with invalid_client_metadata', async () => {
    const { status, body } = await register(s.origin, { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'magic' })
    expect(status).toBe(400)
    expect(body['error']).toBe('invalid_client_metadata')
  })

  it('reads, updates and deletes a registration with its registration access token (RFC 7592)', async () => {
    const { body } = await register(s.origin, { redirect_uris: ['https://app.example/cb'], client_name: 'Before' })
    const uri = String(body['registration_client_uri'])
    let token = String(body['registration_access_token'])
    const read = await fetch(uri, { headers: { authorization: `Bearer ${token}` } })
    expect(read.status).toBe(200)
    expect(((await read.json()) as { client_name: string }).client_name).toBe('Before')
    const refused = await fetch(uri, { headers: { authorization: 'Bearer wrong' } })
    expect(refused.status).toBe(401)
    const update = await fetch(uri, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: body['client_id'], client_secret: body['client_secret'], redirect_uris: ['https://app.example/cb'], client_name: 'After' }),
    })
    expect(update.status).toBe(200)
    const updated = (await update.json()) as Record<string, string>
    expect(updated['client_name']).toBe('After')
    token = updated['registration_access_token'] ?? token
    const removed = await fetch(uri, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
    expect(removed.status).toBe(204)
    expect((await fetch(uri, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
  })

  it('never writes a client secret in plain text to the data file', async () => {
    const { body } = await register(s.origin, {
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'client_credentials'],
    })
    const secret = String(body['client_secret'])
    expect(secret.length).toBeGreaterThan(20)
    const file = await storeText(s.dataDir)
    expect(file).toContain(String(body['client_id']))
    expect(file).not.toContain(secret)
    // …and the secret still authenticates the client.
    const config = new oidc.Configuration(
      (await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, insecure)).serverMetadata(),
      String(body['client_id']),
      { client_secret: secret },
      oidc.ClientSecretBasic(secret),
    )
    oidc.allowInsecureRequests(config)
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'mcp' })
    expect(tokens.access_token).toBeTypeOf('string')
  })

  it('deletes dynamic registrations that were never used once their time is up', async () => {
    const short = await startAuthServer({ registration: { unusedClientTtlSeconds: 1 } })
    try {
      const unused = await register(short.origin, { redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'], response_types: [] })
      const used = await register(short.origin, { redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'], response_types: [] })
      const basic = `Basic ${Buffer.from(`${used.body['client_id']}:${used.body['client_secret']}`).toString('base64')}`
      const token = await fetch(`${short.origin}/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      })
      expect(token.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      expect(await short.as.sweepUnusedClients()).toBe(1)
      expect(await short.as.provider.Client.find(String(unused.body['client_id']))).toBeUndefined()
      expect(await short.as.provider.Client.find(String(used.body['client_id']))).toBeDefined()
    } finally {
      await short.stop(true)
    }
  })
})

describe('registration closed by an initial access token', () => {
  it('refuses registration without the token and accepts it with the token', async () => {
    const s = await startAuthServer({ registration: { initialAccessToken: 'a-very-secret-initial-token' } })
    try {
      const without = await register(s.origin, { redirect_uris: ['https://app.example/cb'] })
      expect(without.status).toBe(401)
      expect(without.body['error']).toBe('invalid_token')
      const withToken = await register(s.origin, { redirect_uris: ['https://app.example/cb'] }, { authorization: 'Bearer a-very-secret-initial-token' })
      expect(withToken.status).toBe(201)
    } finally {
      await s.stop(true)
    }
  })
})

describe('rate limits', () => {
  it('answers 429 with Retry-After past the registration limit per address', async () => {
    const s = await startAuthServer({ rateLimits: { registrationPerAddress: 2, windowSeconds: 60 } })
    try {
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await register(s.origin, { redirect_uris: ['https://app.example/cb'] })).status)
      expect(statuses).toEqual([201, 201, 429])
      const limited = await register(s.origin, { redirect_uris: ['https://app.example/cb'] })
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(limited.body['error']).toBe('slow_down')
    } finally {
      await s.stop(true)
    }
  })

  it('answers 429 past the token limit per client', async () => {
    const s = await startAuthServer({ rateLimits: { tokenPerClient: 2, tokenPerAddress: 100 } })
    try {
      const { body } = await register(s.origin, { redirect_uris: [], grant_types: ['client_credentials'], response_types: [] })
      const basic = `Basic ${Buffer.from(`${body['client_id']}:${body['client_secret']}`).toString('base64')}`
      const statuses = []
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${s.origin}/token`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        })
        statuses.push(r.status)
      }
      expect(statuses).toEqual([200, 200, 429])
    } finally {
      await s.stop(true)
    }
  })

  it('answers 429 past the token limit per client for a public client naming itself in the form', async () => {
    const s = await startAuthServer({ rateLimits: { tokenPerClient: 2, tokenPerAddress: 100 } })
    try {
      const { body } = await register(s.origin, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' })
      const attempt = async () => {
        const r = await fetch(`${s.origin}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: 'not-a-code',
            client_id: String(body['client_id']),
            code_verifier: 'v'.repeat(43),
            redirect_uri: 'http://127.0.0.1/cb',
          }),
        })
        // The form reached oidc-provider intact: it names the client and rejects the code.
        return { status: r.status, error: ((await r.json()) as { error: string }).error }
      }
      expect(await attempt()).toEqual({ status: 400, error: 'invalid_grant' })
      expect(await attempt()).toEqual({ status: 400, error: 'invalid_grant' })
      expect(await attempt()).toEqual({ status: 429, error: 'slow_down' })
    } finally {
      await s.stop(true)
    }
  })

  // Issue 13, item 5: one normalisation for the account store and the limiter; IPv6 by /64.
  it('keeps an account locked whatever its spelling: the fullwidth form of a locked name is locked too', async () => {
    const s = await startAuthServer({ rateLimits: { loginPerAccount: 3, loginPerAddress: 100 } })
    try {
      await s.as.accounts.setUser('demo', 'demo password 1')
      const { body } = await register(s.origin, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' })
      const { formLogin } = await import('../../helpers/form-login.js')
      const url = `${s.origin}/authorize?${new URLSearchParams({ client_id: String(body['client_id']), response_type: 'code', redirect_uri: 'http://127.0.0.1/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'mcp' })}`
      const outcome = (username: string, password: string) =>
        formLogin(url, { username, password, redirectUri: 'http://127.0.0.1/cb' }).then(
          () => 'ok',
          (e: Error) => /unexpected (\d+)/.exec(e.message)?.[1] ?? e.message,
        )
      for (let i = 0; i < 3; i++) expect(await outcome('demo', 'wrong guess!')).toBe('401')
      // The right password under another spelling of the same account is still locked out.
      expect(await outcome('ｄｅｍｏ', 'demo password 1')).toBe('429')
      expect(await outcome('DEMO', 'demo password 1')).toBe('429')
    } finally {
      await s.stop(true)
    }
  })

  it('counts IPv6 clients of one /64 as one address', async () => {
    const s = await startAuthServer({ trustProxy: true, rateLimits: { registrationPerAddress: 2, windowSeconds: 60 } })
    try {
      const from = async (address: string) =>
        (
          await fetch(`${s.origin}/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
            body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
          })
        ).status
      expect(await from('2001:db8:1:2::1')).toBe(201)
      expect(await from('2001:db8:1:2::2')).toBe(201)
      expect(await from('2001:db8:1:2:ffff::9')).toBe(429)
      expect(await from('2001:db8:1:3::1')).toBe(201)
    } finally {
      await s.stop(true)
    }
  })

  it('locks out password guessing on the login form with 429', async () => {
    const s = await startAuthServer({ rateLimits: { loginPerAccount: 3, loginPerAddress: 100 } })
    try {
      await s.as.accounts.setUser('bob', 'bob password 1')
      const { body } = await register(s.origin, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' })
      const { formLogin } = await import('../../helpers/form-login.js')
      const url = `${s.origin}/authorize?${new URLSearchParams({ client_id: String(body['client_id']), response_type: 'code', redirect_uri: 'http://127.0.0.1/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'mcp' })}`
      const results: string[] = []
      for (let i = 0; i < 4; i++) {
        results.push(
          await formLogin(url, { username: 'bob', password: 'wrong guess!', redirectUri: 'http://127.0.0.1/cb' }).then(
            () => 'ok',
            (e: Error) => /unexpected (\d+)/.exec(e.message)![1]!,
          ),
        )
      }
      expect(results).toEqual(['401', '401', '401', '429'])
    } finally {
      await s.stop(true)
    }
  })
})

describe('client_credentials', () => {
  let s: RunningAuthServer
  let privateJwk: Awaited<ReturnType<typeof generateKeyPair>>
  beforeAll(async () => {
    privateJwk = await generateKeyPair('ES256', { extractable: true })
    const publicJwk = { ...(await exportJWK(privateJwk.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    s = await startAuthServer({
      clients: [
        {
          client_id: 'basic-client',
          client_secret: 'basic-secret-0123456789',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        {
          client_id: 'post-client',
          client_secret: 'post-secret-0123456789',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_post',
        },
        {
          client_id: 'jwt-client',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk] },
        },
      ],
    })
  })
  afterAll(() => s.stop(true))

  it.each([
    ['client_secret_basic', 'basic-client', () => oidc.ClientSecretBasic('basic-secret-0123456789')],
    ['client_secret_post', 'post-client', () => oidc.ClientSecretPost('post-secret-0123456789')],
    ['private_key_jwt', 'jwt-client', () => oidc.PrivateKeyJwt({ key: privateJwk.privateKey, kid: 'k1' })],
  ])('issues a resource-bound JWT to a client authenticating with %s', async (_method, clientId, auth) => {
    const server = (await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, insecure)).serverMetadata()
    const config = new oidc.Configuration(server, clientId, {}, auth())
    oidc.allowInsecureRequests(config)
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'mcp' })
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(server.jwks_uri!)), { issuer: s.issuer, audience: `${s.origin}/mcp`, typ: 'at+jwt' })
    expect(payload.client_id).toBe(clientId)
    expect(payload.scope).toBe('mcp')
  })

  it('refuses a wrong secret with invalid_client', async () => {
    const server = (await oidc.discovery(new URL(s.issuer), 'x', undefined, undefined, insecure)).serverMetadata()
    const config = new oidc.Configuration(server, 'basic-client', {}, oidc.ClientSecretBasic('wrong-secret'))
    oidc.allowInsecureRequests(config)
    const error = await oidc.clientCredentialsGrant(config, { scope: 'mcp' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 401, cause: [{ scheme: 'basic', parameters: { error: 'invalid_client' } }] })
  })
})
