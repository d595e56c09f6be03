import { decodeJwt, jwtVerify, type JWTPayload } from 'jose'
import type { KoaContextWithOIDC, Provider } from 'oidc-provider'
import { errors } from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { AccountStore } from '../stores/account-store.js'
import { assertionClaimsProblem } from '../jwt-bearer/assertion-claims.js'
import { verificationRefusal } from '../jwt-bearer/verification-refusal.js'
import { trustedIssuers } from '../jwt-bearer/trusted-issuers.js'
import type { JwtBearerOptions } from '../options.js'
import { resourceServerInfo } from './resource-server-info.js'
import type { ScopePolicy } from './scope-policy.js'
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js'
import { oidcOf } from './oidc-context.js'
import { createLog, type Log } from '../../../observe/log.js'

/** RFC 7523 §2.1. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** What an assertion used twice is refused with (the audit trail's `assertion.replay-refused` knows it by it). */
export const ASSERTION_REUSED = 'the assertion was already used (jti)'

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
  /** The server's log: each refusal one line at info, an unavailable trusted issuer one at warn (default: stderr). */
  log?: Log
}

/** The registered grant: `close()` stops the background discovery of unavailable issuers. */
export interface JwtBearerGrant {
  close(): void
}

/**
 * The JWT bearer grant (RFC 7523 §2.1) for workloads: a JWT their platform issued (a CI job's OIDC
 * token, a Kubernetes service account token…) is the authorization grant. It is honoured when it
 * comes from a configured issuer and verifies with that issuer's keys (asymmetric algorithms only),
 * names us in `aud`, has `exp` (at most `maxAssertionLifetimeSeconds` from now and from `iat`, an
 * `iat` not ahead beyond the skew: assertionClaimsProblem), a string `jti` never used before
 * (remembered until `exp` in oidc-provider's ReplayDetection records, shared by every node;
 * recorded only once everything else passed), and a `sub` the configuration maps: to a client
 * (the requesting client must be that client; a client_credentials-like token with at most its
 * registered scope) or to an account (a token for that account, at most the scopes it may have
 * and the client registered, recorded as a grant that can be listed and revoked). An issuer whose
 * discovery or keys cannot be fetched is refused alone, as unavailable (trustedIssuers). A refusal is `invalid_grant` (the assertion), `unauthorized_client` (the client),
 * `invalid_scope` or `invalid_target`, said in one line of the server log as well (which check
 * failed, the client, a configured issuer); the assertion itself is never echoed nor logged.
 */
