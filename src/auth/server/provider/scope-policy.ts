import type { Account } from '../stores/account-store.js'
import type { ResolvedResource } from '../options.js'
import type { BuiltInResourceIds } from '../admin/built-in-resources.js'

/**
 * Who may be granted which resource scopes. One place for the rules the consent step, remembered
 * grants and the client_credentials grant apply:
 * - a user grant carries at most what the account may have: its own `scopes`, or the resource's
 *   `defaultScopes` when it has none — whatever the client asked for or registered;
 * - a client_credentials token carries at most the client's registered `scope` (none registered:
 *   the resource's `defaultScopes`), and a client from open registration or a client ID metadata
 *   document may only register `openRegistrationScopes` for that grant;
 * - the server's own resources go by role, whatever an account's scope list says: the admin API's
 *   scope to an administrator (not disabled) and to a machine client registered with it by an
 *   administrator (never by open registration, never as a default), people's own page's scope to
 *   every account and no machine.
 */
export class ScopePolicy {
  #resources: Map<string, ResolvedResource>
  readonly #openRegistrationScopes: ReadonlySet<string>
  readonly #builtIn: BuiltInResourceIds | undefined
  /** Scopes only the built-in resources offer: never open registrations'. */
  readonly #builtInScopes: ReadonlySet<string>

  constructor(resources: readonly ResolvedResource[], openRegistrationScopes: readonly string[], builtIn?: BuiltInResourceIds) {
    this.#resources = byIdentifier(resources)
    this.#openRegistrationScopes = new Set(openRegistrationScopes)
    this.#builtIn = builtIn
    this.#builtInScopes = new Set(builtIn === undefined ? [] : [builtIn.admin, builtIn.account].flatMap((uri) => this.#resources.get(uri)?.scopes ?? []))
  }

  /**
   * Serves another set of resources from now on (stored resources changed on another node). One
   * map is swapped for another: the lookups stay one Map.get per request.
   */
  setResources(resources: readonly ResolvedResource[]): void {
    this.#resources = byIdentifier(resources)
  }

  /** Every scope some resource offers (oidc-provider also lists these among OIDC scopes). */
  get resourceScopes(): ReadonlySet<string> {
    return new Set([...this.#resources.values()].flatMap((resource) => resource.scopes))
  }

  /** The resource `indicator` names: a resource, or one of its aliases as a resource of its own (`uri` the alias). */
  resource(indicator: string): ResolvedResource | undefined {
    return this.#resources.get(indicator)
  }

  /**
   * Every identifier of the server `indicator` names, `indicator` first (the resource and its
   * aliases); `[indicator]` alone for one without aliases or unknown here.
   */
  group(indicator: string): string[] {
    const resource = this.#resources.get(indicator)
    if (resource?.aliases === undefined) return [indicator]
    return [indicator, ...resource.aliases.filter((alias) => alias !== indicator)]
  }

  /** The scopes of `indicator` that `account` may be granted. */
  accountScopes(account: Pick<Account, 'scopes' | 'role' | 'disabled'> | undefined, indicator: string): Set<string> {
    const resource = this.#resources.get(indicator)
    if (resource === undefined || account === undefined) return new Set()
    if (indicator === this.#builtIn?.admin) return new Set(account.role === 'admin' && account.disabled !== true ? resource.scopes : [])
    if (indicator === this.#builtIn?.account) return new Set(resource.scopes)
    const allowed = account.scopes ?? resource.defaultScopes
    return new Set(resource.scopes.filter((scope) => allowed.includes(scope)))
  }

  /** The scopes of `indicator` a client_credentials token may carry for a client registered with `registeredScope`. */
  clientCredentialsScopes(registeredScope: string | undefined, indicator: string): string[] {
    const resource = this.#resources.get(indicator)
    if (resource === undefined || indicator === this.#builtIn?.account) return []
    // the admin scope only for a client an administrator registered with it, never as a default
    if (registeredScope === undefined) return indicator === this.#builtIn?.admin ? [] : [...resource.defaultScopes]
    const registered = new Set(registeredScope.split(' '))
    return resource.scopes.filter((scope) => registered.has(scope))
  }

  /**
   * What a client_credentials request without `scope` gets (OAuth 2.1 §3.2.2.1, RFC 6749 §3.3: a
   * pre-defined default): the resource's `defaultScopes` the client may have, as an authorization
   * request gets them; when none of them is registered, everything the client may have (a client
   * registered for `mcp:admin` alone means that), never a token without scope.
   */
  clientCredentialsDefaultScopes(registeredScope: string | undefined, indicator: string): string[] {
    const allowed = this.clientCredentialsScopes(registeredScope, indicator)
    const defaults = new Set(this.#resources.get(indicator)?.defaultScopes)
    const wanted = allowed.filter((scope) => defaults.has(scope))
    return wanted.length > 0 ? wanted : allowed
  }

  /** The resource scopes an open registration asks for client_credentials beyond what it may have. */
  refusedOpenRegistrationScopes(registeredScope: string): string[] {
    const resourceScopes = new Set([...this.#resources.values()].flatMap((resource) => resource.scopes))
    return registeredScope.split(' ').filter((scope) => resourceScopes.has(scope) && (this.#builtInScopes.has(scope) || !this.#openRegistrationScopes.has(scope)))
  }

  /** What open registrations get for client_credentials when they register no scope. */
  get openRegistrationScope(): string {
    return [...this.#openRegistrationScopes].join(' ')
  }
}

/**
 * One entry per identifier: a resource under its URI, and under each alias a copy whose `uri` is
 * the alias (the audience of its tokens) and whose `aliases` are the group's other identifiers.
 */
function byIdentifier(resources: readonly ResolvedResource[]): Map<string, ResolvedResource> {
  const map = new Map<string, ResolvedResource>()
  for (const resource of resources) {
    map.set(resource.uri, resource)
    for (const alias of resource.aliases ?? []) {
      if (map.has(alias)) continue
      map.set(alias, { ...resource, uri: alias, aliases: [resource.uri, ...(resource.aliases ?? []).filter((other) => other !== alias)] })
    }
  }
  return map
}
