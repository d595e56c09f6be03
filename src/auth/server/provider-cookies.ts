import Cookies from 'cookies'
import type { Context, Middleware, Next } from 'koa'

/**
 * oidc-provider signs its cookies with the Koa app's keys, and once mounted it runs on the host
 * app's context. These two middleware give the requests the authorization server handles a
 * cookie jar signed with the server's own keys (so a host app needs no `keys` of its own) and
 * hand the host's jar back for whatever the server passes on.
 */
export function providerCookies(keys: string[]): { enter: Middleware; leave: Middleware } {
  const saved = new WeakMap<Context, Cookies>()
  const enter = async function providerCookiesEnter(ctx: Context, next: Next): Promise<void> {
    const original = ctx.cookies
    saved.set(ctx, original)
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys, secure: ctx.request.secure })
    try {
      await next()
    } finally {
      ctx.cookies = original
    }
  }
  const leave = async function providerCookiesLeave(ctx: Context, next: Next): Promise<void> {
    const original = saved.get(ctx)
    if (original !== undefined) ctx.cookies = original
    await next()
  }
  return { enter, leave }
}
