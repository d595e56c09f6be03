import type { Middleware } from 'koa'
import type { Observer } from '../../../observe/observer.js'
import mount from 'koa-mount'
import type Provider from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { OidcAdapter } from '../../../storage/types.js'
import type { UpstreamLogin, UpstreamSessions } from '../../delegation/upstream-login.js'
import type { UnusedClients } from '../admin/unused-client-sweeper.js'
import { interactionRoutes } from '../interactions/index.js'
import { type PrivateJwk, publicJwk } from '../keys/signing-keys.js'
import type { ResolvedOptions } from '../options.js'
import { burnFailedCodes } from '../provider/burn-failed-codes.js'
import { defaultScope } from '../provider/default-scope.js'
import { refuseStaleDpopProofs } from '../provider/dpop-proof-age.js'
import { refuseFutureAssertions } from '../provider/future-assertions.js'
import { jwtIntrospection } from '../provider/jwt-introspection.js'
import { expandResourceGroups } from '../provider/resource-groups.js'
import type { ScopePolicy } from '../provider/scope-policy.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import type { GrantRevocations } from '../stores/grant-revocations.js'
import { defaultPathFallback } from './default-path-fallback.js'
import { endpointRateLimits } from './endpoint-rate-limits.js'
import { issuerHost } from './issuer-host.js'
import { metadataAliases } from './metadata-aliases.js'
import { oauthErrors } from './oauth-errors.js'
import type { Limiter } from './rate-limiter.js'
import { registrationCors } from './registration-cors.js'
import { registrationLimits } from './registration-limits.js'
import { routeTemplate } from './route-template.js'
import { retryAfterOn503 } from './retry-after-on-503.js'
import { tokenSpan } from './token-span.js'
import { upstreamGuard } from './upstream-guard.js'

/** What the authorization server's Koa stack is built from: all of it made before, by create-authorization-server. */
export interface AuthorizationServerStackDeps {
  options: ResolvedOptions
  /** The admin API (its metadata, its document, its operations behind the admin token check). */
  adminApi?: Middleware
  /** `GET /metrics` behind the admin scope (see metricsEndpoint). */
  metrics?: Middleware
  /** Clients an administrator blocked: introspection answers their tokens inactive. */
  blocked?: { isBlocked(clientId: string): boolean }
  /** The console's pages (`/admin` but its API, `/account`, the one-time pages). */
  console?: Middleware
  provider: Provider
  accounts: AccountStore
  consents: ConsentStore
  scopes: ScopePolicy
  revocations: GrantRevocations
  /** The unused-registration bookkeeping of the sweeper (the registration caps count it). */
  unusedClients: UnusedClients
  /** The cookie swap around the server's requests (see providerCookies). */
  cookies: { enter: Middleware; leave: Middleware }
  /** The server's signing keys: their public halves verify JWTs at introspection. */
  signingKeys: readonly PrivateJwk[]
  /** The interaction forms' CSRF key. */
  csrfKey: Buffer
  /** An adapter of the provider's models, by model name. */
  adapter: (name: string) => OidcAdapter
  /** A rate limiter by name (in memory; in Redis with several nodes, so it counts every node's requests). */
  limiter: (name: string, limit: number) => Limiter
  /** Delegated login to an upstream provider, when configured. */
  upstream?: { login: UpstreamLogin; sessions: UpstreamSessions }
  /** Where the sign-in and consent steps record their audit events. */
  observer?: Observer
}

/**
 * The authorization server's Koa stack, in request order: what each request passes through on its
 * way to oidc-provider, and why each sits where it does. Most are scoped to their paths, so
 * `composeScoped` lets a request enter only the ones meant for it. The table is the order: an
 * entry sees the request as the entries above it left it (a path rewritten, a body read and
 * replayed, an error to answer).
 */
