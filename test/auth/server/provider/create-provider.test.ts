/**
 * Issue 29 (item 2): every patch createProvider applies leans on an oidc-provider internal (a
 * prototype or static method, `Provider.ctx`, the adapter's method names, the grant registration
 * API, error classes). Each is asserted here against the installed oidc-provider, unpatched, so an
 * upgrade that moves one fails here, by name, before a behaviour test fails somewhere else. The
 * behaviour of each patch is tested end to end beside it (named in each describe).
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { exportJWK, generateKeyPair } from 'jose'
import Provider, { errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider'
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js'
import { isSpecialUseIP } from 'oidc-provider/lib/helpers/fetch_request.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIAL_MODELS, createAdapterFactory } from '../../../../src/auth/server/provider/adapter-factory.js'
import { createProvider } from '../../../../src/auth/server/provider/create-provider.js'
import { ScopePolicy } from '../../../../src/auth/server/provider/scope-policy.js'
import { resolveOptions } from '../../../../src/auth/server/options.js'
import type { AccountStore } from '../../../../src/auth/server/stores/account-store.js'
import type { ConsentStore } from '../../../../src/auth/server/stores/consent-store.js'
import type { PrivateJwk } from '../../../../src/auth/server/keys/signing-keys.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import { bindClientSecretMethod } from '../../../../src/auth/server/provider/client-auth-method.js'
import { currentContext, isTokenRequest, oidcOf } from '../../../../src/auth/server/provider/oidc-context.js'
import { allowLoopbackRedirectsOnAnyPort } from '../../../../src/auth/server/provider/redirect-policy.js'
import { atomicReplayDetection } from '../../../../src/auth/server/provider/replay-detection.js'
import { SecretBox } from '../../../../src/auth/server/keys/secret-box.js'
import { StorageUnavailableError } from '../../../../src/storage/errors.js'
import type { AuthStorage, OidcAdapter } from '../../../../src/storage/types.js'

/** One call oidc-provider made to its adapter, with the route of the request it served (if any). */
interface AdapterCall {
  model: string
  method: string
  args: unknown[]
  route: string | undefined
}

const calls: AdapterCall[] = []
/** What the Client adapter's `find` throws for a client id (the outage test). */
const failingClients = new Map<string, unknown>()
/** A grant type of our own, registered the way registerJwtBearerGrant registers RFC 7523's. */
const TEST_GRANT = 'urn:example:params:oauth:grant-type:test'
let seenByGrant: { clientId?: string; assertion?: unknown } | undefined

/** oidc-provider's `adapter` option, recording each call: `new RecordingAdapter(model)`. */
class RecordingAdapter {
  static readonly records = new Map<string, Record<string, unknown>>()
  constructor(readonly model: string) {}
  #record(method: string, args: unknown[]): void {
    calls.push({ model: this.model, method, args, route: oidcOf(currentContext())?.route })
  }
  async upsert(id: string, payload: Record<string, unknown>, expiresIn: number): Promise<void> {
    this.#record('upsert', [id, payload, expiresIn])
    RecordingAdapter.records.set(`${this.model}:${id}`, payload)
  }
  async find(id: string): Promise<Record<string, unknown> | undefined> {
    this.#record('find', [id])
    if (this.model === 'Client' && failingClients.has(id)) throw failingClients.get(id)
    return RecordingAdapter.records.get(`${this.model}:${id}`)
  }
  async findByUid(uid: string): Promise<undefined> {
    this.#record('findByUid', [uid])
  }
  async findByUserCode(userCode: string): Promise<undefined> {
    this.#record('findByUserCode', [userCode])
  }
  async consume(id: string): Promise<void> {
    this.#record('consume', [id])
  }
  async destroy(id: string): Promise<void> {
    this.#record('destroy', [id])
    RecordingAdapter.records.delete(`${this.model}:${id}`)
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    this.#record('revokeByGrantId', [grantId])
  }
}

/** The installed oidc-provider's source of one of its modules (for call sites no public API shows). */
const oidcProviderRoot = dirname(createRequire(import.meta.url).resolve('oidc-provider/package.json'))
const source = (path: string): string => readFileSync(join(oidcProviderRoot, path), 'utf8')

