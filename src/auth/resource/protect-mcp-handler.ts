import type { IncomingMessage, ServerResponse } from 'node:http'
import { defaults } from '../../config/defaults.js'
import { ErrorCode } from '../../jsonrpc/index.js'
import { HttpError } from '../../net/http-error.js'
import { sendHttpError } from '../../net/send-http-error.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { authorizeMcpRequest } from './authorize-mcp-request.js'
import type { BearerAuth } from './bearer-auth.js'
import type { McpRateLimit } from './mcp-rate-limit.js'
import type { ToolCallAudit } from './tool-call-audit.js'

/** What {@link protectMcpHandler} adds to the bearer check: a body limit, the rate limit, the audit of refusals. */
export interface ProtectMcpOptions {
  maxBodyBytes?: number
  /** The principal's (and failed authentications' address group's) rate limit; none: unlimited. */
  limit?: McpRateLimit | undefined
  /** Where refusals (and, when on, allowed calls) are recorded. */
  audit?: ToolCallAudit | undefined
  /** Count unauthenticated requests by the X-Forwarded-For address a trusted proxy sets. */
  trustProxy?: boolean | undefined
}

/** An MCP transport entry point at node:http level; `parsedBody` when a wrapper already read the body. */
export type McpRoute = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown) => Promise<void>

/**
 * The bearer check (authorizeMcpRequest) in front of an MCP transport handler, at node:http level
 * so it serves the raw handler and the Koa app alike. The auth info reaches MCP handlers as
 * `req.auth` → `RequestContext.authInfo`; a body read for tool scopes is handed on parsed.
 * `maxBodyBytes` bounds that read (default: the Streamable HTTP limit, 4 MiB).
 *
 * @example
 * const streamable = new StreamableHttpHandler(server, { allowedHosts: ['localhost'] })
 * const route = protectMcpHandler(auth, (req, res, body) => streamable.handle(req, res, body))
 * createServer((req, res) => void route(req, res)).listen(3000)
 */
export function protectMcpHandler(auth: BearerAuth, route: McpRoute, options: ProtectMcpOptions = {}): McpRoute {
  const maxBodyBytes = options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes
  const { limit, audit, trustProxy } = options
  // A request URL without a query is this route's path itself, so its parsed URL is the same
  // every time: parsing it per request was ~2 µs of a ~55 µs protected call (CPU profile, issue 14)
  let routeUrl: { raw: string; url: URL } | undefined
  const urlOf = (raw: string): URL => {
    if (raw.includes('?')) return new URL(raw, 'http://localhost')
    if (routeUrl?.raw !== raw) routeUrl = { raw, url: new URL(raw, 'http://localhost') }
    return routeUrl.url
  }
  return async function protectedMcp(req, res, parsedBody) {
    let verdict
    try {
      verdict = await authorizeMcpRequest(auth, req, { maxBodyBytes, url: urlOf(req.url ?? '/'), parsedBody, limit, audit, trustProxy })
    } catch (error) {
      sendHttpError(res, error)
      return
    }
    if (verdict.kind === 'preflight') {
      res.writeHead(204, verdict.headers).end()
      return
    }
    if (verdict.kind === 'limited') {
      if (!req.complete) req.resume()
      res.writeHead(429, verdict.headers).end(verdict.body)
      return
    }
    if (verdict.kind === 'refused') {
      if (!req.complete) req.resume()
      // unavailable, not refused: answered as the transports answer an outage (JSON-RPC, Retry-After)
      if (verdict.status === 503) {
        sendHttpError(
          res,
          new HttpError(503, `Service Unavailable: ${verdict.body['error_description'] ?? 'retry shortly'}`, { rpcCode: ErrorCode.ConnectionClosed, headers: verdict.headers }),
        )
        return
      }
      res.writeHead(verdict.status, { ...verdict.headers, 'content-type': 'application/json' })
      res.end(JSON.stringify(verdict.body))
      return
    }
    for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value)
    req.auth = verdict.info
    return route(req, res, verdict.body)
  }
}
