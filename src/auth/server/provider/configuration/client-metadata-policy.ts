import type { Configuration, KoaContextWithOIDC } from 'oidc-provider'
import { errors } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import { metadataTooLarge } from '../../middleware/registration-limits.js'
import { redirectUriProblem } from '../redirect-policy.js'
import type { ScopePolicy } from '../scope-policy.js'
import type { ProviderConfigurationDeps } from './deps.js'

/** RFC 7591 metadata MCP clients send that we keep (and hang our redirect policy on). */
const EXTRA_CLIENT_METADATA = ['software_id', 'software_version'] as const

/**
 * What every client's metadata must satisfy, for registered, configured and CIMD clients alike
 * (oidc-provider runs `extraClientMetadata.validator` on each): metadata within size limits, the
 * client_credentials policy, and redirect URIs that are https, or http on a loopback host.
 */
export function clientMetadataPolicy(deps: Pick<ProviderConfigurationDeps, 'scopes'>): Pick<Configuration, 'extraClientMetadata'> {
  const a = defaults.authServer
  return {
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      validator(ctx, key, _value, metadata) {
        // Runs once per extra property whether present or not: apply the policies once.
        if (key !== EXTRA_CLIENT_METADATA[0]) return
        const tooLarge = metadataTooLarge(metadata as Record<string, unknown>, { maxString: a.registration.maxMetadataString, maxList: a.registration.maxMetadataList })
        if (tooLarge !== undefined) throw new errors.InvalidClientMetadata(tooLarge)
        clientCredentialsPolicy(ctx, metadata as Record<string, unknown>, deps.scopes)
        for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
          const uris = (metadata as Record<string, unknown>)[field]
          if (!Array.isArray(uris)) continue
          for (const uri of uris) {
            const problem = redirectUriProblem(uri)
            if (problem !== undefined) {
              // InvalidRedirectUri has a fixed description (for authorization requests); say what is wrong.
              throw field === 'redirect_uris' ? Object.assign(new errors.InvalidRedirectUri(), { error_description: problem }) : new errors.InvalidClientMetadata(problem)
            }
          }
        }
      },
    },
  }
}

/**
 * Registration policy for client_credentials (RFC 7591 §2 lets the server refuse metadata):
 * a client without credentials never gets a token without a user, and a client that anyone could
 * have registered (open registration, its RFC 7592 update, a client ID metadata document — every
 * validation that runs inside a request) may register only the open-registration scopes for it.
 * Administrators (`clients add`, the configuration file) register without a request.
 */
function clientCredentialsPolicy(ctx: KoaContextWithOIDC | undefined, metadata: Record<string, unknown>, scopes: ScopePolicy): void {
  const grantTypes = metadata['grant_types']
  if (!Array.isArray(grantTypes) || !grantTypes.includes('client_credentials')) return
  if (metadata['token_endpoint_auth_method'] === 'none') {
    throw new errors.InvalidClientMetadata('client_credentials needs client authentication: a client with token_endpoint_auth_method "none" gets tokens for a user only')
  }
  if (ctx === undefined) return
  if (typeof metadata['scope'] !== 'string') {
    metadata['scope'] = scopes.openRegistrationScope
    return
  }
  const refused = scopes.refusedOpenRegistrationScopes(metadata['scope'])
  if (refused.length > 0) {
    throw new errors.InvalidClientMetadata(
      `scope ${refused.join(' ')} cannot be registered for client_credentials without an administrator (allowed: ${scopes.openRegistrationScope || 'none'})`,
    )
  }
}
