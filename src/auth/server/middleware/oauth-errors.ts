import type { Context, Middleware, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { isStorageUnavailable } from '../../../storage/errors.js'
import { OAuthError, TemporarilyUnavailableError } from '../../errors.js'

/**
 * The one place our own authorization-server middleware answers errors: an {@link OAuthError}
 * thrown anywhere after it becomes its status, its headers (Retry-After…) and the RFC 6749 §5.2
 * JSON body, never cached. Storage that cannot be reached (Redis down: a shared rate limit, a
 * record) becomes 503 `temporarily_unavailable`; every 503 says when to come back (Retry-After).
 * Anything else goes on up (oidc-provider answers its own errors itself).
 */
export function oauthErrors(): Middleware {
  return function oauthErrors(ctx: Context, next: Next): Promise<void> {
    return next().catch((caught: unknown) => {
      const error = isStorageUnavailable(caught) && !(caught instanceof OAuthError) ? new TemporarilyUnavailableError(UNAVAILABLE, { cause: caught }) : caught
      if (!(error instanceof OAuthError)) throw error
      ctx.status = error.status
      if (error.status === 503) ctx.set('retry-after', String(defaults.authServer.unavailableRetryAfterSeconds))
      ctx.set(error.headers)
      ctx.set('cache-control', 'no-store')
      ctx.body = error.toJSON()
      if (error.status >= 500) ctx.app.emit('error', error, ctx)
    })
  }
}

const UNAVAILABLE = `the authorization server cannot reach its storage; retry in ${defaults.authServer.unavailableRetryAfterSeconds} s`
