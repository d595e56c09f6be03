import type { Middleware } from 'koa'
import type { AuthInfo } from '../../protocol/context.js'
import type { BearerAuth } from './bearer-auth.js'
import { mcpCorsHeaders } from './cors.js'

/**
 * Koa middleware: the bearer check in front of whatever follows. The verified identity lands in
 * `ctx.state.auth` and on `ctx.req.auth` (where the MCP transports read it); a refusal is answered
 * here with its challenge.
 *
 * @example
 * app.use(requireBearer(new BearerAuth({ verifier, resourceMetadataUrl })))
 */
export function requireBearer(auth: BearerAuth): Middleware {
  return async function requireBearer(ctx, next) {
    ctx.set(mcpCorsHeaders(ctx.get('origin') || undefined))
    let info: AuthInfo
    try {
      info = await auth.authenticate({ method: ctx.method, url: new URL(ctx.href), headers: ctx.headers })
    } catch (error) {
      const answer = auth.errorResponse(error)
      ctx.status = answer.status
      ctx.set(answer.headers)
      ctx.body = answer.body
      return
    }
    ctx.state['auth'] = info
    ;(ctx.req as typeof ctx.req & { auth?: AuthInfo }).auth = info
    await next()
  }
}
