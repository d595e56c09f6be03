import type { Context, Next } from 'koa'
import { SpanKind } from '@opentelemetry/api'
import { noteRoute } from '../../../observe/request-record.js'
import { endSpan, ourTracer, tracingOn } from '../../../observe/tracing.js'
import { scoped, type ScopedMiddleware } from './scoped-middleware.js'

/**
 * The token issuance as a span (`oauth.token`), a child of the HTTP request's: around everything
 * the server does for a token request (rate limits, client authentication, oidc-provider's grant),
 * with the grant type, the answer's status and its OAuth error code; never a code, token, secret
 * or assertion. It also notes the route template `route` on the request's record (the token
 * latency histogram reads it). With no OpenTelemetry SDK registered it makes no span.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2
 */
export function tokenSpan(options: { path: string; route: string }): ScopedMiddleware {
  const { path, route } = options
  return scoped(
    (requestPath, method) => requestPath === path && method === 'POST',
    async function tokenSpan(ctx: Context, next: Next): Promise<void> {
      noteRoute(ctx.req, route)
      if (!tracingOn()) return next()
      await ourTracer().startActiveSpan('oauth.token', { kind: SpanKind.INTERNAL }, async (span) => {
        let failure: unknown
        try {
          await next()
        } catch (error) {
          failure = error
          throw error
        } finally {
          const oidc = (ctx as Context & { oidc?: { params?: { grant_type?: unknown } } }).oidc
          const grantType = oidc?.params?.grant_type
          if (typeof grantType === 'string' && grantType.length <= 100) span.setAttribute('oauth.grant_type', grantType)
          span.setAttribute('http.response.status_code', ctx.status)
          const body = ctx.body as { error?: unknown } | undefined
          const error = failure ?? (ctx.status >= 400 && typeof body?.error === 'string' ? { code: body.error } : undefined)
          endSpan(span, error)
        }
      })
    },
  )
}
