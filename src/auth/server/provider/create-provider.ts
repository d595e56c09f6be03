import type { Log } from '../../../observe/log.js'
import Provider from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { AuthStorage } from '../../../storage/types.js'
import type { PrivateJwk } from '../keys/signing-keys.js'
import type { SecretBox } from '../keys/secret-box.js'
import type { ResolvedOptions } from '../options.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import { createAdapterFactory } from './adapter-factory.js'
import { bindClientSecretMethod } from './client-auth-method.js'
import { reuseUnchangedClients } from './client-reuse.js'
import { refuseBlockedClients } from './blocked-client-refusal.js'
import { registerJwtBearerGrant, type JwtBearerGrant } from './jwt-bearer-grant.js'
import { providerConfiguration } from './provider-configuration.js'
import { allowLoopbackRedirectsOnAnyPort } from './redirect-policy.js'
import { registeredScopeCapsClientCredentialsOnly } from './registered-scope-policy.js'
import { atomicReplayDetection } from './replay-detection.js'
import type { ScopePolicy } from './scope-policy.js'

/** What {@link createProvider} builds oidc-provider from. */
export interface CreateProviderDeps {
  options: ResolvedOptions
  storage: AuthStorage
  /** Seals client secrets at rest (the Client adapter). */
  box: SecretBox
  accounts: AccountStore
  consents: ConsentStore
  scopes: ScopePolicy
  /** The signing keys (private JWKs). */
  jwks: { keys: PrivateJwk[] }
  /** Keys of oidc-provider's signed cookies (newest first). */
  cookieKeys: string[]
  /** 32 bytes every node shares: the key of oidc-provider's DPoP nonces. */
  dpopNonceSecret: Buffer
  /** With delegated login: whether the account must sign in at the upstream again (the login prompt asks it). */
  upstreamLoginNeeded?: (accountId: string) => Promise<boolean>
  /** Whether an administrator blocked the client (an in-memory lookup: BlockedClients). */
  isBlocked?: (clientId: string) => boolean
  /** The server's log (the JWT bearer grant's refusals, a trusted issuer out of reach). */
  log?: Log
}

/** oidc-provider with our patches, and what the rest of the server takes from it. */
export interface CreatedProvider {
  provider: Provider
  /** oidc-provider's `adapter` (our decorators over the storage): `new Adapter(name)` is the one for model `name`. */
  Adapter: ReturnType<typeof createAdapterFactory>
  /** The JWT bearer grant when configured: `close()` it with the server. */
  jwtBearer?: JwtBearerGrant
}

/**
 * oidc-provider, configured and patched for an MCP authorization server. Every change we make to
 * oidc-provider's behaviour is applied here, in this order, one line each; the comment says what
 * it changes · which oidc-provider internal it relies on · why it sits where it does. Each internal
 * is asserted against the installed oidc-provider by test/auth/server/provider/create-provider.test.ts,
 * which fails when an upgrade moves one.
 *
 * Applied elsewhere, and relying on oidc-provider too (listed here so one file names them all):
 * - the Koa stack (create-authorization-server): retryAfterOn503 (middleware/retry-after-on-503.ts:
 *   `Retry-After` on the 503 the adapters' outage rewrite makes), defaultScope, expandResourceGroups
 *   (resource-groups.ts: `resolve_resource.js`, `process_response_types.js`), refuseFutureAssertions,
 *   refuseStaleDpopProofs (oidc-provider checks `iat` only without `exp` / without a nonce),
 *   burnFailedCodes (reads the codes codeAdapter saw looked up in a token request), jwtIntrospection
 *   (reads `ctx.oidc.client` and `ctx.oidc.params` after oidc-provider answered);
 * - the current request (oidc-context.ts: `Provider.ctx`, oidc-provider's AsyncLocalStorage, and
 *   `ctx.oidc`) read by codeAdapter and refreshTokenAdapter (route, `grant_type`,
 *   `entities.RotatedRefreshToken`), the registered-scope getter (route), compareClientSecret (the
 *   Authorization header), the configuration's `getResourceServerInfo` (route, `grant_type`, writes
 *   `params.scope`), its logout page (`client`) and login check (`session.accountId`), the JWT bearer
 *   grant (`client`, `params`) and the unused-client sweeper (`client`, on oidc-provider's events);
 * - events: GrantRevocations.listen (`grant.revoked`), the unused-client sweeper
 *   (`registration_create.success`, `authorization.success`, `grant.success`…).
 */
