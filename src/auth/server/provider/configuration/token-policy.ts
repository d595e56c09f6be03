import type { Configuration } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import { grantDigest } from '../../stores/grant-revocations.js'
import type { ProviderConfigurationDeps } from './deps.js'

/**
 * Which tokens are issued, what they carry and how long they live: refresh tokens go to every
 * client allowed the refresh_token grant (MCP clients expect one after an ordinary consent, without
 * `offline_access` or `prompt=consent`), rotate on every use and outlive the browser session;
 * access tokens carry the grant's digest (`gid`) and the account's username; lifetimes come from
 * the options (a resource's own access-token lifetime first).
 */
export function tokenPolicy(
  options: ResolvedOptions,
  deps: Pick<ProviderConfigurationDeps, 'accounts'>,
): Pick<Configuration, 'issueRefreshToken' | 'extraTokenClaims' | 'rotateRefreshToken' | 'expiresWithSession' | 'ttl'> {
  const a = defaults.authServer
  return {
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && (a.refreshTokens.issueWithoutOfflineAccess || code.scopes.has('offline_access')),
    // `gid` lets a revoked grant reach its JWT access tokens (see GrantRevocations);
    // `preferred_username` names the account to the resource server, beside its UUID subject.
    // (not async: a client_credentials token, which has neither, costs no promise)
    extraTokenClaims: (_ctx, token) => {
      if (token.kind !== 'AccessToken' || typeof token.grantId !== 'string') return undefined
      const grantId = token.grantId
      const accountId = (token as { accountId?: unknown }).accountId
      if (typeof accountId !== 'string') return { gid: grantDigest(grantId) }
      return deps.accounts.findById(accountId).then((account) => ({
        gid: grantDigest(grantId),
        ...(account !== undefined ? { preferred_username: account.username } : {}),
      }))
    },
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? options.ttl.accessToken,
      AuthorizationCode: options.ttl.authorizationCode,
      ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? options.ttl.clientCredentials,
      RefreshToken: options.ttl.refreshToken,
      Grant: options.ttl.grant,
      Interaction: options.ttl.interaction,
      Session: options.ttl.session,
      IdToken: options.ttl.idToken,
    },
  }
}
