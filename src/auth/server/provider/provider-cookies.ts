import Cookies from 'cookies'
import Keygrip from 'keygrip'
import type { Context, Middleware, Next } from 'koa'
import { type Scope, scoped } from '../middleware/scoped-middleware.js'

/**
 * oidc-provider signs its cookies with the Koa app's keys, and once mounted it runs on the host
 * app's context. These two middleware give the requests the authorization server handles a
 * cookie jar signed with the server's own keys (so a host app needs no `keys` of its own) and
 * hand the host's jar back for whatever the server passes on. One Keygrip serves every jar; an
 * app whose `keys` already is that Keygrip (the server's own app) needs no swap, and Koa makes
 * its jar only if something reads it.
 */
export function providerCookies(keys: string[]): { enter: Middleware; leave: Middleware; keygrip: Keygrip } {
  const keygrip = new Keygrip(keys)
  const saved = new WeakMap<Context, Cookies>()
  // an app signing with this Keygrip already (the server's own) is not entered at all
  const swaps: Scope = (_path, _method, ctx) => ctx.app.keys !== (keygrip as unknown)
  const enter = scoped(swaps, function providerCookiesEnter(ctx: Context, next: Next): Promise<void> {
    const original = ctx.cookies
    saved.set(ctx, original)
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys: keygrip, secure: ctx.request.secure })
    return next().then(
      () => {
        ctx.cookies = original
      },
      (error: unknown) => {
        ctx.cookies = original
        throw error
      },
    )
  })
  const leave = scoped(swaps, function providerCookiesLeave(ctx: Context, next: Next): Promise<void> {
    const original = saved.get(ctx)
    if (original !== undefined) ctx.cookies = original
    return next()
  })
  return { enter, leave, keygrip }
}
