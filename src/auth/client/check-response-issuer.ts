import type * as oauth from 'oauth4webapi'
import { McpOAuthError } from './mcp-oauth-error.js'

/**
 * RFC 9207 §2.4 as MCP 2026-07-28 tabulates it, applied to the authorization response before its
 * code goes anywhere: an `iss` that is present must equal the issuer recorded from the validated
 * metadata by simple string comparison (no case folding, port elision, trailing-slash or
 * percent-encoding normalisation), whether or not the server advertises
 * `authorization_response_iss_parameter_supported`; when it does advertise it, `iss` must be
 * there. Throws an `authorization` {@link McpOAuthError} that repeats none of the response's
 * `error` fields (a response from the wrong server is not acted on).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-response-validation
 */
export function checkResponseIssuer(response: URL, server: Pick<oauth.AuthorizationServer, 'issuer' | 'authorization_response_iss_parameter_supported'>): void {
  const values = response.searchParams.getAll('iss')
  if (values.length > 1) throw new McpOAuthError('authorization', 'the authorization response carries iss more than once; it was not used')
  const iss = values[0]
  if (iss === undefined) {
    if (server.authorization_response_iss_parameter_supported !== true) return
    throw new McpOAuthError(
      'authorization',
      `${server.issuer} advertises authorization_response_iss_parameter_supported but its authorization response carries no iss; it was not used (RFC 9207)`,
    )
  }
  if (iss !== server.issuer) {
    throw new McpOAuthError(
      'authorization',
      `the authorization response names the issuer ${JSON.stringify(iss)}, not ${JSON.stringify(server.issuer)} where the login was sent; it was not used (RFC 9207)`,
    )
  }
}
