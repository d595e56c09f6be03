import type { IncomingMessage } from 'node:http'
import { readJsonBody } from '../../net/read-json-body.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { noteCaller } from '../../observe/request-record.js'
import { type BearerAuth, refusalFacts } from './bearer-auth.js'
import { mcpCorsHeaders, mcpPreflightHeaders } from './cors.js'
import { type McpRateLimit, retryAfterSeconds } from './mcp-rate-limit.js'
import { rateLimitedAnswer } from './rate-limited-answer.js'
import { requestAddressGroup } from './request-address-group.js'
import type { ToolCallAudit } from './tool-call-audit.js'

/** What to do with a request to a protected MCP endpoint. */
export type McpAuthorization =
  /** A CORS preflight: answer 204 with these headers. */
  | { kind: 'preflight'; headers: Record<string, string> }
  /** Refused: answer with this status, headers (the challenge) and OAuth error body. */
  | { kind: 'refused'; status: number; headers: Record<string, string>; body: Record<string, string> }
  /** Over the rate limit: answer 429 with these headers (Retry-After) and this JSON text (JSON-RPC error for a POST). */
  | { kind: 'limited'; status: 429; headers: Record<string, string>; body: string }
  /** Allowed: hand `info` to the MCP handlers, with `body` when it was read here (tools/call scopes, tool costs). */
  | { kind: 'allowed'; info: AuthInfo; headers: Record<string, string>; body: unknown }

/** What the bearer check is given beside the request. */
export interface AuthorizeMcpOptions {
  maxBodyBytes: number
  url: URL
  parsedBody?: unknown
  /** The resource's rate limit (none: unlimited). */
  limit?: McpRateLimit | undefined
  /** Where refusals are recorded (none: not recorded). */
  audit?: ToolCallAudit | undefined
  /** Read the client's address from X-Forwarded-For (behind a trusted proxy). */
  trustProxy?: boolean | undefined
}

/**
 * The one bearer check in front of an MCP endpoint, whatever the framework: CORS preflight, the
 * token from the Authorization header only, then — when tools have their own scopes or costs —
 * the JSON body read once here (size-limited; a parsed body passed in is used instead), the
 * principal's rate limit and the `tools/call` scopes. A request that fails authentication is
 * counted against its address group instead. Adapters (`protectMcpHandler` for node:http,
 * `requireBearer` for Koa) only translate the result; a body that cannot be read throws the
 * transports' HttpError (413, -32700).
 */
export async function authorizeMcpRequest(auth: BearerAuth, req: IncomingMessage, options: AuthorizeMcpOptions): Promise<McpAuthorization> {
  const origin = req.headers.origin
  if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
    return { kind: 'preflight', headers: mcpPreflightHeaders(origin, headerValue(req.headers['access-control-request-headers'])) }
  }
  const headers = mcpCorsHeaders(origin)
  const { limit, audit } = options
  let info: AuthInfo
  try {
    info = await auth.authenticate({ method: req.method ?? 'GET', url: options.url, headers: req.headers })
  } catch (error) {
    return failedAuthentication(auth, req, error, headers, options)
  }
  noteCaller(req, info)
  // a proof with last window's nonce passed: the client gets the current one for its next proof
  const nonce = info.extra?.['dpopNonce']
  if (typeof nonce === 'string') headers['dpop-nonce'] = nonce
  const post = req.method === 'POST'
  let body = options.parsedBody
  if (post && body === undefined && (auth.hasToolScopes || limit?.needsBody === true)) {
    try {
      body = await readJsonBody(req, options.maxBodyBytes)
    } catch (error) {
      // a body that is not JSON (or too large) still counts: a flood of them is limited too
      const taken = limit?.takeForPrincipal(info, undefined) ?? 0
      const waitMs = typeof taken === 'number' ? taken : await taken
      if (waitMs > 0) return limited(req, info, undefined, waitMs, headers, options)
      throw error
    }
  }
  if (limit !== undefined) {
    const taken = limit.takeForPrincipal(info, body)
    const waitMs = typeof taken === 'number' ? taken : await taken
    if (waitMs > 0) return limited(req, info, body, waitMs, headers, options)
  }
  if (!auth.hasToolScopes || !post) return { kind: 'allowed', info, headers, body }
  try {
    auth.checkToolCalls(info, body)
  } catch (error) {
    const facts = refusalFacts(error)
    if (audit !== undefined && facts !== undefined) audit.refused(req, info, facts, 'insufficient_scope')
    return refused(auth, error, headers)
  }
  return { kind: 'allowed', info, headers, body }
}

/** A failed authentication: recorded when it was a replayed DPoP proof, counted against the address group. */
async function failedAuthentication(
  auth: BearerAuth,
  req: IncomingMessage,
  error: unknown,
  headers: Record<string, string>,
  options: AuthorizeMcpOptions,
): Promise<McpAuthorization> {
  const answer = refused(auth, error, headers)
  if (answer.kind !== 'refused' || answer.status >= 500) return answer
  const facts = options.audit === undefined ? undefined : refusalFacts(error)
  if (facts !== undefined) options.audit!.refused(req, undefined, facts, 'invalid_dpop_proof')
  if (options.limit === undefined) return answer
  const taken = options.limit.takeForAddress(requestAddressGroup(req, options.trustProxy === true))
  const waitMs = typeof taken === 'number' ? taken : await taken
  return waitMs > 0 ? limited(req, undefined, options.parsedBody, waitMs, headers, options) : answer
}

/** 429: recorded, and answered in JSON-RPC for a POST (its id read from the body when it was not yet). */
async function limited(
  req: IncomingMessage,
  info: AuthInfo | undefined,
  parsed: unknown,
  waitMs: number,
  headers: Record<string, string>,
  options: AuthorizeMcpOptions,
): Promise<McpAuthorization> {
  const seconds = retryAfterSeconds(waitMs)
  let body = parsed
  if (req.method === 'POST' && body === undefined && !req.complete) body = await readJsonBody(req, options.maxBodyBytes).catch(() => undefined)
  options.audit?.rateLimited(req, info, body, seconds)
  return { kind: 'limited', status: 429, ...rateLimitedAnswer(req.method === 'POST', body, seconds, headers) }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value
}

function refused(auth: BearerAuth, error: unknown, cors: Record<string, string>): McpAuthorization {
  const answer = auth.errorResponse(error)
  return { kind: 'refused', status: answer.status, headers: { ...cors, ...answer.headers }, body: answer.body }
}
