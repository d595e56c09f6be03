import type { Context, Next } from 'koa'
import { metricsOf } from '../../../observe/create-metrics.js'
import type { Observer } from '../../../observe/observer.js'
import { scoped, type ScopedMiddleware } from '../middleware/scoped-middleware.js'
import type { AdminAuthority } from './admin-caller.js'

export interface MetricsEndpointOptions {
  /** `${mountPath}/metrics`. */
  path: string
  /** Whose metrics: asked at each request, so metrics attached to it after the server was built are served too. */
  observer: Observer
  /** The admin API's caller check: the same token (audience, `mcp-auth:admin` scope, role) the admin API asks for. */
  authority: AdminAuthority
}

/**
 * `GET /metrics` on the main origin, in the Prometheus text format, for a caller with an
 * administrator's token only (never public by accident: a scraper without one gets 401 with the
 * admin API's challenge). 404 while metrics are off. A scraper that holds no token scrapes the
 * separate listener (`--metrics-port`) instead.
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/
 */
export function metricsEndpoint(options: MetricsEndpointOptions): ScopedMiddleware {
  const { path, observer, authority } = options
  return scoped(
    (requestPath) => requestPath === path,
    async function metricsEndpoint(ctx: Context, _next: Next): Promise<void> {
      ctx.set('cache-control', 'no-store')
      const metrics = metricsOf(observer)
      if (metrics === undefined) {
        ctx.status = 404
        ctx.body = { error: 'not_found', error_description: 'metrics are off on this server' }
        return
      }
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.status = 405
        ctx.set('allow', 'GET, HEAD')
        return
      }
      try {
        await authority.authenticate({ method: ctx.method, url: new URL(ctx.href), headers: ctx.headers })
      } catch (error) {
        const refusal = authority.bearer.errorResponse(error)
        ctx.status = refusal.status
        ctx.set(refusal.headers)
        ctx.body = refusal.body
        return
      }
      const { contentType, body } = await metrics.scrape()
      ctx.type = contentType
      ctx.body = body
    },
  )
}
