import type { ClientMetadata, Configuration } from 'oidc-provider'
import type { ResolvedOptions } from '../../options.js'

/**
 * The clients: the configured ones, the metadata a registration that names none gets (the code
 * flow with refresh tokens, a client secret in the Basic header), the authentication methods
 * accepted, the code flow only, and PKCE for every client (S256 is the only method oidc-provider 9
 * implements).
 */
export function clientDefaults(options: ResolvedOptions): Pick<Configuration, 'clients' | 'clientDefaults' | 'clientAuthMethods' | 'responseTypes' | 'pkce'> {
  return {
    clients: options.clients as ClientMetadata[],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    responseTypes: ['code'],
    pkce: { required: () => true },
  }
}
