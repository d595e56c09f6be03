import type { Context } from 'koa'

/** The client's address for rate limiting: Koa's `ctx.ip` (X-Forwarded-For only when `proxy` is trusted). */
export function clientAddress(ctx: Context): string {
  return ctx.ip || ctx.socket.remoteAddress || 'unknown'
}
