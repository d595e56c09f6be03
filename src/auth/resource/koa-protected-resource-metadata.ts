import type { Middleware } from 'koa'
import { METADATA_CORS_HEADERS } from './cors.js'
import { protectedResourceMetadataByPath, type ProtectedResourceMetadataOptions } from './protected-resource-metadata.js'

/**
 * Koa middleware serving the RFC 9728 protected resource metadata of one resource at
 * `/.well-known/oauth-protected-resource{path}` (path-aware, §3.1) and at the root
 * `/.well-known/oauth-protected-resource`, with open CORS; every other path goes on to `next`.
 * Given several (the endpoints of one server), each at its own path with its own `resource`
 * (RFC 9728 §3.3), the first at the root too.
 * The Koa twin of `protectedResourceMetadataEndpoint` (node:http): no `ctx.respond = false`.
 *
 * @example
 * app.use(serveProtectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] }))
 * app.use(requireBearer(auth))
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 */
export function serveProtectedResourceMetadata(options: ProtectedResourceMetadataOptions | readonly ProtectedResourceMetadataOptions[]): Middleware {
  const documents = protectedResourceMetadataByPath(options)
  return async function serveProtectedResourceMetadata(ctx, next) {
    const body = documents.get(ctx.path)
    if (body === undefined) return next()
    ctx.set(METADATA_CORS_HEADERS)
    if (ctx.method === 'OPTIONS') {
      ctx.set('access-control-allow-headers', 'mcp-protocol-version')
      ctx.status = 204
      return
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('allow', 'GET, HEAD, OPTIONS')
      ctx.status = 405
      return
    }
    ctx.set('cache-control', 'public, max-age=300')
    ctx.type = 'application/json'
    ctx.body = body
  }
}
