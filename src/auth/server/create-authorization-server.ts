// first: keeps oidc-provider's per-process Node 20 warning out of the output (see the module)
import './provider/unsupported-runtime-warning.js'
import { randomBytes } from 'node:crypto'
import Koa from 'koa'
import type { Middleware } from 'koa'
import mount from 'koa-mount'
import type Provider from 'oidc-provider'
import { defaults } from '../../config/defaults.js'
import type { AuthStorage } from '../../storage/types.js'
import { ensurePrivateDir } from '../../storage/private-file.js'
import { AccountStore } from './stores/account-store.js'
import { expandResourceGroups } from './provider/resource-groups.js'
import { mergeResources, ResourceStore } from './stores/resource-store.js'
import { GrantAdmin } from './admin/grant-admin.js'
import { UPSTREAM_PENDING_MODEL, UpstreamLogin, UpstreamSessions } from '../delegation/upstream-login.js'
import { upstreamGuard } from './middleware/upstream-guard.js'
import { ConsentStore } from './stores/consent-store.js'
import { defaultPathFallback } from './middleware/default-path-fallback.js'
import { endpointRateLimits } from './middleware/endpoint-rate-limits.js'
import { interactionRoutes } from './interactions/index.js'
import { metadataAliases } from './middleware/metadata-aliases.js'
import { resolveOptions, type AuthorizationServerOptions, type ResolvedOptions } from './options.js'
import { openStorage, type OpenedStorage } from './stores/open-storage.js'
import { providerCookies } from './provider/provider-cookies.js'
import { RateLimiter, type Limiter } from './middleware/rate-limiter.js'
import { RedisRateLimiter } from '../../redis/rate-limiter.js'
import { checkClusterKeys } from './keys/cluster-keys.js'
import { defaultScope } from './provider/default-scope.js'
import { burnFailedCodes } from './provider/burn-failed-codes.js'
import { registrationLimits } from './middleware/registration-limits.js'
import { GrantRevocations } from './stores/grant-revocations.js'
import { jwtIntrospection } from './provider/jwt-introspection.js'
import { refuseFutureAssertions } from './provider/future-assertions.js'
import { issuerHost } from './middleware/issuer-host.js'
import { oauthErrors } from './middleware/oauth-errors.js'
import { retryAfterOn503 } from './middleware/retry-after-on-503.js'
import { ScopePolicy } from './provider/scope-policy.js'
import { registrationCors } from './middleware/registration-cors.js'
import { SecretBox } from './keys/secret-box.js'
import { deriveSecret, loadServerSecrets, secretsDigest } from './keys/server-secrets.js'
import { loadSigningKeys, publicJwk } from './keys/signing-keys.js'
import { startUnusedClientSweeper } from './admin/unused-client-sweeper.js'
import { composeScoped } from './middleware/scoped-middleware.js'
import { refuseStaleDpopProofs } from './provider/dpop-proof-age.js'
import { createProvider } from './provider/create-provider.js'

/** A running authorization server: mount `middleware` in a Koa app, or serve `app` on its own. */
export interface AuthorizationServer {
  /** The issuer identifier, as published in metadata. */
  readonly issuer: string
  /** The oidc-provider instance (events, Grant/Client models, `interactionDetails`). */
  readonly provider: Provider
  /** Koa middleware answering the server's routes and passing everything else on. */
  readonly middleware: Middleware
  /** A Koa app with only the authorization server in it. */
  readonly app: Koa
  /**
   * Whether a verified JWT access token of ours comes from a revoked grant (its `gid` claim): for a
   * resource server in the same process, an O(1) in-memory check (`checkRevocation`).
   */
  isRevoked(claims: Record<string, unknown> | undefined): boolean
  /** Local accounts (`mcp-auth users add` uses this). */
  readonly accounts: AccountStore
  /**
   * Stored protected resources (`mcp-auth resources add` uses this). Read when the server is
   * created: one added later is served from the next start.
   */
  readonly resources: ResourceStore
  readonly storage: AuthStorage
  /**
   * Registers a client as an administrator would (`mcp-auth clients add`): validated like any
   * registration, never expired. Generates `client_id` when absent, and a secret for
   * confidential clients, returned here once and stored encrypted.
   */
  addClient(metadata: Record<string, unknown>): Promise<{ client_id: string; client_secret?: string }>
  /** What was granted to whom, and the end of it (`mcp-auth grants`). */
  readonly grants: GrantAdmin
  /**
   * Registered clients (dynamic, from metadata documents' cache, added by an administrator,
   * configured), without secrets.
   */
  listClients(): Promise<Array<{ client_id: string; client_name?: string; grant_types?: string[]; redirect_uris?: string[]; configured: boolean }>>
  /**
   * Deletes a registered client and ends its grants. A configured client (from the options) cannot
   * be removed here: remove it from the configuration.
   */
  removeClient(clientId: string): Promise<{ removed: boolean; grantsEnded: number }>
  /** Deletes an account and ends its grants. */
  deleteUser(username: string): Promise<{ grantsEnded: number }>
  /** Disables (or enables) an account; disabling ends its grants. */
  disableUser(username: string, disabled?: boolean): Promise<{ grantsEnded: number }>
  /**
   * A 32-byte key of its own for `purpose` (HKDF of the server's data key, the purpose as label):
   * every node holding the deployment's `secrets.json` derives the same one, and no purpose learns
   * another's. For what a resource server beside it seals or signs (DPoP nonces, MCP requestState).
   */
  deriveKey(purpose: string): Buffer
  /** Deletes dynamic registrations that were never used (also runs on a timer). */
  sweepUnusedClients(): Promise<number>
  /**
   * True when the server's storage answers (with `redis`: a PING; embedded storage always does):
   * for a load balancer's health check (`/healthz`).
   */
  health(): Promise<boolean>
  /** Stops timers and listeners, flushes storage and closes the Redis connection (what the server opened itself). */
  close(): Promise<void>
}

