import type { Middleware } from 'koa'
import type { StreamableHttpHandler } from './streamable-http-handler.js'

/**
 * Mount a StreamableHttpHandler on one path of a Koa app. Koa only routes: the handler answers
 * on the raw request and response (it streams SSE), so Koa's own response handling is skipped.
 *
 * @example
 * app.use(streamableHttpKoa(new StreamableHttpHandler(server, { allowedHosts: ['localhost'] }), { path: '/mcp' }))
 */
export function streamableHttpKoa(handler: StreamableHttpHandler, options: { path: string }): Middleware {
  return async function streamableHttp(ctx, next) {
    if (ctx.path !== options.path) return next()
    ctx.respond = false
    const parsed = (ctx.request as { body?: unknown }).body
    await handler.handle(ctx.req, ctx.res, parsed)
  }
}
