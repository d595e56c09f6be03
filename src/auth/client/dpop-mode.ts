import { defaults } from '../../config/defaults.js'
import type { ResourceMetadata } from './discover.js'
import { serverSupportsDpop } from './dpop.js'
import { McpOAuthError } from './mcp-oauth-error.js'

/**
 * When a client asks for DPoP-bound tokens (RFC 9449): `auto` when the resource and the
 * authorization server both say they take them, `always` whenever the authorization server does,
 * `never` (Bearer) unless the resource takes nothing else.
 */
export type DpopMode = 'auto' | 'always' | 'never'

/** Whether a resource's protected resource metadata says it accepts DPoP proofs of `alg` (RFC 9728 §2). */
export function resourceAcceptsDpop(metadata: ResourceMetadata | undefined, alg: string = defaults.oauthClient.dpopAlgorithm): boolean {
  if (metadata === undefined) return false
  if (metadata.dpop_bound_access_tokens_required === true) return true
  const algs = metadata.dpop_signing_alg_values_supported
  return Array.isArray(algs) && algs.includes(alg)
}

/**
 * Whether a token request for `resource` asks for a DPoP-bound token (issue 28): `auto` binds
 * only when the resource's metadata says it accepts DPoP and the authorization server lists our
 * algorithm (without resource metadata: Bearer); `always` binds whenever the authorization server
 * lists it and fails otherwise; `never` asks for Bearer and fails when the resource requires DPoP.
 * The failures are {@link McpOAuthError} `dpop`, before any login page is shown.
 *
 * @example dpopBinding('auto', { resource, dpop_signing_alg_values_supported: ['ES256'] }, asMetadata) // true
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function dpopBinding(
  mode: DpopMode,
  resource: { resource: string; resourceMetadata?: ResourceMetadata | undefined },
  server: { issuer: string; dpop_signing_alg_values_supported?: unknown },
  alg: string = defaults.oauthClient.dpopAlgorithm,
): boolean {
  const serverSupports = serverSupportsDpop(server, alg)
  if (mode === 'never') {
    if (resource.resourceMetadata?.dpop_bound_access_tokens_required === true) {
      throw new McpOAuthError(
        'dpop',
        `${resource.resource} accepts only DPoP-bound access tokens (dpop_bound_access_tokens_required), and DPoP is turned off: use dpop 'auto' or 'always' (the CLI: leave out --no-dpop)`,
      )
    }
    return false
  }
  if (mode === 'always') {
    if (!serverSupports) {
      throw new McpOAuthError(
        'dpop',
        `${server.issuer} does not offer DPoP with ${alg} (its metadata's dpop_signing_alg_values_supported), and DPoP was asked for: use dpop 'auto' or 'never' (the CLI: leave out --dpop)`,
      )
    }
    return true
  }
  return serverSupports && resourceAcceptsDpop(resource.resourceMetadata, alg)
}
