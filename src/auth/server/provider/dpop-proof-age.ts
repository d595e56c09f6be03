import { decodeJwt } from 'jose'
import type { Context, Middleware, Next } from 'koa'
import { OAuthError } from '../../errors.js'
import { challenge } from '../../resource/www-authenticate.js'
import { scoped } from '../middleware/scoped-middleware.js'

/** Options of {@link refuseStaleDpopProofs}. */
export interface DpopProofAgeOptions {
  /** Endpoints where a proof asks for tokens (token, PAR): refused 400, as RFC 9449 §5 answers there. */
  tokenPaths: readonly string[]
  /** Endpoints where a proof goes with an access token (userinfo): refused 401 with a `DPoP` challenge (RFC 9449 §7.1). */
  resourcePaths: readonly string[]
  /** How far (seconds) a proof's `iat` may lie from now: the resource server's window. */
  iatToleranceSeconds: number
  /** Now, in ms (tests). */
  now?: () => number
}

/**
 * Refuses a DPoP proof (RFC 9449 §4.3 step 11) whose `iat` is outside the window our resource
 * servers use, before oidc-provider sees it: oidc-provider checks `iat` only on a proof without a
 * nonce, so a proof with a valid nonce was accepted a year ahead or hours late. Only requests that
 * carry a `DPoP` header enter (the token endpoint is benchmarked); a proof that is not a JWT with
 * a numeric `iat` goes on for oidc-provider to refuse in its own words.
 */
export function refuseStaleDpopProofs(options: DpopProofAgeOptions): Middleware {
  const tokenPaths = new Set(options.tokenPaths)
  const paths = new Set([...options.tokenPaths, ...options.resourcePaths])
  const now = options.now ?? Date.now
  const window = options.iatToleranceSeconds
  const applies = (path: string, _method: string, ctx: Context): boolean => ctx.req.headers.dpop !== undefined && paths.has(path)
  return scoped(applies, function refuseStaleDpopProofs(ctx: Context, next: Next): Promise<void> {
    const iat = issuedAt(ctx.req.headers.dpop)
    if (iat !== undefined && Math.abs(now() / 1000 - iat) > window) {
      const late = iat < now() / 1000
      const description = `the DPoP proof was issued ${late ? 'too long ago' : 'in the future'} (iat must be within ${window} seconds of this server's clock): make a fresh proof for each request, and check the client's clock`
      if (tokenPaths.has(ctx.path)) throw new OAuthError('invalid_dpop_proof', 400, description)
      throw new OAuthError('invalid_dpop_proof', 401, description, {
        headers: { 'www-authenticate': challenge('DPoP', { error: 'invalid_dpop_proof', error_description: description }) },
      })
    }
    return next()
  })
}

function issuedAt(proof: string | string[] | undefined): number | undefined {
  if (typeof proof !== 'string') return undefined
  try {
    const { iat } = decodeJwt(proof)
    return typeof iat === 'number' && Number.isFinite(iat) ? iat : undefined
  } catch {
    return undefined
  }
}
