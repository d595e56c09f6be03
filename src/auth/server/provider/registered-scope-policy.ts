import type Provider from 'oidc-provider'
import { currentContext, oidcOf } from './oidc-context.js'

/** Routes where a user is the one being asked: the registered scope does not cap them. */
const USER_ROUTES = new Set(['authorization', 'resume', 'pushed_authorization_request'])

/**
 * oidc-provider treats a client's registered `scope` as a hard cap on every request, so a client
 * that registered with the scope it was first challenged for (`mcp offline_access`, as the
 * official Python SDK does) gets `invalid_scope` when it later steps up to `mcp mcp:admin` for a
 * user who may have it. Our rule: for user grants the account's scopes decide (ScopePolicy, at
 * consent); the registered scope caps client_credentials only. So on the user-facing routes the
 * client's `scope` reads as absent; everywhere else (token endpoint, registration responses) it is
 * the registered value. Every client oidc-provider loads goes through `Client.find`, which is
 * wrapped here once per provider.
 */
export function registeredScopeCapsClientCredentialsOnly(provider: Provider): void {
  const Client = provider.Client as unknown as { find(id: string): Promise<Record<string, unknown> | undefined> }
  const find = Client.find.bind(Client)
  const seen = new WeakSet<object>()
  const scopeByRoute = (client: Record<string, unknown> | undefined): Record<string, unknown> | undefined => {
    if (client === undefined || seen.has(client)) return client
    seen.add(client)
    const registered = client['scope']
    Object.defineProperty(client, 'scope', {
      configurable: true,
      enumerable: true,
      get() {
        const route = oidcOf(currentContext())?.route
        return route !== undefined && USER_ROUTES.has(route) ? undefined : registered
      },
    })
    return client
  }
  Client.find = function find_(id: string) {
    return find(id).then(scopeByRoute)
  }
}
