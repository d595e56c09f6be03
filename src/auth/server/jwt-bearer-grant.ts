import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import type { KoaContextWithOIDC, Provider } from 'oidc-provider'
import { errors } from 'oidc-provider'
import { defaults } from '../../config/defaults.js'
import { discoverAuthorizationServer } from '../resource/discover-authorization-server.js'
import type { AccountStore } from './account-store.js'
import type { JwtBearerOptions } from './options.js'
import { resourceServerInfo } from './resource-server-info.js'
import type { ScopePolicy } from './scope-policy.js'
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js'

/** RFC 7523 §2.1. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

type Mapping = { client: string } | { account: string }

interface TrustedIssuer {
  issuer: string
  keys: JWTVerifyGetKey
  subjects: Readonly<Record<string, Mapping>>
}

export interface JwtBearerGrantDeps {
  provider: Provider
  options: JwtBearerOptions
  /** Our issuer and token endpoint: an assertion's `aud` must name one of them (RFC 7523 §3). */
  audiences: string[]
  accounts: AccountStore
  scopes: ScopePolicy
  accessTokenAlg: string
  /** The resource of a request that names none. */
  defaultResource: string
  fetch?: typeof fetch
}

/**
 * The JWT bearer grant (RFC 7523 §2.1) for workloads: a JWT their platform issued (a CI job's OIDC
 * token, a Kubernetes service account token…) is the authorization grant. It is honoured when it
 * comes from a configured issuer and verifies with that issuer's keys (asymmetric algorithms only),
 * names us in `aud`, has `exp` (and lives at most `maxAssertionLifetimeSeconds`), a `jti` never
 * used before (remembered until `exp` in oidc-provider's ReplayDetection records, shared by every
 * node; recorded only once everything else passed), and a `sub` the configuration maps: to a client (the requesting client must be that
 * client; a client_credentials-like token with at most its registered scope) or to an account (a
 * token for that account, at most the scopes it may have, recorded as a grant that can be listed
 * and revoked). A refusal is `invalid_grant` (the assertion), `unauthorized_client` (the client),
 * `invalid_scope` or `invalid_target`; the assertion itself is never echoed.
 */