let provider: Provider
let server: Server
let origin: string

beforeAll(async () => {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // oidc-provider as it comes: none of our patches, our configuration only where a test needs it
  provider = new Provider(origin, {
    adapter: RecordingAdapter as never,
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] } as never,
    cookies: { keys: ['a-cookie-key-for-this-test'] },
    clients: [
      { client_id: 'machine', client_secret: 'machine-secret', grant_types: ['client_credentials', TEST_GRANT], response_types: [], redirect_uris: [], scope: 'api' },
      { client_id: 'web', client_secret: 'web-secret', redirect_uris: ['http://127.0.0.1:3000/cb'], scope: 'openid api' },
    ],
    scopes: ['openid', 'api'],
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
    // set, so oidc-provider prints no "you SHOULD change it" notice into the test output
    ttl: { AuthorizationCode: 60, ClientCredentials: 60, Interaction: 60, Grant: 60, Session: 60 },
    async renderError(ctx, out) {
      ctx.body = out
    },
  })
  provider.registerGrantType(
    TEST_GRANT,
    (async (ctx: KoaContextWithOIDC) => {
      seenByGrant = { clientId: ctx.oidc.client?.clientId, assertion: ctx.oidc.params?.['assertion'] }
      ctx.body = { ok: true }
    }) as never,
    new Set(['assertion']) as never,
    undefined as never,
  )
  server.on('request', provider.callback())
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

function token(form: Record<string, string>, authorization?: string): Promise<Response> {
  return fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization !== undefined ? { authorization } : {}) },
    body: new URLSearchParams(form),
  })
}

function authorize(redirectUri: string): Promise<Response> {
  const query = new URLSearchParams({
    client_id: 'web',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: redirectUri,
    code_challenge: randomBytes(32).toString('base64url'),
    code_challenge_method: 'S256',
  })
  return fetch(`${origin}/auth?${query}`, { redirect: 'manual' })
}

describe('Provider.ctx and ctx.oidc (oidc-context.ts; read by the adapters, the Client patches, the configuration)', () => {
  it('is a static getter over the AsyncLocalStorage oidc-provider enters per request, and undefined outside one', () => {
    expect(typeof Object.getOwnPropertyDescriptor(Provider, 'ctx')?.get).toBe('function')
    expect(currentContext()).toBeUndefined()
  })

  it('gives a token request its Koa context, with route "token", the grant_type, the client and the Authorization header', async () => {
    const prototype = (provider.Client as unknown as { prototype: { compareClientSecret(actual: string): Promise<boolean> } }).prototype
    const compare = prototype.compareClientSecret
    const seen: Array<{ ctx: KoaContextWithOIDC | undefined; actual: string }> = []
    prototype.compareClientSecret = function (this: unknown, actual: string) {
      seen.push({ ctx: currentContext(), actual })
      return compare.call(this, actual)
    }
    try {
      calls.length = 0
      const response = await token({ grant_type: 'client_credentials', scope: 'api' }, basic('machine', 'machine-secret'))
      expect(response.status).toBe(200)
      expect(seen).toHaveLength(1)
      const { ctx, actual } = seen[0]!
      expect(actual).toBe('machine-secret')
      expect(oidcOf(ctx)?.route).toBe('token')
      expect(isTokenRequest(oidcOf(ctx), 'client_credentials')).toBe(true)
      expect(oidcOf(ctx)?.client?.clientId).toBe('machine')
      expect(ctx?.req.headers.authorization).toMatch(/^Basic /)
      // the token's record is written inside the request's context (the adapters read it there)
      expect(calls.find((call) => call.model === 'ClientCredentials' && call.method === 'upsert')?.route).toBe('token')
    } finally {
      prototype.compareClientSecret = compare
    }
  })

  it('names the authorization endpoint\'s route "authorization" (registered-scope-policy\'s user routes, with "resume" and "pushed_authorization_request")', async () => {
    calls.length = 0
    const response = await authorize('http://127.0.0.1:3000/cb')
    await response.body?.cancel()
    expect(calls.some((call) => call.route === 'authorization')).toBe(true)
    expect(provider.pathFor('authorization')).toBe('/auth')
    expect(provider.pathFor('resume', { uid: 'u' })).toBe('/auth/u')
    expect(provider.pathFor('pushed_authorization_request')).toBe('/request')
    expect(provider.pathFor('token')).toBe('/token')
  })

  it('records the rotated refresh token as entity "RotatedRefreshToken" before the successor is saved (refreshTokenAdapter; end to end: refresh-grace.test.ts)', () => {
    const refresh = source('lib/actions/grants/refresh_token.js')
    expect(refresh).toContain("ctx.oidc.entity('RotatedRefreshToken', refreshToken)")
    // a consumed refresh token presented again revokes the grant (the grace window hides `consumed` once)
    expect(refresh).toContain('if (refreshToken.consumed) {')
    expect(refresh.indexOf("ctx.oidc.entity('RotatedRefreshToken', refreshToken)")).toBeLessThan(refresh.lastIndexOf('.save()'))
  })
})

