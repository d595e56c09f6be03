import { canonicalResourceUri } from './resource-uri.js'

/** What a protected MCP server says about itself (RFC 9728 §2). */
export interface ProtectedResourceMetadataOptions {
  /** The server's canonical URI (token audience). */
  resource: string
  /** Issuer identifiers of the authorization servers it trusts. */
  authorizationServers: readonly string[]
  scopesSupported?: readonly string[]
  resourceName?: string
  resourceDocumentation?: string
  /** JWS algorithms accepted on DPoP proofs (RFC 9728 §2, RFC 9449). */
  dpopSigningAlgValuesSupported?: readonly string[]
  /** Only DPoP-bound access tokens are accepted. */
  dpopBoundAccessTokensRequired?: boolean
}

/**
 * The RFC 9728 protected resource metadata document, built in one place with the wire names.
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): Record<string, unknown> {
  return {
    resource: canonicalResourceUri(options.resource),
    authorization_servers: [...options.authorizationServers],
    ...(options.scopesSupported !== undefined ? { scopes_supported: [...options.scopesSupported] } : {}),
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation !== undefined ? { resource_documentation: options.resourceDocumentation } : {}),
    ...(options.dpopSigningAlgValuesSupported !== undefined ? { dpop_signing_alg_values_supported: [...options.dpopSigningAlgValuesSupported] } : {}),
    ...(options.dpopBoundAccessTokensRequired === true ? { dpop_bound_access_tokens_required: true } : {}),
  }
}

/**
 * The metadata documents (JSON text) of one or several resources by request path: each at
 * `/.well-known/oauth-protected-resource{path}` (RFC 9728 §3.1), the first at the root too.
 */
export function protectedResourceMetadataByPath(options: ProtectedResourceMetadataOptions | readonly ProtectedResourceMetadataOptions[]): Map<string, string> {
  const documents = new Map<string, string>()
  for (const resource of Array.isArray(options) ? options : [options]) {
    const path = new URL(canonicalResourceUri(resource.resource)).pathname
    const body = JSON.stringify(protectedResourceMetadata(resource))
    if (documents.size === 0) documents.set('/.well-known/oauth-protected-resource', body)
    documents.set(`/.well-known/oauth-protected-resource${path === '/' ? '' : path}`, body)
  }
  return documents
}
