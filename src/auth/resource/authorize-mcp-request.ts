import type { IncomingMessage } from 'node:http'
import { readJsonBody } from '../../net/read-json-body.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { noteCaller } from '../../observe/request-record.js'
import type { BearerAuth } from './bearer-auth.js'
import { mcpCorsHeaders, mcpPreflightHeaders } from './cors.js'

/** What to do with a request to a protected MCP endpoint. */
export type McpAuthorization =
  /** A CORS preflight: answer 204 with these headers. */
  | { kind: 'preflight'; headers: Record<string, string> }
  /** Refused: answer with this status, headers (the challenge) and OAuth error body. */
  | { kind: 'refused'; status: number; headers: Record<string, string>; body: Record<string, string> }
  /** Allowed: hand `info` to the MCP handlers, with `body` when it was read here (tools/call scopes). */
  | { kind: 'allowed'; info: AuthInfo; headers: Record<string, string>; body: unknown }

/**
 * The one bearer check in front of an MCP endpoint, whatever the framework: CORS preflight, the
 * token from the Authorization header only, then — when tools have their own scopes — the JSON
 * body read once here (size-limited; a parsed body passed in is used instead) and checked for
 * `tools/call` scopes. Adapters (`protectMcpHandler` for node:http, `requireBearer` for Koa) only
 * translate the result; a body that cannot be read throws the transports' HttpError (413, -32700).
 */
export async function authorizeMcpRequest(auth: BearerAuth, req: IncomingMessage, options: { maxBodyBytes: number; url: URL; parsedBody?: unknown }): Promise<McpAuthorization> {
  const origin = req.headers.origin
  if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
    return { kind: 'preflight', headers: mcpPreflightHeaders(origin, headerValue(req.headers['access-control-request-headers'])) }
  }
  const headers = mcpCorsHeaders(origin)
  let info: AuthInfo
  try {
    info = await auth.authenticate({ method: req.method ?? 'GET', url: options.url, headers: req.headers })
  } catch (error) {
    return refused(auth, error, headers)
  }
  noteCaller(req, info)
  // a proof with last window's nonce passed: the client gets the current one for its next proof
  const nonce = info.extra?.['dpopNonce']
  if (typeof nonce === 'string') headers['dpop-nonce'] = nonce
  if (!auth.hasToolScopes || req.method !== 'POST') return { kind: 'allowed', info, headers, body: options.parsedBody }
  const body = options.parsedBody ?? (await readJsonBody(req, options.maxBodyBytes))
  try {
    auth.checkToolCalls(info, body)
  } catch (error) {
    return refused(auth, error, headers)
  }
  return { kind: 'allowed', info, headers, body }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value
}

function refused(auth: BearerAuth, error: unknown, cors: Record<string, string>): McpAuthorization {
  const answer = auth.errorResponse(error)
  return { kind: 'refused', status: answer.status, headers: { ...cors, ...answer.headers }, body: answer.body }
}
