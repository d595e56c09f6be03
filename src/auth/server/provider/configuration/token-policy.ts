import type { Configuration } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import { grantDigest } from '../../stores/grant-revocations.js'
import { builtInResourceIds } from '../../admin/built-in-resources.js'
import { oidcOf } from '../oidc-context.js'
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
  const own = builtInResourceIds(options.issuer)
  return {
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && (a.refreshTokens.issueWithoutOfflineAccess || code.scopes.has('offline_access')),
    // `gid` lets a revoked grant reach its JWT access tokens (see GrantRevocations);
    // `preferred_username` names the account to the resource server, beside its UUID subject.
    // (not async: a client_credentials token, which has neither, costs no promise)
    extraTokenClaims: (ctx, token) => {
      if (token.kind !== 'AccessToken' || typeof token.grantId !== 'string') return undefined
      const grantId = token.grantId
      const accountId = (token as { accountId?: unknown }).accountId
      if (typeof accountId !== 'string') return { gid: grantDigest(grantId) }
      // the server's own resources need to know how recent the sign-in is (RFC 9470 step-up)
      const audience = (token as { resourceServer?: { audience?: unknown } }).resourceServer?.audience
      const authTime = audience === own.admin || audience === own.account ? authTimeOf(ctx) : undefined
      return deps.accounts.findById(accountId).then((account) => ({
        gid: grantDigest(grantId),
        ...(account !== undefined ? { preferred_username: account.username } : {}),
        ...(authTime !== undefined ? { auth_time: authTime } : {}),
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

/** When the person signed in (epoch seconds): the code's or, on a refresh, the refresh token's (the sign-in it came from). */
function authTimeOf(ctx: unknown): number | undefined {
  const entities = oidcOf(ctx as object)?.entities as { AuthorizationCode?: { authTime?: unknown }; RefreshToken?: { authTime?: unknown } } | undefined
  const time = entities?.AuthorizationCode?.authTime ?? entities?.RefreshToken?.authTime
  return typeof time === 'number' ? time : undefined
}
