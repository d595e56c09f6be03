import type { IncomingMessage, ServerResponse } from 'node:http'
import type { BearerAuth } from '../auth/resource/bearer-auth.js'
import { mcpCorsHeaders, mcpPreflightHeaders } from '../auth/resource/cors.js'
import type { AuthInfo } from '../protocol/context.js'
import { readJsonBody } from '../transports/http/read-json-body.js'
import { sendHttpError } from '../transports/http/send-http-error.js'

type McpRoute = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown) => Promise<void>

/**
 * Puts the bearer check in front of an MCP transport handler (node:http level, so it serves the
 * raw handler and the Koa app alike): CORS preflight, token from the Authorization header only,
 * then — when tools have their own scopes — the JSON body is read once here (size-limited),
 * checked for `tools/call` scopes and handed on parsed. The auth info reaches MCP handlers as
 * `req.auth` → `RequestContext.authInfo`.
 */
export function protectMcpHandler(auth: BearerAuth, route: McpRoute, options: { maxBodyBytes: number }): McpRoute {
  return async function protectedMcp(req, res) {
    const origin = req.headers.origin
    if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
      res.writeHead(204, mcpPreflightHeaders(origin)).end()
      return
    }
    for (const [name, value] of Object.entries(mcpCorsHeaders(origin))) res.setHeader(name, value)
    let info: AuthInfo
    try {
      info = await auth.authenticate({ method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://localhost'), headers: req.headers })
    } catch (error) {
      return refuse(auth, req, res, error)
    }
    req.auth = info
    if (!auth.hasToolScopes || req.method !== 'POST') return route(req, res)
    let body: unknown
    try {
      body = await readJsonBody(req, options.maxBodyBytes)
    } catch (error) {
      sendHttpError(res, error)
      return
    }
    try {
      auth.checkToolCalls(info, body)
    } catch (error) {
      return refuse(auth, req, res, error)
    }
    return route(req, res, body)
  }
}

function refuse(auth: BearerAuth, req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const answer = auth.errorResponse(error)
  if (!req.complete) req.resume()
  res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json' })
  res.end(JSON.stringify(answer.body))
}
