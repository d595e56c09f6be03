import type { Context, Middleware, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'

/**
 * Every 503 of the authorization server says when to come back: oidc-provider answers its own
 * (its storage away: see adapter-factory, on /authorize, /token, /reg…) without `Retry-After`.
 */
export function retryAfterOn503(): Middleware {
  return async function retryAfterOn503(ctx: Context, next: Next): Promise<void> {
    await next()
    if (ctx.status === 503 && !ctx.res.hasHeader('retry-after')) ctx.set('retry-after', String(defaults.authServer.unavailableRetryAfterSeconds))
  }
}
