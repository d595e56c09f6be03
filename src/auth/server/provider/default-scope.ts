import type { Middleware } from 'koa'
import type { ScopePolicy } from './scope-policy.js'
import { scoped } from '../middleware/scoped-middleware.js'

/**
 * OAuth 2.1 §3.2.2.1 lets a client omit `scope`; the server then applies a default or fails. We
 * apply the requested resource's `defaultScopes` (the consent step still narrows them to what the
 * account may have). Without this, oidc-provider grants nothing and answers access_denied.
 */
export function defaultScope(options: { authorizationPath: string; defaultResource: string; scopes: ScopePolicy }): Middleware {
  return scoped(
    (path, method) => path === options.authorizationPath && method === 'GET',
    function defaultScope(ctx, next) {
      const query = new URLSearchParams(ctx.querystring)
      if ((query.get('scope') ?? '') === '') {
        const resource = options.scopes.resource(query.get('resource') ?? options.defaultResource)
        if (resource !== undefined && resource.defaultScopes.length > 0) {
          query.set('scope', resource.defaultScopes.join(' '))
          ctx.querystring = query.toString()
        }
      }
      return next()
    },
  )
}
