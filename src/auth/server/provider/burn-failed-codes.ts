import type { Context, Middleware, Next } from 'koa'
import type { OidcAdapter } from '../../../storage/types.js'
import { redeemedCodes } from './adapter-factory.js'
import { scoped } from '../middleware/scoped-middleware.js'

/**
 * A failed authorization-code redemption (wrong PKCE verifier, another client, another
 * redirect_uri) burns the code: oidc-provider leaves it usable until it expires, so whoever holds
 * a stolen code could keep guessing. Nothing was issued from it, so there is nothing to revoke;
 * the rightful client starts a new authorization.
 */
export function burnFailedCodes(codes: OidcAdapter, tokenPath: string): Middleware {
  // codes are redeemed at the token endpoint only
  return scoped(
    (path, method) => method === 'POST' && path === tokenPath,
    function burnFailedCodes(ctx: Context, next: Next): Promise<void> {
      return next().then(() => {
        const code = redeemedCodes.get(ctx)
        if (code !== undefined && ctx.status >= 400) return codes.destroy(code)
      })
    },
  )
}
