import type { Configuration } from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { ResolvedOptions } from '../options.js'
import { accountsAndInteractions } from './configuration/accounts-and-interactions.js'
import { clientDefaults } from './configuration/client-defaults.js'
import { clientMetadataPolicy } from './configuration/client-metadata-policy.js'
import { clientUrlFetch } from './configuration/client-url-fetch.js'
import type { ProviderConfigurationDeps } from './configuration/deps.js'
import { providerFeatures } from './configuration/provider-features.js'
import { providerPages } from './configuration/provider-pages.js'
import { tokenPolicy } from './configuration/token-policy.js'

export type { ProviderConfigurationDeps } from './configuration/deps.js'

/**
 * The oidc-provider configuration for an MCP authorization server, built from resolved options.
 * Each decision oidc-provider leaves to the deployment is made here, with its reason, one part
 * per module of ./configuration/:
 * - every client must use PKCE (S256 is the only method oidc-provider 9 implements): client-defaults;
 * - `resource` defaults to the configured MCP resource, and access tokens for it are RFC 9068
 *   JWTs whose `aud` is that resource: resource-indicators, in provider-features;
 * - refresh tokens are issued to every client allowed the refresh_token grant (MCP clients
 *   expect one after an ordinary consent, without `offline_access` or `prompt=consent`), rotate on
 *   every use, and outlive the browser session: token-policy;
 * - redirect URIs are https, or http on a loopback host, for registered, static and CIMD clients:
 *   client-metadata-policy;
 * - client_credentials is for clients that authenticate, and carries at most the client's
 *   registered scope; a user grant carries at most what the account may have (see ScopePolicy):
 *   client-metadata-policy, resource-indicators, accounts-and-interactions;
 * - what clients point us at is fetched on public addresses only: client-url-fetch;
 * - the pages oidc-provider renders are ours: provider-pages.
 */
export function providerConfiguration(options: ResolvedOptions, deps: ProviderConfigurationDeps): Configuration {
  const resourceScopes = [...new Set(options.resources.flatMap((resource) => resource.scopes))]
  const a = defaults.authServer
  const pages = providerPages(options)
  return {
    adapter: deps.adapter as unknown as Configuration['adapter'],
    ...clientDefaults(options),
    ...accountsAndInteractions(options, deps),
    scopes: [...new Set([...a.oidcScopes, ...resourceScopes])],
    cookies: {
      keys: deps.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    jwks: deps.jwks as Configuration['jwks'],
    routes: { ...a.routes },
    // the proof algorithms our resource servers accept too (asymmetric only)
    enabledJWA: { dPoPSigningAlgValues: [...defaults.resourceServer.dpop.algorithms] as NonNullable<Configuration['enabledJWA']>['dPoPSigningAlgValues'] },
    features: providerFeatures(options, deps, pages),
    ...clientUrlFetch(options),
    ...clientMetadataPolicy(deps),
    ...tokenPolicy(options, deps),
    renderError: pages.renderError,
    clockTolerance: a.clockToleranceSeconds,
  }
}