export function registerJwtBearerGrant(deps: JwtBearerGrantDeps): JwtBearerGrant {
  const j = defaults.authServer.jwtBearer
  // asymmetric only: the same list our resource servers accept on DPoP proofs
  const algorithms = [...defaults.resourceServer.dpop.algorithms]
  const { provider } = deps

  // none given (a library caller without an observer): JSON lines on stderr, as the server writes them
  const log = deps.log ?? createLog()
  // an issuer out of reach needs a look: warn
  const trusted = trustedIssuers(deps.options, (line) => log.warn(line))

  // Every refusal is one line in the server's log, saying which check failed (the description the
  // client gets, plus what the server alone should know); never the assertion, never a stack.
  async function jwtBearerGrant(ctx: KoaContextWithOIDC): Promise<void> {
    const seen: { issuer?: string } = {}
    try {
      await exchange(ctx, seen)
    } catch (error) {
      if (error instanceof errors.OIDCProviderError) {
        const detail = details.get(error)
        const line = `JWT bearer assertion refused for client ${oidcOf(ctx)?.client?.clientId ?? '(unknown)'}${seen.issuer === undefined ? '' : ` from issuer ${seen.issuer}`}: ${error.error}: ${error.error_description ?? error.message}${detail === undefined ? '' : ` (${detail})`}`
        // the client's doing: one line at info in the server's log
        log.info(line)
      }
      throw error
    }
  }

  async function exchange(ctx: KoaContextWithOIDC, seen: { issuer?: string }): Promise<void> {
    const oidc = oidcOf(ctx)!
    const params = oidc.params as Record<string, unknown>
    const client = oidc.client!
    const assertion = params['assertion']
    if (typeof assertion !== 'string' || assertion === '') throw new errors.InvalidRequest('the JWT bearer grant needs an assertion')
    if (assertion.length > j.maxAssertionBytes) throw invalidGrant('the assertion is too large')
    let iss: string | undefined
    try {
      iss = decodeJwt(assertion).iss
    } catch {
      throw invalidGrant('the assertion is not a JWT')
    }
    const issuer = typeof iss === 'string' ? trusted.get(iss) : undefined
    if (issuer === undefined) throw invalidGrant('the assertion comes from an issuer this server does not trust')
    // a configured issuer (never an unknown `iss`: outside input) names the refusals below in the log
    seen.issuer = issuer.issuer
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(assertion, issuer.keys, {
        issuer: issuer.issuer,
        audience: deps.audiences,
        algorithms,
        clockTolerance: j.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub', 'jti'],
      }))
    } catch (error) {
      const refusal = verificationRefusal(error)
      throw invalidGrant(refusal.description, refusal.detail)
    }
    const problem = assertionClaimsProblem(payload)
    if (problem !== undefined) throw invalidGrant(problem)
    const exp = payload.exp!
    const jti = payload.jti!
    // a Map, so `__proto__`, `constructor` and their kind are subjects like any other: unmapped
    const mapping = issuer.subjects.get(payload.sub!)
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
      provider.ReplayDetection.unique(issuer.issuer, jti, exp + j.clockToleranceSeconds).then((unique) => {
        if (!unique) throw invalidGrant(ASSERTION_REUSED)
      })

    if ('client' in mapping) {
      if (mapping.client !== client.clientId) throw new errors.UnauthorizedClient('the assertion subject acts as another client')
      const allowed = deps.scopes.clientCredentialsScopes(client.scope, resource.uri)
      const scope = grantedScope(requested, allowed)
      await firstUse()
      const token = new provider.ClientCredentials({ client, scope } as never)
      bind(token)
      token.resourceServer = new provider.ResourceServer(resource.uri, resourceServerInfo(resource, allowed.join(' '), deps.accessTokenAlg) as never)
      // what grant.success reports (the audit trail's token.issued), as oidc-provider's own grants do
      ctx.oidc.entity('ClientCredentials', token)
      respond(ctx, await token.save(), token.expiration, scope, token.tokenType)
      return
    }
    const account = await deps.accounts.findByUsername(mapping.account)
    if (account === undefined || account.disabled === true) throw invalidGrant('the account the assertion maps to does not exist or is disabled')
    // the client's registered scope caps this grant as oidc-provider caps every token request
    const registered = typeof client.scope === 'string' ? new Set(client.scope.split(' ')) : undefined
    const allowed = [...deps.scopes.accountScopes(account, resource.uri)].filter((scope) => registered === undefined || registered.has(scope))
    const scope = grantedScope(requested, allowed)
    await firstUse()
    const grant = new provider.Grant({ accountId: account.id, clientId: client.clientId })
    grant.addResourceScope(resource.uri, scope)
    const grantId = await grant.save()
    const token = new provider.AccessToken({ accountId: account.id, client, grantId, gty: 'jwt_bearer', scope } as never)
    bind(token)
    token.resourceServer = new provider.ResourceServer(resource.uri, resourceServerInfo(resource, allowed.join(' '), deps.accessTokenAlg) as never)
    ctx.oidc.entity('AccessToken', token)
    respond(ctx, await token.save(), token.expiration, scope, token.tokenType)
  }

  provider.registerGrantType(JWT_BEARER_GRANT, jwtBearerGrant as never, new Set(['assertion', 'scope', 'resource']) as never, undefined as never)
  return { close: () => trusted.close() }
}

/**
 * invalid_grant with its reason said (oidc-provider's own InvalidGrant keeps the reason to itself):
 * a workload's operator needs to know whether the issuer, the audience or the lifetime is wrong;
 * the reasons name a claim, never its value.
 */
function invalidGrant(description: string, detail?: string): Error {
  const error = new errors.CustomOIDCProviderError('invalid_grant', description)
  if (detail !== undefined) details.set(error, detail)
  return error
}

/** What the log line of a refusal adds to its description (the server's side of it: a fetch failure, an unexpected error). */
const details = new WeakMap<Error, string>()

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
