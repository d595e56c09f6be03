import type { Context, Middleware, Next } from 'koa'
import { scoped } from './scoped-middleware.js'

/**
 * CORS on the registration endpoint so browser-based MCP clients can register (oidc-provider
 * only enables CORS on discovery, JWKS, token, revocation, introspection and userinfo).
 * Registration carries no cookies, so any origin may call it.
 */
export function registrationCors(options: { registrationPath: string }): Middleware {
  const { registrationPath } = options
  const under = `${registrationPath}/`
  return scoped(
    (path) => path === registrationPath || path.startsWith(under),
    async function registrationCors(ctx: Context, next: Next): Promise<void> {
      const origin = ctx.get('origin')
      if (origin === '') return next()
      ctx.set('access-control-allow-origin', '*')
      if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
        ctx.set('access-control-allow-methods', 'GET, POST, PUT, DELETE')
        ctx.set('access-control-allow-headers', 'authorization, content-type')
        ctx.set('access-control-max-age', '3600')
        ctx.status = 204
        return
      }
      ctx.set('access-control-expose-headers', 'www-authenticate, retry-after')
      await next()
    },
  )
}
