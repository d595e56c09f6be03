import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey, type JSONWebKeySet, createLocalJWKSet } from 'jose'
import { defaults } from '../../config/defaults.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { InvalidTokenError, TemporarilyUnavailableError } from '../errors.js'
import { canonicalResourceUri } from './resource-uri.js'
import type { RevocationCheck } from './revocation-check.js'
import { scopesOf, type TokenVerifier } from './token-verifier.js'
import { BoundedMap } from '../../collections/bounded-map.js'

export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier; `iss` must equal it. */
  issuer: string
  /**
   * This server's canonical resource URI; `aud` must contain it. Several for a server with several
   * endpoints (identifiers): `aud` must contain one of them.
   */
  audience: string | readonly string[]
  /** Where the issuer publishes its keys (its metadata's `jwks_uri`), or the keys themselves. */
  jwksUri?: string
  jwks?: JSONWebKeySet
  algorithms?: readonly string[]
  /** Required JOSE `typ` (default `at+jwt`, RFC 9068). */
  typ?: string
  clockToleranceSeconds?: number
  /** Least time (ms) between two JWKS fetches on unknown `kid`s (default `jwksCooldownMs`). */
  cooldownMs?: number
  /** How long (ms) a verified token is remembered, never past its `exp` (default `jwtCacheMs`; 0 turns it off). */
  cacheMs?: number
  /**
   * Refuse tokens whose grant was revoked before `exp` (off by default: a JWT is then valid until
   * it expires). E.g. `introspectionRevocationCheck(…)`, or an in-process check when the
   * authorization server runs in the same process. Runs on every request, cache hits included.
   */
  checkRevocation?: RevocationCheck
  now?: () => number
}

/**
 * Verifies RFC 9068 JWT access tokens with jose: signature against the issuer's JWKS (cached;
 * refetched on an unknown `kid`, at most once per cooldown), `iss`, `aud` (this resource, trailing
 * slash tolerated), `exp`/`nbf` with a small clock tolerance, `typ`, and an algorithm allow-list
 * that never includes `none` or HMAC. No I/O per request once the keys are cached.
 *
 * @example
 * const verifier = createJwtVerifier({ issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp', jwksUri: 'https://auth.example.com/jwks' })
 * const auth = await verifier.verify(token)
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-4
 */
export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier & { warm(): Promise<void> } {
  const r = defaults.resourceServer
  let keys: JWTVerifyGetKey
  let warm = async (): Promise<void> => {}
  if (options.jwks !== undefined) {
    keys = createLocalJWKSet(options.jwks)
  } else if (options.jwksUri !== undefined) {
    const remote = createRemoteJWKSet(new URL(options.jwksUri), {
      timeoutDuration: r.fetchTimeoutMs,
      cooldownDuration: options.cooldownMs ?? r.jwksCooldownMs,
      cacheMaxAge: r.jwksMaxAgeMs,
    })
    keys = remote
    warm = async () => {
      await remote.reload()
    }
  } else {
    throw new TypeError('createJwtVerifier needs jwksUri or jwks')
  }
  const audiences = (typeof options.audience === 'string' ? [options.audience] : options.audience).flatMap((value) => {
    const audience = canonicalResourceUri(value)
    return audience.endsWith('/') ? [audience] : [audience, `${audience}/`]
  })
  if (audiences.length === 0) throw new TypeError('createJwtVerifier needs an audience')
  const verifyOptions = {
    issuer: options.issuer,
    audience: audiences,
    algorithms: [...(options.algorithms ?? r.algorithms)].filter((alg) => alg !== 'none' && !alg.startsWith('HS')),
    typ: options.typ ?? r.jwtTyp,
    clockTolerance: options.clockToleranceSeconds ?? r.clockToleranceSeconds,
    requiredClaims: ['exp'],
  }
  const cacheMs = options.cacheMs ?? r.jwtCacheMs
  const now = options.now ?? Date.now
  const verified = new BoundedMap<string, { info: AuthInfo; until: number }>(r.jwtCacheEntries, { evictBeforeSet: true })
  const checkRevocation = options.checkRevocation
  const verify = async (token: string): Promise<AuthInfo> => {
    const hit = verified.get(token)
    if (hit !== undefined) {
      // A copy: a handler that edits its authInfo must not change what the next request sees.
      if (hit.until > now()) return { ...hit.info, scopes: [...hit.info.scopes] }
      verified.delete(token)
    }
    let payload
    try {
      ;({ payload } = await jwtVerify(token, keys, verifyOptions))
    } catch (error) {
      // Keys that cannot be fetched are our problem, not the token's: no re-login for that.
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
        throw new TemporarilyUnavailableError("the authorization server's keys could not be fetched", { cause: error })
      }
      throw new InvalidTokenError(describe(error), { cause: error })
    }
    const clientId = typeof payload['client_id'] === 'string' ? payload['client_id'] : typeof payload['azp'] === 'string' ? payload['azp'] : ''
    const info: AuthInfo = {
      token,
      clientId,
      scopes: scopesOf(payload),
      ...(payload.sub !== undefined ? { subject: payload.sub } : {}),
      ...(payload.aud !== undefined ? { audience: payload.aud } : {}),
      ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}),
      claims: payload,
    }
    // jwtVerify required exp; remember the result until then at most.
    const until = Math.min(now() + cacheMs, (payload.exp ?? 0) * 1000)
    if (cacheMs > 0 && until > now()) {
      verified.set(token, { info, until })
    }
    return info
  }
  if (checkRevocation === undefined) return { warm, verify }
  return {
    warm,
    async verify(token: string): Promise<AuthInfo> {
      const info = await verify(token)
      if (await checkRevocation(token, info)) throw new InvalidTokenError('the access token was revoked')
      return info
    },
  }
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the access token has expired'
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the access token is not valid yet'
    if (error.claim === 'aud') return 'the access token is for another resource'
    if (error.claim === 'iss') return 'the access token comes from an untrusted issuer'
    if (error.claim === 'typ') return 'the token is not an access token (typ)'
    return `the access token's ${error.claim} claim is invalid`
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the access token uses an algorithm this server does not accept'
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'the access token was signed with an unknown key'
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the access token signature is invalid'
  return 'the access token is malformed or invalid'
}
