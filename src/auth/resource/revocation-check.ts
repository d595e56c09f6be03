import type { AuthInfo } from '../../auth-info/auth-info.js'
import { createIntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection-verifier.js'
import { InvalidTokenError } from '../errors.js'

/**
 * Says whether a JWT access token that verified locally has been revoked since (its grant ended:
 * code replay, refresh reuse, revocation, logout, upstream revocation). Runs on every request,
 * after the signature check and its cache.
 */
export type RevocationCheck = (token: string, info: AuthInfo) => boolean | Promise<boolean>

/**
 * A {@link RevocationCheck} that asks the authorization server (RFC 7662 introspection, which our
 * server answers for its JWT access tokens too), remembering each answer at most `cacheMs`
 * (default `introspectionCacheMs`, 60 s) and never past the token's `exp`, in a bounded cache. The
 * trade-off: a revoked token is refused within `cacheMs`, at the cost of one introspection per
 * token per `cacheMs`; without the check it lives until `exp`.
 *
 * @example
 * createJwtVerifier({ issuer, audience, jwksUri, checkRevocation: introspectionRevocationCheck({ endpoint, clientId, clientSecret, audience }) })
 * @see https://www.rfc-editor.org/rfc/rfc7662
 */
export function introspectionRevocationCheck(options: IntrospectionVerifierOptions): RevocationCheck {
  const introspection = createIntrospectionVerifier(options)
  return async (token) => {
    try {
      await introspection.verify(token)
      return false
    } catch (error) {
      if (error instanceof InvalidTokenError) return true
      throw error
    }
  }
}