/**
 * Creates the MCP authorization server: oidc-provider configured for OAuth 2.1 and MCP, with
 * login and consent pages, metadata at every address MCP clients try, the 2025-03-26 default
 * paths, abuse controls and embedded storage in the data directory. With `redis`, it is one node
 * of several behind a load balancer: storage, rate limits and grant revocations are shared
 * through Redis, and every node must hold the same `jwks.json` and `secrets.json` (it refuses to
 * start otherwise, naming the files to copy).
 *
 * @example
 * const as = await createAuthorizationServer({ issuer: 'http://localhost:4000', dataDir: './data' })
 * as.app.listen(4000, '127.0.0.1')
 * @example
 * // one node of several, all with the same issuer (the public origin) and key files
 * const node = await createAuthorizationServer({ issuer: 'https://auth.example.com', redis: 'redis://10.0.0.5:6379', trustProxy: true })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
export async function createAuthorizationServer(input: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const options = resolveOptions(input)
  await ensurePrivateDir(options.dataDir)
  const opened = await openStorage(options)
  // What close() ends, in reverse order of start; a start that fails ends what it started.
  const closers: Array<() => Promise<void>> = [() => opened.close()]
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer()
  }
  try {
    const server = await assemble(options, opened, (closer) => closers.push(closer))
    return { ...server, health: () => opened.health(), close }
  } catch (error) {
    await close().catch(() => undefined)
    throw error
  }
}

async function assemble(options: ResolvedOptions, opened: OpenedStorage, onClose: (closer: () => Promise<void>) => void): Promise<Omit<AuthorizationServer, 'health' | 'close'>> {
  const { storage, connection } = opened
  const [secrets, jwks] = await Promise.all([
    loadServerSecrets(options.dataDir, opened),
    loadSigningKeys(options.dataDir, { accessTokenAlg: options.accessTokenAlg, shared: connection !== undefined }),
  ])
  if (connection !== undefined) await checkClusterKeys(storage.records, { signingKeys: jwks.fingerprint, secrets: secretsDigest(secrets) }, options.dataDir)
  const accounts = new AccountStore(storage.records)
  const resources = new ResourceStore(storage.records, connection)
  const configuredResources = options.resources
  const storedResources = await resources.list()
  options.resources = mergeResources(configuredResources, storedResources)
  const consents = new ConsentStore(storage.records)
  const revocations = await GrantRevocations.load(storage.records, options.ttl.accessToken, {
    ...(connection !== undefined ? { bus: connection, resyncMs: defaults.authServer.revocationResyncMs } : {}),
  })
  onClose(() => revocations.close())
  const scopes = new ScopePolicy(options.resources, options.clientCredentials.openRegistrationScopes)
  // several nodes: a resource added or removed through any of them (or the CLI) is served by all at once
  const stopWatching = await resources.watch(storedResources, (stored) => scopes.setResources(mergeResources(configuredResources, stored)), defaults.authServer.resourceResyncMs)
  onClose(stopWatching)
  const box = new SecretBox(secrets.dataKey)
  // Set once delegation is wired below; the login prompt asks it (see provider-configuration).
  let upstreamLoginNeeded: ((accountId: string) => Promise<boolean>) | undefined
  // oidc-provider with every patch and decorator of ours, listed in order in provider/create-provider.ts
  const { provider, Adapter, jwtBearer } = createProvider({
    options,
    storage,
    box,
    accounts,
    consents,
    scopes,
    jwks: { keys: jwks.keys },
    cookieKeys: secrets.cookieKeys,
    upstreamLoginNeeded: (accountId) => upstreamLoginNeeded?.(accountId) ?? Promise.resolve(false),
    dpopNonceSecret: deriveSecret(secrets, 'mcp-auth authorization server DPoP nonces'),
  })
  if (jwtBearer !== undefined) onClose(async () => jwtBearer.close())
  revocations.listen(provider)
  // oidc-provider validates configured clients on first use: a bad one must stop the start instead.
  for (const client of options.clients) {
    await provider.Client.validate(client as never).catch((error: { error_description?: string; message: string }) => {
      throw new TypeError(`configured client ${client.client_id}: ${error.error_description ?? error.message}`, { cause: error })
    })
  }

  const clientAdapter = new Adapter('Client')
  const sweeper = await startUnusedClientSweeper({
    provider,
    records: storage.records,
    clients: clientAdapter,
    ttlSeconds: options.registration.unusedClientTtlSeconds,
    intervalMs: defaults.storage.sweepIntervalMs,
    maxSeenUsed: defaults.authServer.registration.maxSeenUsed,
    ...(connection !== undefined ? { bus: connection } : {}),
  })
  onClose(() => sweeper.stop())

  const { mountPath } = options
  const routes = defaults.authServer.routes
  const limits = options.rateLimits
  const windowSeconds = limits === false ? defaults.authServer.rateLimits.windowSeconds : limits.windowSeconds
  // With several nodes the windows live in Redis, so a limit counts every node's requests.
  const limiter = (name: string, limit: number): Limiter =>
    connection === undefined
      ? new RateLimiter({ limit, windowSeconds, maxKeys: defaults.authServer.rateLimits.maxKeys })
      : new RedisRateLimiter({ connection, name, limit, windowSeconds })

  const cookies = providerCookies(secrets.cookieKeys)
  const stack: Middleware[] = [
    retryAfterOn503(),
    oauthErrors(),
    issuerHost({ issuer: options.issuer, trustProxy: options.trustProxy }),
    cookies.enter,
    metadataAliases({ mountPath, maxAgeSeconds: defaults.authServer.metadataMaxAgeSeconds }),
    defaultPathFallback({ mountPath, routes }),
    registrationCors({ registrationPath: `${mountPath}${routes.registration}` }),
    registrationLimits({
      path: `${mountPath}${routes.registration}`,
      maxBodyBytes: defaults.authServer.registration.maxBodyBytes,
      unused: sweeper,
      maxUnusedPerAddress: options.registration.maxUnusedPerAddress,
      maxUnused: options.registration.maxUnused,
    }),
    defaultScope({ authorizationPath: `${mountPath}${routes.authorization}`, defaultResource: options.resources[0]!.uri, scopes }),
    // a login for one endpoint of a server covers its aliases (issue 28, item 2)
    expandResourceGroups({ authorizationPath: `${mountPath}${routes.authorization}`, defaultResource: options.resources[0]!.uri, scopes }),
  ]
  if (limits !== false) {
    stack.push(
      endpointRateLimits({
        registrationPath: `${mountPath}${routes.registration}`,
        tokenPath: `${mountPath}${routes.token}`,
        registrationPerAddress: limiter('registration-address', limits.registrationPerAddress),
        tokenPerAddress: limiter('token-address', limits.tokenPerAddress),
        tokenPerClient: limiter('token-client', limits.tokenPerClient),
        maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
      }),
    )
  }
  const upstreamLogin =
    options.upstream === undefined
      ? undefined
      : new UpstreamLogin({
          upstream: options.upstream,
          callbackUrl: `${options.issuer.href.replace(/\/$/, '')}/upstream/callback`,
          records: storage.records,
          pending: storage.adapter(UPSTREAM_PENDING_MODEL),
          accounts,
        })
  const upstreamSessions = upstreamLogin === undefined ? undefined : new UpstreamSessions(upstreamLogin, storage.records, box, accounts)
  upstreamLoginNeeded = upstreamSessions === undefined ? undefined : (accountId) => upstreamSessions.loginNeeded(accountId)
  if (upstreamSessions !== undefined) {
    stack.push(
      upstreamGuard({
        provider,
        sessions: upstreamSessions,
        adapter: (name) => new Adapter(name),
        tokenPath: `${mountPath}${routes.token}`,
        introspectionPath: `${mountPath}${routes.introspection}`,
        maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
      }),
    )
    // Our revocation and logout cascade upstream.
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => void upstreamSessions.revoke(grantId).catch(() => undefined))
  }
  stack.push(
    interactionRoutes({
      provider,
      accounts,
      consents,
      scopes,
      csrfKey: Buffer.from(secrets.csrfKey, 'base64url'),
      issuer: options.issuer,
      basePath: `${mountPath}${defaults.authServer.interactionPath}`,
      defaultResource: options.resources[0]!.uri,
      branding: options.branding,
      ...(upstreamLogin !== undefined && upstreamSessions !== undefined ? { upstream: upstreamLogin, upstreamSessions } : {}),
      ...(limits !== false ? { loginLimits: { perAddress: limiter('login-address', limits.loginPerAddress), perAccount: limiter('login-account', limits.loginPerAccount) } } : {}),
    }),
    refuseFutureAssertions({
      paths: [routes.token, routes.introspection, routes.revocation].map((route) => `${mountPath}${route}`),
      clockToleranceSeconds: defaults.authServer.clockToleranceSeconds,
      maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
    }),
    refuseStaleDpopProofs({
      tokenPaths: [`${mountPath}${routes.token}`, provider.pathFor('pushed_authorization_request', { mountPath })],
      resourcePaths: [`${mountPath}${routes.userinfo}`],
      iatToleranceSeconds: defaults.authServer.dpop.iatToleranceSeconds,
    }),
    burnFailedCodes(new Adapter('AuthorizationCode'), `${mountPath}${routes.token}`),
    jwtIntrospection({
      path: `${mountPath}${routes.introspection}`,
      issuer: provider.issuer,
      jwks: { keys: jwks.keys.map(publicJwk) },
      revocations,
      clockToleranceSeconds: defaults.authServer.clockToleranceSeconds,
    }),
    mount(mountPath === '' ? '/' : mountPath, provider),
    cookies.leave,
  )
  // Each request enters only the middleware meant for it (see scoped).
  const middleware = composeScoped(stack)

  // the last X-Forwarded-For entry is the one the proxy wrote (it may append to what the client sent)
  const app = new Koa({ proxy: options.trustProxy, maxIpsCount: 1 })
  // the server's own app signs with the server's keys: its requests need no cookie swap
  app.keys = cookies.keygrip as unknown as string[]
  app.use(middleware)

  const grants = new GrantAdmin({
    provider,
    adapter: (name) => new Adapter(name),
    accounts,
    consents,
    ...(upstreamSessions !== undefined ? { endUpstream: (grantId: string) => upstreamSessions.revoke(grantId) } : {}),
  })
  const configuredIds = new Set(options.clients.map((configured) => configured.client_id))
  return {
    issuer: provider.issuer,
    provider,
    middleware,
    app,
    accounts,
    resources,
    storage,
    grants,
    async listClients() {
      const stored = (await clientAdapter.list()).map(({ payload }) => payload)
      const all = [...options.clients.filter((configured) => !stored.some((payload) => payload['client_id'] === configured.client_id)), ...stored]
      return all.map((payload) => ({
        client_id: String(payload['client_id']),
        ...(typeof payload['client_name'] === 'string' ? { client_name: payload['client_name'] } : {}),
        ...(Array.isArray(payload['grant_types']) ? { grant_types: payload['grant_types'] as string[] } : {}),
        ...(Array.isArray(payload['redirect_uris']) ? { redirect_uris: payload['redirect_uris'] as string[] } : {}),
        configured: configuredIds.has(String(payload['client_id'])),
      }))
    },
    async removeClient(clientId) {
      if (configuredIds.has(clientId)) throw new Error(`${clientId} is a configured client: remove it from the configuration instead`)
      const grantsEnded = await grants.revokeAll({ clientId })
      const found = (await clientAdapter.find(clientId)) !== undefined
      if (found) await clientAdapter.destroy(clientId)
      return { removed: found, grantsEnded }
    },
    async deleteUser(username) {
      const grantsEnded = await grants.revokeAll({ username })
      await accounts.delete(username)
      return { grantsEnded }
    },
    async disableUser(username, disabled = true) {
      await accounts.setDisabled(username, disabled)
      return { grantsEnded: disabled ? await grants.revokeAll({ username }) : 0 }
    },
    async addClient(metadata) {
      const client: Record<string, unknown> = { client_id: randomBytes(24).toString('base64url'), client_id_issued_at: Math.floor(Date.now() / 1000), ...metadata }
      const method = client['token_endpoint_auth_method'] ?? 'client_secret_basic'
      if ((method === 'client_secret_basic' || method === 'client_secret_post') && client['client_secret'] === undefined) {
        client['client_secret'] = randomBytes(32).toString('base64url')
      }
      await provider.Client.validate(client as never)
      const clientId = String(client['client_id'])
      if ((await provider.Client.find(clientId)) !== undefined) throw new Error(`a client with client_id ${clientId} already exists`)
      await clientAdapter.upsert(clientId, client)
      return { client_id: clientId, ...(typeof client['client_secret'] === 'string' ? { client_secret: client['client_secret'] } : {}) }
    },
    isRevoked: (claims) => revocations.isRevoked(claims?.['gid']),
    deriveKey: (purpose) => deriveSecret(secrets, purpose),
    sweepUnusedClients: () => sweeper.sweep(),
  }
}