export function authorizationServerStack(deps: AuthorizationServerStackDeps): Middleware[] {
  const { options, provider, scopes, limiter, upstream } = deps
  const { mountPath } = options
  const routes = defaults.authServer.routes
  const limits = options.rateLimits
  return [
    routeTemplate({ mountPath }), // the route template and the caller, for the access line (never the raw path)
    // outermost: every 503 below it (oidc-provider's own, with its storage away, and ours) says when to come back
    retryAfterOn503(),
    // the one answer to an OAuthError thrown by anything below (storage away: 503); oidc-provider answers its own
    oauthErrors(),
    // refuses a Host that is not the issuer's before anything reads it, and shows oidc-provider the issuer's host and scheme
    issuerHost({ issuer: options.issuer, trustProxy: options.trustProxy }),
    // the admin API: bearer tokens only (no cookie), its own problem-details answers; off the token path
    ...(deps.adminApi !== undefined ? [deps.adminApi] : []),
    // the metrics, for an administrator's token only (404 while metrics are off)
    ...(deps.metrics !== undefined ? [deps.metrics] : []),
    // the console and people's own page: sealed cookies of their own, every page behind the admin API's token check
    ...(deps.console !== undefined ? [deps.console] : []),
    // the server's own signed cookie jar for everything below (handed back by `cookies.leave` at the end)
    deps.cookies.enter,
    // metadata at every address a client tries (RFC 8414 path-inserted, OIDC, the origin root), answered here
    metadataAliases({ mountPath, maxAgeSeconds: defaults.authServer.metadataMaxAgeSeconds }),
    // MCP 2025-03-26 default paths at the root, rewritten to the mounted endpoints: everything below sees the rewritten path
    defaultPathFallback({ mountPath, routes }),
    // the token issuance as a span around all of it below (limits, client authentication, the grant), once the path is rewritten
    tokenSpan({ path: `${mountPath}${routes.token}`, route: routes.token }),
    // CORS on registration for browser clients, before anything below may refuse it (a refusal carries CORS too)
    registrationCors({ registrationPath: `${mountPath}${routes.registration}` }),
    // registration body size and the unused-registration caps, before oidc-provider stores a client
    registrationLimits({
      path: `${mountPath}${routes.registration}`,
      maxBodyBytes: defaults.authServer.registration.maxBodyBytes,
      unused: deps.unusedClients,
      maxUnusedPerAddress: options.registration.maxUnusedPerAddress,
      maxUnused: options.registration.maxUnused,
    }),
    // an authorization request without `scope` gets its resource's default scopes (by the resource the client named)
    defaultScope({ authorizationPath: `${mountPath}${routes.authorization}`, defaultResource: options.resources[0]!.uri, scopes }),
    // a login for one endpoint of a server covers its aliases (issue 28, item 2): after defaultScope, which reads the named resource
    expandResourceGroups({ authorizationPath: `${mountPath}${routes.authorization}`, defaultResource: options.resources[0]!.uri, scopes }),
    // per-address and per-client limits on registration and token requests (429), unless rate limits are off
    ...(limits === false
      ? []
      : [
          endpointRateLimits({
            registrationPath: `${mountPath}${routes.registration}`,
            tokenPath: `${mountPath}${routes.token}`,
            registrationPerAddress: limiter('registration-address', limits.registrationPerAddress),
            tokenPerAddress: limiter('token-address', limits.tokenPerAddress),
            tokenPerClient: limiter('token-client', limits.tokenPerClient),
            maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
          }),
        ]),
    // with delegated login: the upstream session is refreshed (or the grant ended) before a refresh or an introspection
    ...(upstream === undefined
      ? []
      : [
          upstreamGuard({
            provider,
            sessions: upstream.sessions,
            adapter: deps.adapter,
            tokenPath: `${mountPath}${routes.token}`,
            introspectionPath: `${mountPath}${routes.introspection}`,
            maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
          }),
        ]),
    // our login and consent pages (and the upstream callback), answered here, with per-address and per-account login limits
    interactionRoutes({
      provider,
      accounts: deps.accounts,
      consents: deps.consents,
      scopes,
      csrfKey: deps.csrfKey,
      issuer: options.issuer,
      basePath: `${mountPath}${defaults.authServer.interactionPath}`,
      defaultResource: options.resources[0]!.uri,
      branding: options.branding,
      // the console signs in without a consent page (its scopes still go by role)
      firstPartyClients: [defaults.authServer.admin.console.clientId],
      ...(deps.observer !== undefined ? { observer: deps.observer } : {}),
      ...(upstream !== undefined ? { upstream: upstream.login, upstreamSessions: upstream.sessions } : {}),
      ...(limits !== false ? { loginLimits: { perAddress: limiter('login-address', limits.loginPerAddress), perAccount: limiter('login-account', limits.loginPerAccount) } } : {}),
    }),
    // a client assertion issued in the future is refused before oidc-provider (which checks iat only without exp) sees it
    refuseFutureAssertions({
      paths: [routes.token, routes.introspection, routes.revocation].map((route) => `${mountPath}${route}`),
      clockToleranceSeconds: defaults.authServer.clockToleranceSeconds,
      maxBodyBytes: defaults.authServer.maxTokenBodyBytes,
    }),
    // a DPoP proof whose iat is outside our window is refused before oidc-provider (which checks iat only without a nonce) sees it
    refuseStaleDpopProofs({
      tokenPaths: [`${mountPath}${routes.token}`, provider.pathFor('pushed_authorization_request', { mountPath })],
      resourcePaths: [`${mountPath}${routes.userinfo}`],
      iatToleranceSeconds: defaults.authServer.dpop.iatToleranceSeconds,
    }),
    // a failed code redemption burns the code, after oidc-provider's token endpoint below has refused it
    burnFailedCodes(deps.adapter('AuthorizationCode'), `${mountPath}${routes.token}`),
    // introspection of our JWT access tokens, which oidc-provider below does not store: after it authenticated the caller
    jwtIntrospection({
      path: `${mountPath}${routes.introspection}`,
      issuer: provider.issuer,
      jwks: { keys: deps.signingKeys.map(publicJwk) },
      revocations: deps.revocations,
      clockToleranceSeconds: defaults.authServer.clockToleranceSeconds,
      ...(deps.blocked !== undefined ? { isBlocked: deps.blocked.isBlocked.bind(deps.blocked) } : {}),
    }),
    // oidc-provider itself, under the issuer's path
    mount(mountPath === '' ? '/' : mountPath, provider),
    // what the server passes on gets the host app's cookie jar back
    deps.cookies.leave,
  ]
}
