import type { Context } from 'koa'
import { addressGroup } from '../../../net/address-group.js'

/**
 * The client's address group for rate limiting: Koa's `ctx.ip` (X-Forwarded-For only when `proxy`
 * is trusted), IPv6 by its /64 so one client cannot rotate through its own prefix.
 */
export function clientAddress(ctx: Context): string {
  return addressGroup(ctx.ip || ctx.socket.remoteAddress || 'unknown')
}