export function createProvider(deps: CreateProviderDeps): CreatedProvider {
  const { options, storage, scopes } = deps
  const issuer = options.issuer.href.replace(/\/$/, '')

  // 1. The `adapter` option: per model, outageAs503 (a storage outage → 503 temporarily_unavailable)
  //    · hashedIdAdapter (credential models stored under a SHA-256 of the id) · then one per model:
  //    clientAdapter (Client: secrets sealed), refreshTokenAdapter (RefreshToken: grace retry,
  //    DPoP-only resources), codeAdapter (AuthorizationCode: atomic consume, remembers the looked-up
  //    code) · relies on `new Adapter(name)` per model and its method names, `Provider.ctx` · first:
  //    the configuration and ReplayDetection below take it.
  const Adapter = createAdapterFactory(storage, {
    box: deps.box,
    reuseGraceSeconds: options.refreshTokens.reuseGraceSeconds,
    dpopRequired: (uri) => scopes.resource(uri)?.requireDpop === true,
  })
  // 2. The configuration (provider-configuration.ts): every decision oidc-provider leaves to us ·
  //    relies on the documented options, `interactionPolicy`, `errors` · the constructor reads it once.
  const provider = new Provider(
    issuer,
    providerConfiguration(options, {
      adapter: Adapter,
      jwks: deps.jwks,
      cookieKeys: deps.cookieKeys,
      accounts: deps.accounts,
      consents: deps.consents,
      scopes,
      ...(deps.upstreamLoginNeeded !== undefined ? { upstreamLoginNeeded: deps.upstreamLoginNeeded } : {}),
      dpopNonceSecret: deps.dpopNonceSecret,
    }),
  )
  // 3. Proxy headers and cookie keys of oidc-provider's own Koa app · `provider.proxy`, `provider.keys`.
  provider.proxy = options.trustProxy
  provider.keys = deps.cookieKeys
  // 4. Loopback redirect URIs match on any port for every client, not only native ones (RFC 8252 §7.3)
  //    · replaces `Client.prototype.redirectUriAllowed(value)` · a prototype method: order-free.
  allowLoopbackRedirectsOnAnyPort(provider.Client as never)
  // 5. Replay detection is one atomic claim in the store (DPoP proofs, client assertions, JWT bearer
  //    assertions) · replaces `ReplayDetection.unique(iss, jti, exp)`, keeps its record id · after 1.
  atomicReplayDetection(provider, new Adapter('ReplayDetection'))
  // 6. A client's registered `scope` caps client_credentials only, not user grants · wraps the static
  //    `Client.find` (every client load), redefines `client.scope` as a getter reading the route
  //    (`Provider.ctx`) · inside 7.
  registeredScopeCapsClientCredentialsOnly(provider)
  // 7. An unchanged dynamic client is not rebuilt on each request · wraps the static `Client.find`
  //    again · outermost: a kept Client is handed back as the wrappers below left it, with no step
  //    through them.
  reuseUnchangedClients(provider, storage.adapter('Client'))
  // 7b. A blocked client gets nothing (unauthorized_client, "blocked") · wraps the static
  //    `Client.find` once more · outermost of all: a client 7 kept is refused too.
  if (deps.isBlocked !== undefined) refuseBlockedClients(provider, deps.isBlocked)
  // 8. The JWT bearer grant (RFC 7523 §2.1), when configured · `registerGrantType(name, handler,
  //    params, dupes)`, `lib/helpers/validate_dpop.js`, the token models · before any client is
  //    validated: a client's `grant_types` may name it only once it is registered.
  const jwtBearer =
    options.jwtBearer === undefined
      ? undefined
      : registerJwtBearerGrant({
          provider,
          options: options.jwtBearer,
          audiences: [issuer, `${issuer}${defaults.authServer.routes.token}`],
          accounts: deps.accounts,
          scopes,
          ...(deps.log !== undefined ? { log: deps.log } : {}),
          accessTokenAlg: options.accessTokenAlg,
          defaultResource: options.resources[0]!.uri,
        })
  // 9. A client secret goes where the client registered it (Basic header or form) · wraps
  //    `Client.prototype.compareClientSecret(actual)`, reads `clientAuthMethod` and the request
  //    (`Provider.ctx`) · a prototype method: order-free.
  bindClientSecretMethod(provider)
  return { provider, Adapter, ...(jwtBearer !== undefined ? { jwtBearer } : {}) }
}