describe('the adapter option (adapter-factory.ts; end to end: refresh-grace, client-secret-sealing, authorization-code, cluster-refresh-race tests)', () => {
  it('is constructed per model with `new Adapter(name)` and called by the method names our decorators wrap', async () => {
    calls.length = 0
    const client = await provider.Client.find('machine')
    const code = new provider.AuthorizationCode({ client, accountId: 'account', grantId: 'grant-1', redirectUri: 'https://app.example.com/cb', scope: 'openid' } as never)
    const value = await code.save()
    const found = await provider.AuthorizationCode.find(value)
    expect(found?.jti).toBe(value)
    await found!.consume()
    await found!.destroy()
    await provider.AuthorizationCode.revokeByGrantId('grant-1')
    await provider.Session.findByUid('a-session-uid')
    expect(calls.map(({ model, method }) => `${model}.${method}`)).toEqual([
      'AuthorizationCode.upsert',
      'AuthorizationCode.find',
      'AuthorizationCode.consume',
      'AuthorizationCode.destroy',
      'AuthorizationCode.revokeByGrantId',
      'Session.findByUid',
    ])
    // hashedIdAdapter stores under a digest of the id and drops the `jti` copy of it from the payload
    const [id, payload] = calls[0]!.args as [string, Record<string, unknown>]
    expect(id).toBe(value)
    expect(payload['jti']).toBe(value)
    // the credential models hashedIdAdapter lists are oidc-provider's model names
    for (const model of CREDENTIAL_MODELS) {
      expect(typeof (provider as unknown as Record<string, unknown>)[model], model).toBe('function')
    }
  })

  it('turns a storage outage (outageAs503) into a 503 temporarily_unavailable answer (retry-after-on-503.ts adds Retry-After; end to end: redis-outage.test.ts)', async () => {
    const down: AuthStorage = {
      adapter: () =>
        new Proxy({} as OidcAdapter, {
          get: () => async () => {
            throw new StorageUnavailableError('storage down')
          },
        }),
      records: {} as AuthStorage['records'],
      close: async () => undefined,
    }
    const Adapter = createAdapterFactory(down, { box: new SecretBox(randomBytes(32)), reuseGraceSeconds: 0 })
    failingClients.set('down', await new Adapter('Session').find('x').catch((error: unknown) => error))
    const response = await token({ grant_type: 'client_credentials' }, basic('down', 'secret'))
    expect(response.status).toBe(503)
    expect(((await response.json()) as { error?: string }).error).toBe('temporarily_unavailable')
  })
})

