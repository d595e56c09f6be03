import type { Context, Middleware, Next } from 'koa'
import { scoped } from './scoped-middleware.js'

const WELL_KNOWN = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const

/**
 * Serves the provider's metadata at every address a client may try for this issuer, all with
 * the same `issuer`: RFC 8414 §3.1 path-inserted (`/.well-known/oauth-authorization-server{path}`),
 * the OIDC path-inserted variant MCP 2025-11-25 lists, and — for 2025-03-26 clients that use the
 * authorization base URL — the origin root. The provider itself answers the appended forms
 * (`{path}/.well-known/…`). Metadata answers carry `Cache-Control: public, max-age=…`.
 */
export function metadataAliases(options: { mountPath: string; maxAgeSeconds: number }): Middleware {
  const { mountPath } = options
  const cacheControl = `public, max-age=${options.maxAgeSeconds}`
  const served = new Set<string>(WELL_KNOWN.map((name) => `${mountPath}${name}`))
  const aliases = new Map<string, string>()
  if (mountPath !== '') {
    for (const name of WELL_KNOWN) {
      aliases.set(`${name}${mountPath}`, `${mountPath}${name}`)
      aliases.set(name, `${mountPath}${name}`)
    }
  }
  return scoped(
    (path) => aliases.has(path) || served.has(path),
    async function metadataAliases(ctx: Context, next: Next): Promise<void> {
      const target = aliases.get(ctx.path)
      if (target !== undefined && (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS')) ctx.path = target
      await next()
      // Metadata changes with the configuration, not per request: clients and caches may keep it a while.
      if (ctx.status === 200 && served.has(ctx.path)) ctx.set('cache-control', cacheControl)
    },
  )
}
