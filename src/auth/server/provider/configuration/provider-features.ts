import type { Configuration } from 'oidc-provider'
import { errors } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import type { ProviderConfigurationDeps } from './deps.js'
import type { ProviderPages } from './provider-pages.js'
import { resourceIndicators } from './resource-indicators.js'

/**
 * oidc-provider's features, each on or off with its reason: registration (RFC 7591/7592) as
 * configured, client_credentials, DPoP (RFC 9449), introspection and revocation with explicit
 * policies, userinfo, sign-out on our pages, client ID metadata documents, resource indicators.
 */
export function providerFeatures(
  options: ResolvedOptions,
  deps: Pick<ProviderConfigurationDeps, 'scopes' | 'dpopNonceSecret'>,
  pages: Pick<ProviderPages, 'logoutSource' | 'postLogoutSuccessSource'>,
): Configuration['features'] {
  const a = defaults.authServer
  return {
    devInteractions: { enabled: false },
    registration: {
      enabled: options.registration.enabled,
      initialAccessToken: options.registration.initialAccessToken ?? false,
      issueRegistrationAccessToken: true,
    },
    registrationManagement: { enabled: options.registration.enabled, rotateRegistrationAccessToken: true },
    clientCredentials: { enabled: true },
    // RFC 9449: a token request with a proof gets tokens bound to its key (cnf.jkt, token_type
    // DPoP; a public client's refresh token too); replayed proofs are refused through the
    // adapter's ReplayDetection records, which every node shares
    dPoP: { enabled: true, nonceSecret: deps.dpopNonceSecret, requireNonce: () => a.dpop.requireNonce },
    // Both policies are oidc-provider 9's defaults (lib/helpers/defaults.js), written out so the
    // decision is ours and oidc-provider prints no "you SHOULD change it" notice: a public client
    // may introspect only its own tokens, an authenticated client any token it presents;
    introspection: {
      enabled: true,
      allowedPolicy: (_ctx, client, token) => client.clientAuthMethod !== 'none' || token.clientId === client.clientId,
    },
    // a client revokes only its own tokens: another client's token is ignored for a public client
    // (RFC 7009 answers 200 either way) and refused as invalid_request for an authenticated one.
    revocation: {
      enabled: true,
      allowedPolicy: (_ctx, client, token) => {
        if (token.clientId === client.clientId) return true
        if (client.clientAuthMethod === 'none') return false
        throw new errors.InvalidRequest('client is not authorized to revoke the presented token')
      },
    },
    userinfo: { enabled: true },
    rpInitiatedLogout: {
      enabled: true,
      // our pages (provider-pages)
      logoutSource: pages.logoutSource,
      postLogoutSuccessSource: pages.postLogoutSuccessSource,
    },
    clientIdMetadataDocument: {
      enabled: options.clientIdMetadataDocuments.enabled,
      ack: 'draft-02',
      cacheDuration: { min: a.clientIdMetadataDocuments.cacheMinSeconds, max: a.clientIdMetadataDocuments.cacheMaxSeconds },
    },
    resourceIndicators: resourceIndicators(options, deps),
  } as Configuration['features']
}
