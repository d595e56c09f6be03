import type Provider from 'oidc-provider'
import { errors } from 'oidc-provider'

/** What a blocked client is told (the authorization endpoint's error page shows it too). */
export const BLOCKED_CLIENT_DESCRIPTION = "this client is blocked by the server's administrator"

/**
 * A client an administrator blocked gets nothing: every client lookup oidc-provider makes (the
 * authorization endpoint's, the token endpoint's client authentication, PAR, registration
 * management, revocation, introspection as a caller) answers `unauthorized_client` with a
 * description saying it is blocked, so the authorization endpoint renders its error page (no
 * client, no redirect) and the token endpoint refuses. `isBlocked` is an in-memory lookup
 * (BlockedClients): the token path pays one Set.has. Wraps the static `Client.find` once per
 * provider, outermost: a client kept by reuseUnchangedClients is refused as well.
 */
export function refuseBlockedClients(provider: Provider, isBlocked: (clientId: string) => boolean): void {
  const Client = provider.Client as unknown as { find(id: unknown): Promise<object | undefined> }
  const find = Client.find.bind(Client)
  Client.find = function find_(id: unknown) {
    if (typeof id === 'string' && isBlocked(id)) return Promise.reject(new errors.UnauthorizedClient(BLOCKED_CLIENT_DESCRIPTION))
    return find(id)
  }
}
