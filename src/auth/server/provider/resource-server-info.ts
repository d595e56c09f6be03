import type { ResolvedResource } from '../options.js'
import type { ScopePolicy } from './scope-policy.js'
import { BoundedMap } from '../../../collections/bounded-map.js'

/** What oidc-provider needs to know of a resource to issue a token for it (audience, scope, format, lifetime). */
export interface ResourceServerInfo {
  readonly scope: string
  readonly audience: string
  readonly accessTokenTTL?: number
  readonly accessTokenFormat: 'jwt' | 'opaque'
  readonly jwt?: { readonly sign: { readonly alg: string } }
}

/** The resource server info for `resource` with `scope` (its own lifetime and token format). */
export function resourceServerInfo(resource: ResolvedResource, scope: string, accessTokenAlg: string): ResourceServerInfo {
  return {
    scope,
    audience: resource.uri,
    // a resource's own lifetime wins over the server's (see ttl in the provider configuration)
    ...(resource.accessTokenTtlSeconds !== undefined ? { accessTokenTTL: resource.accessTokenTtlSeconds } : {}),
    // Opaque tokens are for resource servers that introspect (RFC 7662) and want revocation to bite at once.
    ...(resource.tokenFormat === 'opaque' ? { accessTokenFormat: 'opaque' as const } : { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: accessTokenAlg } } }),
  }
}

interface ClientCredentialsEntry {
  readonly info: ResourceServerInfo
  readonly defaultScope: string
}

const frozen = (info: ResourceServerInfo): ResourceServerInfo => {
  if (info.jwt !== undefined) Object.freeze(Object.freeze(info.jwt).sign)
  return Object.freeze(info)
}

/**
 * The resource server info oidc-provider asks for on every token request, built once per resource
 * and scope instead of per request: for a user's token all the resource's scopes (the grant
 * narrows them), for a client_credentials token what the client's registered `scope` allows
 * (ScopePolicy). oidc-provider copies what it needs into its own ResourceServer; what is handed out
 * here is frozen, so no request can change it for the next. A resource changed through the store
 * (several nodes) is a new object with entries of its own; the old one's go with it. Per resource
 * at most `maxScopes` registered scopes are kept (each client registers its own), the oldest
 * forgotten first.
 */
export class ResourceServerInfos {
  readonly #scopes: ScopePolicy
  readonly #accessTokenAlg: string
  readonly #maxScopes: number
  readonly #kept = new WeakMap<ResolvedResource, { user: ResourceServerInfo; clients: Map<string | undefined, ClientCredentialsEntry> }>()

  constructor(options: { scopes: ScopePolicy; accessTokenAlg: string; maxScopes: number }) {
    this.#scopes = options.scopes
    this.#accessTokenAlg = options.accessTokenAlg
    this.#maxScopes = options.maxScopes
  }

  /** For a token a user granted: every scope of the resource. */
  forUser(resource: ResolvedResource): ResourceServerInfo {
    return this.#entry(resource).user
  }

  /** For a client_credentials token of a client that registered `registeredScope` (none: the resource's default scopes). */
  forClientCredentials(resource: ResolvedResource, registeredScope: string | undefined): ResourceServerInfo {
    return this.#clientEntry(resource, registeredScope).info
  }

  /** The scope a client_credentials request without `scope` gets (ScopePolicy.clientCredentialsDefaultScopes), kept beside its info. */
  clientCredentialsDefaultScope(resource: ResolvedResource, registeredScope: string | undefined): string {
    return this.#clientEntry(resource, registeredScope).defaultScope
  }

  #clientEntry(resource: ResolvedResource, registeredScope: string | undefined): ClientCredentialsEntry {
    const { clients } = this.#entry(resource)
    let entry = clients.get(registeredScope)
    if (entry === undefined) {
      entry = {
        info: frozen(resourceServerInfo(resource, this.#scopes.clientCredentialsScopes(registeredScope, resource.uri).join(' '), this.#accessTokenAlg)),
        defaultScope: this.#scopes.clientCredentialsDefaultScopes(registeredScope, resource.uri).join(' '),
      }
      clients.set(registeredScope, entry)
    }
    return entry
  }

  #entry(resource: ResolvedResource): { user: ResourceServerInfo; clients: Map<string | undefined, ClientCredentialsEntry> } {
    let entry = this.#kept.get(resource)
    if (entry === undefined) {
      entry = { user: frozen(resourceServerInfo(resource, resource.scopes.join(' '), this.#accessTokenAlg)), clients: new BoundedMap(this.#maxScopes) }
      this.#kept.set(resource, entry)
    }
    return entry
  }
}
