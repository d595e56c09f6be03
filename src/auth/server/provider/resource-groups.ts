import type { Middleware } from 'koa'
import type { ScopePolicy } from './scope-policy.js'
import { scoped } from '../middleware/scoped-middleware.js'

/**
 * One MCP server, several endpoints (`/mcp`, `/sse`, `/rest`): a resource and its `aliases`. A
 * user's grant for one of them covers them all, so a client that logged in on one endpoint gets a
 * token for another by refreshing with `resource` set to it (RFC 8707 §2.2), without a new consent.
 *
 * This file is the one place that leans on oidc-provider internals for that (checked against
 * oidc-provider 9):
 * - `helpers/resolve_resource.js` refuses, at the token endpoint, a `resource` that is not among
 *   `model.resourceIndicators`: the authorization request's `resource` values, carried to the
 *   authorization code and on to the refresh token. So {@link expandResourceGroups} makes the
 *   authorization request name the whole group (the named identifier first): the code, the refresh
 *   token and the grant (consent adds each requested indicator's scopes) then cover every alias.
 * - `helpers/process_response_types.js` stores the code's resources in request order, and a
 *   token request that names no `resource` is resolved through `defaultResource(ctx, client,
 *   oneOf)`: {@link defaultResourceOf} picks the first of one group, the identifier the client named.
 * Nothing here is per node: the expansion is in the request, the rest in the code, token and grant.
 */
export function expandResourceGroups(options: { authorizationPath: string; defaultResource: string; scopes: ScopePolicy }): Middleware {
  return scoped(
    (path, method) => path === options.authorizationPath && method === 'GET',
    function expandResourceGroups(ctx, next) {
      const query = new URLSearchParams(ctx.querystring)
      // a pushed or signed request carries its own parameters: those stay as they are
      if (query.has('request_uri') || query.has('request')) return next()
      const named = query.getAll('resource')
      const expanded = [...new Set((named.length === 0 ? [options.defaultResource] : named).flatMap((indicator) => options.scopes.group(indicator)))]
      if (expanded.length > (named.length === 0 ? 1 : named.length)) {
        query.delete('resource')
        for (const indicator of expanded) query.append('resource', indicator)
        ctx.querystring = query.toString()
      }
      return next()
    },
  )
}

/**
 * oidc-provider's `defaultResource` for a token request whose code or refresh token holds several
 * resources and that names none (`oneOf`): the first when they are one server's identifiers (the
 * one the authorization request named), else the server's default when among them; otherwise
 * `oneOf` itself, which oidc-provider refuses as ambiguous (invalid_target).
 */
export function defaultResourceOf(oneOf: string[] | undefined, defaultResource: string, scopes: ScopePolicy): string | string[] {
  if (oneOf === undefined) return defaultResource
  const first = oneOf[0]
  if (first !== undefined) {
    const group = new Set(scopes.group(first))
    if (oneOf.every((indicator) => group.has(indicator))) return first
  }
  return oneOf.includes(defaultResource) ? defaultResource : oneOf
}
