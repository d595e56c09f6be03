import type { Middleware } from 'koa'
import { defaults } from '../../config/defaults.js'
import { HttpError } from '../../net/http-error.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { authorizeMcpRequest } from './authorize-mcp-request.js'
import type { BearerAuth } from './bearer-auth.js'
import type { ProtectMcpOptions } from './protect-mcp-handler.js'

/**
 * Koa middleware: the bearer check (authorizeMcpRequest: preflight, token, per-tool scopes) in
 * front of whatever follows. The verified identity lands in `ctx.state.auth` and on
 * `ctx.req.auth` (where the MCP transports read it); a body read for tool scopes is left parsed
 * in `ctx.request.body` (where `streamableHttpKoa` takes it); a refusal is answered here.
 *
 * @example
 * app.use(requireBearer(new BearerAuth({ verifier, resourceMetadataUrl, toolScopes: { admin_stats: ['mcp:admin'] } })))
 */
export function requireBearer(auth: BearerAuth, options: ProtectMcpOptions = {}): Middleware {
  const maxBodyBytes = options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes
  return async function requireBearer(ctx, next) {
    const request = ctx.request as typeof ctx.request & { body?: unknown }
    let verdict
    try {
      verdict = await authorizeMcpRequest(auth, ctx.req, {
        maxBodyBytes,
        url: new URL(ctx.href),
        parsedBody: request.body,
        limit: options.limit,
        audit: options.audit,
        trustProxy: options.trustProxy,
      })
    } catch (error) {
      const httpError = error instanceof HttpError ? error : new HttpError(500, 'Internal server error', { cause: error })
      ctx.status = httpError.status
      ctx.set(httpError.headers)
      ctx.type = 'application/json'
      ctx.body = httpError.body()
      return
    }
    if (verdict.kind === 'preflight') {
      ctx.status = 204
      ctx.set(verdict.headers)
      return
    }
    ctx.set(verdict.headers)
    if (verdict.kind === 'limited') {
      ctx.status = 429
      ctx.body = verdict.body
      return
    }
    if (verdict.kind === 'refused') {
      ctx.status = verdict.status
      ctx.body = verdict.body
      return
    }
    ctx.state['auth'] = verdict.info
    ;(ctx.req as typeof ctx.req & { auth?: AuthInfo }).auth = verdict.info
    if (verdict.body !== undefined) request.body = verdict.body
    await next()
  }
}
