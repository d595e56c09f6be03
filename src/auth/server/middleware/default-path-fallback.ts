import type { Context, Middleware, Next } from 'koa'
import { scoped } from './scoped-middleware.js'

/**
 * MCP 2025-03-26 §2.3.3 default paths: a client that finds no metadata uses `/authorize`,
 * `/token` and `/register` at the authorization base URL (the origin root). When the provider is
 * mounted under the issuer's path, those root paths are routed to its endpoints.
 */
export function defaultPathFallback(options: { mountPath: string; routes: { authorization: string; token: string; registration: string } }): Middleware {
  const { mountPath, routes } = options
  const map = new Map<string, string>(
    mountPath === ''
      ? []
      : [
          ['/authorize', `${mountPath}${routes.authorization}`],
          ['/token', `${mountPath}${routes.token}`],
          ['/register', `${mountPath}${routes.registration}`],
        ],
  )
  return scoped(
    (path) => map.has(path),
    function defaultPathFallback(ctx: Context, next: Next): Promise<void> {
      ctx.path = map.get(ctx.path)!
      return next()
    },
  )
}