describe('Client.prototype.redirectUriAllowed (redirect-policy.ts, allowLoopbackRedirectsOnAnyPort; end to end: registration-and-metadata.test.ts)', () => {
  it('is the check the authorization endpoint makes, exact for a web client until patched, then any port on loopback', async () => {
    expect(source('lib/actions/authorization/response_parameters.js')).toContain('ctx.oidc.client.redirectUriAllowed(ctx.oidc.params.redirect_uri)')
    const Client = provider.Client as unknown as { prototype: { redirectUriAllowed(value: string): boolean } }
    const exact = Client.prototype.redirectUriAllowed
    expect(typeof exact).toBe('function')
    const web = (await provider.Client.find('web')) as unknown as { redirectUriAllowed(value: string): boolean }
    expect(web.redirectUriAllowed('http://127.0.0.1:3000/cb')).toBe(true)
    expect(web.redirectUriAllowed('http://127.0.0.1:4444/cb')).toBe(false)
    const refused = await authorize('http://127.0.0.1:4444/cb')
    await refused.body?.cancel()
    expect(refused.status).toBe(400)
    try {
      allowLoopbackRedirectsOnAnyPort(Client as never)
      expect(web.redirectUriAllowed('http://127.0.0.1:4444/cb')).toBe(true)
      const accepted = await authorize('http://127.0.0.1:4444/cb')
      await accepted.body?.cancel()
      expect(accepted.status).toBe(303)
      expect(accepted.headers.get('location')).toMatch(/^\/interaction\//)
    } finally {
      Client.prototype.redirectUriAllowed = exact
    }
  })
})

describe('ReplayDetection.unique (replay-detection.ts, atomicReplayDetection; end to end: cluster-replay.test.ts, dpop.test.ts)', () => {
  it('is a static (iss, jti, exp) whose record id is the SHA-256 of iss and jti, which our atomic claim keeps', async () => {
    const ReplayDetection = provider.ReplayDetection as unknown as { unique(iss: string, jti: string, exp: number): Promise<boolean> }
    expect(ReplayDetection.unique.length).toBe(3)
    calls.length = 0
    const exp = Math.floor(Date.now() / 1000) + 60
    expect(await ReplayDetection.unique('https://client.example', 'jti-1', exp)).toBe(true)
    const id = createHash('sha256')
      .update('https://client.example' + 'jti-1')
      .digest('base64url')
    expect(calls.map(({ model, method, args }) => [model, method, args[0]])).toEqual([
      ['ReplayDetection', 'find', id],
      ['ReplayDetection', 'upsert', id],
    ])
    const created: unknown[][] = []
    const isolated = { ReplayDetection: { unique: ReplayDetection.unique } } as unknown as Provider
    atomicReplayDetection(isolated, { create: async (...args: unknown[]) => created.push(args) > 0 } as unknown as OidcAdapter)
    expect(await isolated.ReplayDetection.unique('https://client.example', 'jti-1', exp)).toBe(true)
    expect(created[0]?.[0]).toBe(id)
    // where oidc-provider asks it: DPoP proofs and client assertions (our JWT bearer grant asks it too)
    expect(source('lib/helpers/validate_dpop.js')).toContain('provider.ReplayDetection.unique(')
    expect(source('lib/shared/jwt_client_auth.js')).toContain('ctx.oidc.provider.ReplayDetection.unique(')
  })
})

describe('Client.find (registered-scope-policy.ts and client-reuse.ts wrap it; end to end: client-reuse.test.ts, registration-and-metadata.test.ts)', () => {
  it('is a static on a Client class made once per provider, and every client a request loads goes through it', async () => {
    expect(provider.Client).toBe(provider.Client)
    const Client = provider.Client as unknown as { find(id: string): Promise<unknown> }
    const find = Client.find
    const asked: string[] = []
    Client.find = function (id: string) {
      asked.push(id)
      return find.call(this, id)
    }
    try {
      const response = await token({ grant_type: 'client_credentials', scope: 'api' }, basic('machine', 'machine-secret'))
      expect(response.status).toBe(200)
      expect(asked).toEqual(['machine'])
    } finally {
      Client.find = find
    }
  })

  it('makes `scope` an own, configurable property of a Client (the getter by route replaces it) and checks requests against it', async () => {
    const client = await provider.Client.find('machine')
    expect(Object.getOwnPropertyDescriptor(client, 'scope')).toMatchObject({ value: 'api', configurable: true })
    const response = await token({ grant_type: 'client_credentials', scope: 'openid' }, basic('machine', 'machine-secret'))
    expect(((await response.json()) as { error?: string }).error).toBe('invalid_scope')
  })

  it('is what Client.validate checks metadata against: grant types known to the provider (configured clients are validated at start)', async () => {
    await expect(
      provider.Client.validate({ client_id: 'x', client_secret: 'y', grant_types: ['urn:example:unknown'], response_types: [], redirect_uris: [] } as never),
    ).rejects.toMatchObject({
      error: 'invalid_client_metadata',
    })
    await expect(
      provider.Client.validate({ client_id: 'x', client_secret: 'y', grant_types: [TEST_GRANT], response_types: [], redirect_uris: [] } as never),
    ).resolves.toBeUndefined()
  })
})

describe('Client.prototype.compareClientSecret (client-auth-method.ts, bindClientSecretMethod; end to end: token-endpoint-hardening.test.ts)', () => {
  it('is what client_secret_basic and client_secret_post authentication call, on a client whose clientAuthMethod is its registered method', async () => {
    expect(source('lib/shared/client_auth.js')).toContain('ctx.oidc.client.compareClientSecret(clientSecret)')
    const machine = (await provider.Client.find('machine')) as unknown as { clientAuthMethod: string }
    expect(machine.clientAuthMethod).toBe('client_secret_basic')
    // unpatched, oidc-provider takes the secret in the form too
    const posted = await token({ grant_type: 'client_credentials', scope: 'api', client_id: 'machine', client_secret: 'machine-secret' })
    expect(posted.status).toBe(200)
    const prototype = (provider.Client as unknown as { prototype: { compareClientSecret(actual: string): Promise<boolean> } }).prototype
    const compare = prototype.compareClientSecret
    try {
      bindClientSecretMethod(provider)
      const refused = await token({ grant_type: 'client_credentials', scope: 'api', client_id: 'machine', client_secret: 'machine-secret' })
      expect(refused.status).toBe(401)
      expect(((await refused.json()) as { error?: string }).error).toBe('invalid_client')
    } finally {
      prototype.compareClientSecret = compare
    }
  })
})

describe('registerGrantType (jwt-bearer-grant.ts; end to end: jwt-bearer-grant.test.ts)', () => {
  it('routes a token request of a registered grant type to its handler, the client authenticated and the declared parameters read', async () => {
    expect(provider.registerGrantType.length).toBe(4)
    seenByGrant = undefined
    const response = await token({ grant_type: TEST_GRANT, assertion: 'an-assertion' }, basic('machine', 'machine-secret'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
    expect(seenByGrant).toEqual({ clientId: 'machine', assertion: 'an-assertion' })
  })

  it('has the models, DPoP helpers and ReplayDetection the grant builds its tokens with', () => {
    for (const model of ['ClientCredentials', 'AccessToken', 'Grant', 'ResourceServer', 'ReplayDetection'] as const) {
      expect(typeof provider[model], model).toBe('function')
    }
    expect(typeof (provider.AccessToken.prototype as { setThumbprint?: unknown }).setThumbprint).toBe('function')
    expect(typeof validateDpop).toBe('function')
    expect(typeof checkDpopReplay).toBe('function')
    // (provider, ctx, accessToken?) and (provider, ctx, dPoP, clientId, ErrorClass = InvalidGrant)
    expect(validateDpop.length).toBe(3)
    expect(checkDpopReplay.length).toBe(4)
  })
})

describe('errors, interactionPolicy and helpers the patches and the configuration use', () => {
  it.each([
    ['InvalidGrant', 'invalid_grant'],
    ['InvalidDpopProof', 'invalid_dpop_proof'],
    ['TemporarilyUnavailable', 'temporarily_unavailable'],
    ['InvalidClientAuth', 'invalid_client'],
    ['InvalidTarget', 'invalid_target'],
    ['UnauthorizedClient', 'unauthorized_client'],
    ['InvalidClientMetadata', 'invalid_client_metadata'],
    ['InvalidRedirectUri', 'invalid_redirect_uri'],
    ['InvalidRequest', 'invalid_request'],
    ['InvalidScope', 'invalid_scope'],
  ])('errors.%s answers %s', (name, code) => {
    const ErrorClass = (errors as unknown as Record<string, new (description?: string) => { error: string }>)[name]
    expect(ErrorClass, name).toBeTypeOf('function')
    const error = new ErrorClass!('a description')
    expect(error).toBeInstanceOf(errors.OIDCProviderError)
    expect(error.error).toBe(code)
  })

  it('errors.CustomOIDCProviderError carries the code it is given (the JWT bearer grant says why it refuses)', () => {
    const error = new errors.CustomOIDCProviderError('invalid_grant', 'the assertion is too large')
    expect(error).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion is too large' })
  })

  it('interactionPolicy has a login prompt whose checks take one more (the delegated-login check)', () => {
    const policy = interactionPolicy.base()
    const login = policy.get('login')
    expect(login?.checks.add).toBeTypeOf('function')
    const check = new interactionPolicy.Check('upstream_session_ended', 'the identity provider ended the session', () => interactionPolicy.Check.NO_NEED_TO_PROMPT)
    login!.checks.add(check)
    expect(login!.checks).toContain(check)
    expect(interactionPolicy.Check.REQUEST_PROMPT).not.toBe(interactionPolicy.Check.NO_NEED_TO_PROMPT)
  })

  it("fetch_request.js's isSpecialUseIP (our outbound fetch refuses what it names)", () => {
    expect(isSpecialUseIP('10.0.0.1')).toBe(true)
    expect(isSpecialUseIP('127.0.0.1')).toBe(true)
    expect(isSpecialUseIP('93.184.216.34')).toBe(false)
  })
})

describe('createProvider', () => {
  it('applies every patch of its table to the provider it builds', async () => {
    const options = resolveOptions({
      issuer: 'http://127.0.0.1:4000',
      dataDir: '/nonexistent',
      clients: [{ client_id: 'web', client_secret: 'web-secret', redirect_uris: ['http://127.0.0.1:3000/cb'] }],
    })
    const storage = createMemoryStorage()
    const scopes = new ScopePolicy(options.resources, options.clientCredentials.openRegistrationScopes)
    const { privateKey } = await generateKeyPair('RS256', { extractable: true })
    const {
      provider: patched,
      Adapter,
      jwtBearer,
    } = createProvider({
      options,
      storage,
      box: new SecretBox(randomBytes(32)),
      accounts: {} as AccountStore,
      consents: {} as ConsentStore,
      scopes,
      jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' } as PrivateJwk] },
      cookieKeys: ['a-cookie-key-for-this-test'],
      dpopNonceSecret: randomBytes(32),
    })
    try {
      expect(jwtBearer).toBeUndefined()
      expect(new Adapter('Client')).toBe(new Adapter('Client'))
      // 3: the app's proxy setting and cookie keys
      expect(patched.proxy).toBe(false)
      // 4: loopback redirect URIs on any port
      const web = (await patched.Client.find('web')) as unknown as { redirectUriAllowed(value: string): boolean }
      expect(web.redirectUriAllowed('http://127.0.0.1:4444/cb')).toBe(true)
      // 5: replay detection is a claim in the store: a second use of one value is refused
      const exp = Math.floor(Date.now() / 1000) + 60
      expect(await patched.ReplayDetection.unique('https://client.example', 'jti-2', exp)).toBe(true)
      expect(await patched.ReplayDetection.unique('https://client.example', 'jti-2', exp)).toBe(false)
      // 6 and 7: Client.find wrapped twice (the registered scope by route inside, the reuse of unchanged clients outside)
      expect(patched.Client.find.name).toBe('find_')
      expect(Object.getOwnPropertyDescriptor(web, 'scope')?.get).toBeTypeOf('function')
      // 9: the client secret method bound
      const prototype = (patched.Client as unknown as { prototype: { compareClientSecret: { name: string } } }).prototype
      expect(prototype.compareClientSecret.name).toBe('compareClientSecret')
      expect(String(prototype.compareClientSecret)).toContain('clientAuthMethod')
    } finally {
      await storage.close()
    }
  })
})
