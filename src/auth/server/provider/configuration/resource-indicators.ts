import type { KoaContextWithOIDC } from 'oidc-provider'
import { errors } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import { isTokenRequest, oidcOf } from '../oidc-context.js'
import { defaultResourceOf } from '../resource-groups.js'
import { ResourceServerInfos } from '../resource-server-info.js'
import type { ProviderConfigurationDeps } from './deps.js'

/**
 * RFC 8707 resource indicators, and what a token for each resource is: `resource` defaults to the
 * configured MCP resource, and access tokens for it are RFC 9068 JWTs (or opaque, as the resource
 * says) whose `aud` is that resource, with its lifetime and scopes (ResourceServerInfos). A
 * resource that takes DPoP-bound tokens only gets none without a proof, and client_credentials is
 * for clients that authenticate, with at most the client's registered scope.
 */
export function resourceIndicators(options: ResolvedOptions, deps: Pick<ProviderConfigurationDeps, 'scopes'>) {
  const defaultResource = options.resources[0]!.uri
  const infos = new ResourceServerInfos({ scopes: deps.scopes, accessTokenAlg: options.accessTokenAlg, maxScopes: defaults.authServer.keptScopesPerResource })
  return {
    enabled: true,
    // A 2025-03-26 client omits `resource`: bind its token to the configured MCP resource.
    // (several: the first of one server's identifiers, see resource-groups)
    defaultResource(_ctx: KoaContextWithOIDC, _client: unknown, oneOf?: string[]) {
      return defaultResourceOf(oneOf, defaultResource, deps.scopes)
    },
    useGrantedResource: () => true,
    getResourceServerInfo(ctx: KoaContextWithOIDC, indicator: string, client: { clientAuthMethod: string; scope?: string }) {
      const resource = deps.scopes.resource(indicator)
      if (resource === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`)
      const oidc = oidcOf(ctx)
      // a resource that takes bound tokens only: a token request without a proof gets nothing
      // (a proof that is there was checked before resources are resolved)
      if (resource.requireDpop === true && oidc?.route === 'token' && !ctx.get('DPoP')) {
        throw new errors.InvalidDpopProof(`tokens for ${indicator} are DPoP-bound only: send a DPoP proof with the token request (RFC 9449)`)
      }
      if (oidc !== undefined && isTokenRequest(oidc, 'client_credentials')) {
        // Registration already refuses this; a client from a document or an old store must not slip through.
        if (client.clientAuthMethod === 'none')
          throw new errors.UnauthorizedClient('client_credentials is only for clients that authenticate; a public client gets tokens for a user only')
        // OAuth 2.1 §3.2.2.1: no `scope` gets the resource's default scopes within the client's
        // registered scope, as an authorization request does (defaultScope), not a token
        // without scope the resource refuses; built once per registered scope (a lookup here)
        if (!oidc.params!['scope']) {
          const scope = infos.clientCredentialsDefaultScope(resource, client.scope)
          if (scope !== '') oidc.params!['scope'] = scope
        }
        return infos.forClientCredentials(resource, client.scope)
      }
      return infos.forUser(resource)
    },
  }
}
