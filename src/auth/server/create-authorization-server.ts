// first: keeps oidc-provider's per-process Node 20 warning out of the output (see the module)
import type { IncomingMessage } from 'node:http'
import type { Log } from '../../observe/log.js'
import { logError } from '../../observe/log-error.js'
import { Observer } from '../../observe/observer.js'
import type { AuditTrail } from '../../observe/audit-event.js'
import { FileAuditTrail } from '../../observe/file-audit-trail.js'
import './provider/unsupported-runtime-warning.js'
import Koa from 'koa'
import type { Middleware } from 'koa'
import type Provider from 'oidc-provider'
import { defaults } from '../../config/defaults.js'
import type { AuthStorage } from '../../storage/types.js'
import { InProcessMessageBus } from '../../storage/message-bus.js'
import { ensurePrivateDir } from '../../storage/private-file.js'
import { AccountStore } from './stores/account-store.js'
import { ACCOUNT_VALUES_KEY_PURPOSE, AccountValuesStore } from './stores/account-values-store.js'
import { mergeResources, ResourceStore, type StoredResource } from './stores/resource-store.js'
import { builtInResourceIds, builtInResources } from './admin/built-in-resources.js'
import type { GrantAdmin } from './admin/grant-admin.js'
import type { ClientSummary } from './admin/client-admin.js'
import { createAdministration, type Administration } from './admin/create-administration.js'
import { AdminAuthority } from './admin-api/admin-caller.js'
import { metricsEndpoint } from './admin-api/metrics-endpoint.js'
import { adminApi } from './admin-api/admin-api.js'
import { PasswordLinks } from './stores/password-links.js'
import { consoleClient, consoleRedirectUris } from './console/console-client.js'
import { consoleRoutes } from './console/console-routes.js'
import { ConsoleAuth } from './console/console-auth.js'
import { ConsoleTokens } from './console/console-tokens.js'
import { SealedCookies } from './console/sealed-cookies.js'
import { FirstAdministrator } from './console/first-administrator.js'
import type { Account } from './stores/account-store.js'
import { BearerAuth } from '../resource/bearer-auth.js'
import { createJwtVerifier } from '../resource/jwt-verifier.js'
import { publicJwk } from './keys/signing-keys.js'
import { RedisDpopReplayCache } from '../../redis/dpop-replay-cache.js'
import { UPSTREAM_PENDING_MODEL, UpstreamLogin, UpstreamSessions } from '../delegation/upstream-login.js'
import { ConsentStore } from './stores/consent-store.js'
import { BlockedClients } from './stores/blocked-clients.js'
import { CLIENT_LAST_USE_MODEL, ClientLastUse } from './admin/client-last-use.js'
import { resolveOptions, sharedIdentifiers, type AuthorizationServerOptions, type ResolvedOptions } from './options.js'
import { openStorage, type OpenedStorage } from './stores/open-storage.js'
import { providerCookies } from './provider/provider-cookies.js'
import { RateLimiter, type Limiter } from './middleware/rate-limiter.js'
import { RedisRateLimiter } from '../../redis/rate-limiter.js'
import { checkClusterKeys } from './keys/cluster-keys.js'
import { GrantRevocations } from './stores/grant-revocations.js'
import { grantRevocationCheck } from './stores/grant-revocation-check.js'
import type { RevocationCheck } from '../resource/revocation-check.js'
import { ScopePolicy } from './provider/scope-policy.js'
import { SecretBox } from './keys/secret-box.js'
import { deriveSecret, loadServerSecrets, secretsDigest } from './keys/server-secrets.js'
import { principalTokenSigner } from './keys/principal-token-signer.js'
import { loadSigningKeys } from './keys/signing-keys.js'
import { startUnusedClientSweeper } from './admin/unused-client-sweeper.js'
import { composeScoped } from './middleware/scoped-middleware.js'
import { authorizationServerStack } from './middleware/authorization-server-stack.js'
import { createProvider } from './provider/create-provider.js'
import type { ChildDirectory } from './admin/child-directory.js'
import { KeyAdmin } from './admin/key-admin.js'
import { AdminAudit } from './admin/admin-audit.js'
import { auditMetadataDocumentClient, auditProviderEvents } from './provider/audit-provider-events.js'
import { NodeRegistry } from './admin/node-registry.js'
import { storageState } from './admin/storage-state.js'
import { keysView, stateView } from './admin-api/server-views.js'
import type { AdminServices } from './admin-api/admin-context.js'

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
  /**
   * The same check as a resource server's `checkRevocation` (`createProtectedMcpApp`,
   * `createJwtVerifier`), built once: the bearer check calls it straight, with no step through here.
   */
  readonly revocationCheck: RevocationCheck
  /** Local accounts (`mcp-auth users add` uses this). */
  readonly accounts: AccountStore
  /**
   * Values an operator set per account (`mcp-auth user-env`), sealed, keyed by subject (the
   * token's `sub`): the gateway hands them to that account's children as environment variables.
   */
  readonly accountValues: AccountValuesStore
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
   * Registered clients (dynamic, known by their metadata documents, added by an administrator,
   * configured), each with its origin, last use and whether it is blocked; without secrets.
   */
  listClients(): Promise<ClientSummary[]>
  /**
   * Deletes a registered client and ends its grants. A configured client (from the options) cannot
   * be removed here: remove it from the configuration.
   */
  removeClient(clientId: string): Promise<{ removed: boolean; grantsEnded: number }>
  /** Deletes an account, its values ({@link accountValues}), and ends its grants. */
  deleteUser(username: string): Promise<{ grantsEnded: number }>
  /** Disables (or enables) an account; disabling ends its grants. */
  disableUser(username: string, disabled?: boolean): Promise<{ grantsEnded: number }>
  /**
   * A 32-byte key of its own for `purpose` (HKDF of the server's data key, the purpose as label):
   * every node holding the deployment's `secrets.json` derives the same one, and no purpose learns
   * another's. For what a resource server beside it seals or signs (DPoP nonces, MCP requestState).
   */
  deriveKey(purpose: string): Buffer
  /**
   * Signs a principal token (JOSE `typ` `mcp-principal+jwt`, never an access token) with the
   * current access-token signing key, `iss` set to {@link issuer}: what the gateway sends an
   * upstream HTTP server about whom a request is for, verifiable at our JWKS. The caller sets
   * every other claim (`aud`, `sub`, `iat`, `exp`, `jti`, ...).
   */
  signPrincipalToken(claims: Record<string, unknown>): Promise<string>
  /** Every administration operation (the admin API's and the console's core). */
  readonly administration: Administration
  /** Who may administer: the admin API's token check (audience, scope, revocation), role and sign-in age. */
  readonly adminAuthority: AdminAuthority
  /**
   * On a store without an administrator, the one-time setup link a start prints (made
   * first-writer-wins: of nodes starting together one gets `link`, the others `printed`, and a
   * later start gets a new link only once the last expired). `present`: there is one already.
   */
  firstAdministrator(): Promise<{ kind: 'present' } | { kind: 'link'; url: string; expiresAt: number } | { kind: 'printed'; at: number; expiresAt: number }>
  /** Deletes dynamic registrations that were never used (also runs on a timer). */
  sweepUnusedClients(): Promise<number>
  /**
   * True when the server's storage answers (with `redis`: a PING; embedded storage always does):
   * for a load balancer's health check (`/healthz`).
   */
  health(): Promise<boolean>
  /** Stops timers and listeners, flushes storage and closes the Redis connection (what the server opened itself). */
  close(): Promise<void>
  /** Where it reports (the one given, or a quiet one): its log, audit trail, metrics and spans. */
  readonly observer: Observer
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
  const observer = input.observer ?? Observer.quiet()
  await ensurePrivateDir(options.dataDir)
  const opened = await openStorage(options)
  // What close() ends, in reverse order of start; a start that fails ends what it started.
  const closers: Array<() => Promise<void>> = [() => opened.close()]
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer()
  }
  try {
    // the audit trail beside the store: a file in the data directory, or the deployment's stream
    if (observer.trail === undefined) {
      const trail = await openAuditTrail(opened, options.dataDir, observer.log)
      observer.attachTrail(trail)
      closers.push(() => trail.close())
    }
    const server = await assemble(options, opened, (closer) => closers.push(closer), input.children, observer, input.observer?.log)
    // Given an observer: a client's mistake one line, our bug a stack, storage away a warning, in its
    // log. Without one, Koa's default stays (a stack on stderr): a library caller's bug never goes unseen.
    if (input.observer !== undefined) {
      const log = input.observer.log
      server.app.on('error', (error: unknown, ctx?: { req?: IncomingMessage }) => logError(log, error, ctx?.req))
      server.provider.on('server_error', (ctx: { req?: IncomingMessage } | undefined, error: unknown) => logError(log, error, ctx?.req, 'authorization server error'))
    }
    return { ...server, health: () => opened.health(), close, observer }
  } catch (error) {
    await close().catch(() => undefined)
    throw error
  }
}

