import type { Context, Middleware, Next } from 'koa'
import { OAuthError } from '../errors.js'

/**
 * The one place our own authorization-server middleware answers errors: an {@link OAuthError}
 * thrown anywhere after it becomes its status, its headers (Retry-After…) and the RFC 6749 §5.2
 * JSON body, never cached. Anything else goes on up (oidc-provider answers its own errors itself).
 */
export function oauthErrors(): Middleware {
  return async function oauthErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next()
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error
      ctx.status = error.status
      ctx.set(error.headers)
      ctx.set('cache-control', 'no-store')
      ctx.body = error.toJSON()
      if (error.status >= 500) ctx.app.emit('error', error, ctx)
    }
  }
}