export function registerJwtBearerGrant(deps: JwtBearerGrantDeps): void {
  const j = defaults.authServer.jwtBearer
  // asymmetric only: the same list our resource servers accept on DPoP proofs
  const algorithms = [...defaults.resourceServer.dpop.algorithms]
  const trusted = new Map<string, TrustedIssuer>(
    deps.options.issuers.map((entry) => {
      const keys =
        entry.jwks !== undefined
          ? createLocalJWKSet(entry.jwks as JSONWebKeySet)
          : remoteKeys(entry.jwksUri === undefined ? discoveredJwksUri(entry.issuer, deps.fetch) : Promise.resolve(entry.jwksUri))
      return [entry.issuer, { issuer: entry.issuer, keys, subjects: entry.subjects as Record<string, Mapping> }]
    }),
  )
  const { provider } = deps

  async function jwtBearerGrant(ctx: KoaContextWithOIDC): Promise<void> {
    const params = ctx.oidc.params as Record<string, unknown>
    const client = ctx.oidc.client!
    const assertion = params['assertion']
    if (typeof assertion !== 'string' || assertion === '') throw new errors.InvalidRequest('the JWT bearer grant needs an assertion')
    if (assertion.length > j.maxAssertionBytes) throw invalidGrant('the assertion is too large')
    let iss: string | undefined
    try {
      iss = decodeJwt(assertion).iss
    } catch {
      throw invalidGrant('the assertion is not a JWT')
    }
    const issuer = iss === undefined ? undefined : trusted.get(iss)
    if (issuer === undefined) throw invalidGrant('the assertion comes from an issuer this server does not trust')
    let payload
    try {
      ;({ payload } = await jwtVerify(assertion, issuer.keys, {
        issuer: issuer.issuer,
        audience: deps.audiences,
        algorithms,
        clockTolerance: j.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub', 'jti'],
      }))
    } catch (error) {
      throw invalidGrant(describe(error))
    }
    const now = Math.floor(Date.now() / 1000)
    const exp = payload.exp!
    if (exp - (payload.iat ?? now) > j.maxAssertionLifetimeSeconds) throw invalidGrant(`the assertion lives longer than ${j.maxAssertionLifetimeSeconds} seconds`)
    const mapping = issuer.subjects[payload.sub!]
    if (mapping === undefined) throw invalidGrant('the assertion subject is not mapped to a client or an account here')
    const indicator = typeof params['resource'] === 'string' ? params['resource'] : deps.defaultResource
    const resource = deps.scopes.resource(indicator)
    if (resource === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`)
    const requested = typeof params['scope'] === 'string' && params['scope'] !== '' ? params['scope'].split(' ') : undefined
    // RFC 9449: a proof binds the token to its key, as oidc-provider's own grants do (the proof is
    // used up here, the assertion last); a resource (or client) that takes bound tokens only gets
    // none without one
    const dpop = await validateDpop(provider, ctx)
    if (dpop === undefined && (resource.requireDpop === true || client.dpopBoundAccessTokens === true)) {
      throw new errors.InvalidDpopProof(`tokens for ${resource.uri} are DPoP-bound only: send a DPoP proof with the token request (RFC 9449)`)
    }
    if (dpop !== undefined) await checkDpopReplay(provider, ctx, dpop, client.clientId)
    const bind = (token: { setThumbprint(kind: string, value: string): void }): void => {
      if (dpop !== undefined) token.setThumbprint('jkt', dpop.thumbprint)
    }
    // one use per assertion, on every node (ReplayDetection records live until the assertion
    // expires); recorded last, so a request refused for its client, scope or resource does not use it up
    const firstUse = () =>
      provider.ReplayDetection.unique(issuer.issuer, payload.jti!, exp + j.clockToleranceSeconds).then((unique) => {
        if (!unique) throw invalidGrant('the assertion was already used (jti)')
      })

    if ('client' in mapping) {
      if (mapping.client !== client.clientId) throw new errors.UnauthorizedClient('the assertion subject acts as another client')
      const allowed = deps.scopes.clientCredentialsScopes(client.scope, resource.uri)
      const scope = grantedScope(requested, allowed)
      await firstUse()
      const token = new provider.ClientCredentials({ client, scope } as never)
      bind(token)
      token.resourceServer = new provider.ResourceServer(resource.uri, resourceServerInfo(resource, allowed.join(' '), deps.accessTokenAlg) as never)
      respond(ctx, await token.save(), token.expiration, scope, token.tokenType)
      return
    }
    const account = await deps.accounts.findByUsername(mapping.account)
    if (account === undefined || account.disabled === true) throw invalidGrant('the account the assertion maps to does not exist or is disabled')
    const allowed = [...deps.scopes.accountScopes(account, resource.uri)]
    const scope = grantedScope(requested, allowed)
    await firstUse()
    const grant = new provider.Grant({ accountId: account.id, clientId: client.clientId })
    grant.addResourceScope(resource.uri, scope)
    const grantId = await grant.save()
    const token = new provider.AccessToken({ accountId: account.id, client, grantId, gty: 'jwt_bearer', scope } as never)
    bind(token)
    token.resourceServer = new provider.ResourceServer(resource.uri, resourceServerInfo(resource, allowed.join(' '), deps.accessTokenAlg) as never)
    respond(ctx, await token.save(), token.expiration, scope, token.tokenType)
  }

  provider.registerGrantType(JWT_BEARER_GRANT, jwtBearerGrant as never, new Set(['assertion', 'scope', 'resource']) as never, undefined as never)
}

/**
 * invalid_grant with its reason said (oidc-provider's own InvalidGrant keeps the reason to itself):
 * a workload's operator needs to know whether the issuer, the audience or the lifetime is wrong;
 * the reasons name a claim, never its value.
 */
function invalidGrant(description: string): Error {
  return new errors.CustomOIDCProviderError('invalid_grant', description)
}

/** What a request may get: what it asked for, all of it allowed, or everything allowed when it named nothing. */
function grantedScope(requested: string[] | undefined, allowed: readonly string[]): string {
  if (requested === undefined) return allowed.join(' ')
  const refused = requested.filter((scope) => !allowed.includes(scope))
  if (refused.length > 0) throw new errors.InvalidScope(`not granted by this server's policy: ${refused.join(' ')}`, refused.join(' '))
  return requested.join(' ')
}

function respond(ctx: KoaContextWithOIDC, accessToken: string, expiresIn: number, scope: string, tokenType: string): void {
  ctx.body = { access_token: accessToken, expires_in: expiresIn, token_type: tokenType, ...(scope !== '' ? { scope } : {}) }
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the assertion has expired'
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the assertion is for another audience'
    if (error.claim === 'nbf') return 'the assertion is not valid yet'
    return `the assertion's ${error.claim} claim is missing or invalid`
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the assertion uses an algorithm this server does not accept'
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the assertion signature does not verify with its issuer keys'
  return 'the assertion is malformed or could not be verified'
}

/** Keys from a URL that is learnt once (discovery), each fetch bounded in time. */
function remoteKeys(uri: Promise<string>): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined
  return async (header, token) => {
    keys ??= uri.then((url) => createRemoteJWKSet(new URL(url), { timeoutDuration: defaults.authServer.jwtBearer.fetchTimeoutMs }))
    // a failed discovery is tried again next time
    const resolved = await keys.catch((error: unknown) => {
      keys = undefined
      throw error
    })
    return resolved(header, token)
  }
}

/** The `jwks_uri` of an issuer's RFC 8414 or OpenID Connect metadata (the resource server's discovery, issuer checked). */
async function discoveredJwksUri(issuer: string, fetchImpl?: typeof fetch): Promise<string> {
  const metadata = await discoverAuthorizationServer(issuer, fetchImpl)
  if (metadata.jwks_uri === undefined) throw new Error(`the metadata of ${issuer} names no jwks_uri`)
  return metadata.jwks_uri
}