async function openAuditTrail(opened: OpenedStorage, dataDir: string, log: Observer['log']): Promise<AuditTrail> {
  if (opened.connection === undefined) return new FileAuditTrail({ dataDir, log })
  const { RedisAuditTrail } = await import('../../redis/redis-audit-trail.js')
  return new RedisAuditTrail(opened.connection, { log })
}

async function assemble(
  options: ResolvedOptions,
  opened: OpenedStorage,
  onClose: (closer: () => Promise<void>) => void,
  children: ChildDirectory | undefined,
  observer: Observer,
  log: Log | undefined,
): Promise<Omit<AuthorizationServer, 'health' | 'close' | 'observer'>> {
  const { storage, connection } = opened
  const [secrets, jwks] = await Promise.all([
    loadServerSecrets(options.dataDir, opened),
    loadSigningKeys(options.dataDir, { accessTokenAlg: options.accessTokenAlg, shared: connection !== undefined }),
  ])
  const fingerprints = { signingKeys: jwks.fingerprint, secrets: secretsDigest(secrets) }
  if (connection !== undefined) await checkClusterKeys(storage.records, fingerprints, options.dataDir)
  // this node in the deployment's list (on Redis: a record with a heartbeat), for GET /state, /keys, /children
  const nodes = await NodeRegistry.start({
    records: storage.records,
    keys: fingerprints,
    ...(connection !== undefined ? { bus: connection } : {}),
    ...(children !== undefined ? { children } : {}),
  })
  onClose(() => nodes.stop())
  const keyAdmin = new KeyAdmin({
    records: storage.records,
    dataDir: options.dataDir,
    accessTokenAlg: options.accessTokenAlg,
    shared: connection !== undefined,
    audit: new AdminAudit(observer),
  })
  const accounts = new AccountStore(storage.records)
  const accountValues = new AccountValuesStore(storage, deriveSecret(secrets, ACCOUNT_VALUES_KEY_PURPOSE))
  // one process: its own bus, so a resource the admin API adds is served at once here too
  const resources = new ResourceStore(storage.records, connection ?? new InProcessMessageBus())
  const configuredResources = options.resources
  const storedResources = await resources.list()
  // the server's own (the admin API, people's page) after everything else: never the default
  const builtIn = builtInResources(options.issuer)
  const served = (stored: readonly StoredResource[]) => [
    ...mergeResources(configuredResources, stored).filter((resource) => !builtIn.some((own) => sharedIdentifiers(own, resource).length > 0)),
    ...builtIn,
  ]
  options.resources = served(storedResources)
  const consents = new ConsentStore(storage.records)
  // once per store: consents from before the per-account and per-client indexes get indexed
  await consents.ensureIndexed()
  const blocked = await BlockedClients.load(storage.records, connection !== undefined ? { bus: connection, resyncMs: defaults.authServer.admin.blockedClientsResyncMs } : {})
  onClose(() => blocked.close())
  const revocations = await GrantRevocations.load(storage.records, options.ttl.accessToken, {
    ...(connection !== undefined ? { bus: connection, resyncMs: defaults.authServer.revocationResyncMs } : {}),
  })
  onClose(() => revocations.close())
  const scopes = new ScopePolicy(options.resources, options.clientCredentials.openRegistrationScopes, builtInResourceIds(options.issuer))
  // several nodes: a resource added or removed through any of them (or the CLI) is served by all at once
  const stopWatching = await resources.watch(storedResources, (stored) => scopes.setResources(served(stored)), defaults.authServer.resourceResyncMs)
  onClose(stopWatching)
  const box = new SecretBox(secrets.dataKey)
  // the console: a configured client of the server itself, its secret derived (every node has it)
  const consoleSecret = deriveSecret(secrets, defaults.authServer.admin.console.secretPurpose)
  options.clients = [
    ...options.clients.filter((client) => client.client_id !== defaults.authServer.admin.console.clientId),
    consoleClient(options.issuer, options.mountPath, consoleSecret),
  ]
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
    isBlocked: (clientId) => blocked.isBlocked(clientId),
    ...(log !== undefined ? { log } : {}),
  })
  if (jwtBearer !== undefined) onClose(async () => jwtBearer.close())
  // tokens issued and refused, grants revoked, refresh reuse, replays, registrations: the audit trail
  auditProviderEvents(provider, observer)
  const audit = new AdminAudit(observer)
  revocations.listen(provider)
  const lastUse = new ClientLastUse(new Adapter(CLIENT_LAST_USE_MODEL), {
    intervalMs: defaults.authServer.admin.clientLastUseIntervalSeconds * 1000,
    max: defaults.authServer.admin.keptClientLastUses,
    retentionSeconds: defaults.authServer.admin.clientLastUseRetentionSeconds,
  })
  lastUse.listen(provider, auditMetadataDocumentClient(observer))
  // oidc-provider validates configured clients on first use: a bad one must stop the start instead.
  for (const client of options.clients) {
    await provider.Client.validate(client as never).catch((error: { error_description?: string; message: string }) => {
      throw new TypeError(`configured client ${client.client_id}: ${error.error_description ?? error.message}`, { cause: error })
    })
  }

  const principalSigner = principalTokenSigner(jwks.keys, provider.issuer, options.accessTokenAlg)
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

  const limits = options.rateLimits
  const windowSeconds = limits === false ? defaults.authServer.rateLimits.windowSeconds : limits.windowSeconds
  // With several nodes the windows live in Redis, so a limit counts every node's requests.
  const limiter = (name: string, limit: number): Limiter =>
    connection === undefined
      ? new RateLimiter({ limit, windowSeconds, maxKeys: defaults.authServer.rateLimits.maxKeys })
      : new RedisRateLimiter({ connection, name, limit, windowSeconds })

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
    // Our revocation and logout cascade upstream.
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => void upstreamSessions.revoke(grantId).catch(() => undefined))
  }

  const cookies = providerCookies(secrets.cookieKeys)
  const revocationCheck = grantRevocationCheck(revocations, blocked)
  const passwordLinks = new PasswordLinks((name) => new Adapter(name))
  const admin = createAdministration({
    provider,
    adapter: (name) => new Adapter(name),
    clients: clientAdapter,
    configuredClients: options.clients,
    accounts,
    consents,
    blocked,
    lastUse,
    passwordLinks,
    ...(upstreamSessions !== undefined ? { endUpstream: (grantId: string) => upstreamSessions.revoke(grantId) } : {}),
    audit,
  })
  const deleteAccount = async (account: Account, rev?: number): Promise<{ grantsEnded: number }> => {
    const ended = await admin.accounts.delete(account.username, rev)
    await accountValues.deleteSubject(account.id)
    return ended
  }
  const ownIds = builtInResourceIds(options.issuer)
  // the server's own resources check their tokens as any resource does: our keys, the audience,
  // the scope, the grant's revocation, DPoP when bound (proofs remembered in Redis on several nodes)
  const ownResourceBearer = (resource: string, scope: string): BearerAuth =>
    new BearerAuth({
      verifier: createJwtVerifier({
        issuer: provider.issuer,
        audience: resource,
        jwks: { keys: jwks.keys.map(publicJwk) },
        algorithms: [options.accessTokenAlg],
        checkRevocation: revocationCheck,
      }),
      resourceMetadataUrl: `${options.issuer.origin}/.well-known/oauth-protected-resource${new URL(resource).pathname}`,
      requiredScopes: [scope],
      dpop: connection === undefined ? {} : { replayCache: new RedisDpopReplayCache(connection) },
    })
  const adminAuthority = new AdminAuthority({
    bearer: ownResourceBearer(ownIds.admin, defaults.authServer.admin.scope),
    accounts,
    loginAge: options.admin,
    // a blocked client's client_credentials tokens are refused here at once (it gets no new one either)
    clientMayAct: async (clientId) => !blocked.isBlocked(clientId) && (await provider.Client.find(clientId)) !== undefined,
    // the clock read at each check, as the token verification reads it (a test that moves one moves both)
    now: () => Date.now(),
  })
  const adminServices: AdminServices = {
    administration: admin,
    accounts,
    accountValues,
    resources,
    configuredResources,
    authority: adminAuthority,
    issuer: options.issuer,
    deleteAccount,
    nodes,
    keys: keyAdmin,
    storageState: () => storageState(storage, connection),
    auditTrail: () => observer.trail,
  }
  const adminApiMiddleware = adminApi({ path: `${options.mountPath}${defaults.authServer.admin.apiPath}`, url: ownIds.admin, services: adminServices })
  const consoleUris = consoleRedirectUris(options.issuer, options.mountPath)
  const firstAdministrator = new FirstAdministrator({ adapter: (name) => new Adapter(name), accounts, ttlSeconds: defaults.authServer.admin.setupLinkTtlSeconds })
  const consoleMiddleware = consoleRoutes({
    server: { state: () => stateView(adminServices), keys: () => keysView(adminServices) },
    auditTrail: () => observer.trail,
    issuer: options.issuer,
    mountPath: options.mountPath,
    administration: admin,
    accounts,
    authority: adminAuthority,
    accountBearer: ownResourceBearer(ownIds.account, defaults.authServer.admin.accountScope),
    resources,
    configuredResources,
    passwordLinks,
    deleteAccount,
    csrfKey: deriveSecret(secrets, 'mcp-auth console forms'),
    ...(options.branding !== undefined ? { branding: options.branding } : {}),
    auth: new ConsoleAuth({
      tokens: new ConsoleTokens({ provider, issuer: options.issuer, clientId: defaults.authServer.admin.console.clientId, clientSecret: consoleSecret.toString('base64url') }),
      cookies: new SealedCookies(new SecretBox(deriveSecret(secrets, defaults.authServer.admin.console.cookiePurpose)), options.issuer.protocol === 'https:'),
      authorizationEndpoint: `${options.issuer.origin}${options.mountPath}${defaults.authServer.routes.authorization}`,
      endSessionEndpoint: `${options.issuer.origin}${options.mountPath}${defaults.authServer.routes.end_session}`,
      clientId: defaults.authServer.admin.console.clientId,
    }),
    firstAdministrator,
    surfaces: {
      admin: {
        basePath: `${options.mountPath}${defaults.authServer.admin.consolePath}`,
        cookie: defaults.authServer.admin.console.sessionCookie,
        resource: ownIds.admin,
        scope: defaults.authServer.admin.scope,
        redirectUri: consoleUris.admin,
      },
      account: {
        basePath: `${options.mountPath}${defaults.authServer.admin.accountPath}`,
        cookie: defaults.authServer.admin.console.accountCookie,
        resource: ownIds.account,
        scope: defaults.authServer.admin.accountScope,
        redirectUri: consoleUris.account,
      },
    },
  })
  // Each request enters only the middleware meant for it (see scoped).
  const middleware = composeScoped(
    authorizationServerStack({
      adminApi: adminApiMiddleware,
      metrics: metricsEndpoint({ path: `${options.mountPath}${defaults.observe.metrics.path}`, observer, authority: adminAuthority }),
      blocked,
      console: consoleMiddleware,
      options,
      provider,
      accounts,
      consents,
      scopes,
      revocations,
      unusedClients: sweeper,
      cookies,
      signingKeys: jwks.keys,
      csrfKey: Buffer.from(secrets.csrfKey, 'base64url'),
      adapter: (name) => new Adapter(name),
      limiter,
      observer,
      ...(upstreamLogin !== undefined && upstreamSessions !== undefined ? { upstream: { login: upstreamLogin, sessions: upstreamSessions } } : {}),
    }),
  )

  // the last X-Forwarded-For entry is the one the proxy wrote (it may append to what the client sent)
  const app = new Koa({ proxy: options.trustProxy, maxIpsCount: 1 })
  // the server's own app signs with the server's keys: its requests need no cookie swap
  app.keys = cookies.keygrip as unknown as string[]
  app.use(middleware)

  return {
    issuer: provider.issuer,
    provider,
    middleware,
    app,
    accounts,
    accountValues,
    resources,
    storage,
    grants: admin.grants,
    listClients: () => admin.clients.list(),
    removeClient: (clientId) => admin.clients.remove(clientId),
    async deleteUser(username) {
      return deleteAccount(await admin.accounts.get(username))
    },
    administration: admin,
    adminAuthority,
    disableUser: (username, disabled) => admin.accounts.disable(username, disabled),
    addClient: (metadata) => admin.clients.add(metadata),
    isRevoked: (claims) => revocations.isRevoked(claims?.['gid']),
    revocationCheck,
    deriveKey: (purpose) => deriveSecret(secrets, purpose),
    signPrincipalToken: (claims) => principalSigner.sign(claims),
    sweepUnusedClients: () => sweeper.sweep(),
    async firstAdministrator() {
      const notice = await firstAdministrator.announce()
      if (notice.kind !== 'link') return notice
      return { kind: 'link', url: `${options.issuer.origin}${options.mountPath}${defaults.authServer.admin.consolePath}/setup/${notice.token}`, expiresAt: notice.expiresAt }
    },
  }
}
