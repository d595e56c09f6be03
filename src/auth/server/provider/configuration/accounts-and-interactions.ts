import type { Configuration, Account as OidcAccount } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import type { ProviderConfigurationDeps } from './deps.js'
import { interactionPolicyFor } from './interaction-policy.js'

/**
 * Who signs in and what they grant: the claims of each OIDC scope, accounts from our store (a
 * deleted or disabled one gets nothing), the grant a returning user already gave (narrowed to what
 * the account may still have), and our login and consent pages as oidc-provider's interactions.
 */
export function accountsAndInteractions(
  options: ResolvedOptions,
  deps: Pick<ProviderConfigurationDeps, 'accounts' | 'consents' | 'scopes' | 'upstreamLoginNeeded'>,
): Pick<Configuration, 'claims' | 'findAccount' | 'loadExistingGrant' | 'interactions'> {
  return {
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    async findAccount(ctx, id): Promise<OidcAccount | undefined> {
      const account = await deps.accounts.findById(id)
      // a deleted or disabled account gets no token: no code redeemed, no refresh
      if (account === undefined || account.disabled === true) return undefined
      // a browser session signed in before the account's sessions were ended (a password change) is signed out
      const session = (ctx as { oidc?: { entities?: { Session?: { authTime?: () => number | undefined; accountId?: string } } } } | undefined)?.oidc?.entities?.Session
      const signedInAt = session?.accountId === id ? session.authTime?.() : undefined
      if (account.sessionsNotBefore !== undefined && signedInAt !== undefined && signedInAt < account.sessionsNotBefore) return undefined
      return {
        accountId: account.id,
        claims: () => ({ sub: account.id, preferred_username: account.username, ...account.claims }),
      }
    },
    async loadExistingGrant(ctx) {
      const { oidc } = ctx
      const client = oidc.client!
      const fromResult = oidc.result?.consent?.grantId
      const fromSession = oidc.session?.grantIdFor(client.clientId)
      const accountId = oidc.session?.accountId
      const remembered = accountId === undefined ? undefined : await deps.consents.grantIdFor(accountId, client.clientId)
      for (const grantId of [fromResult, fromSession, remembered]) {
        if (grantId === undefined) continue
        const grant = await oidc.provider.Grant.find(grantId)
        if (grant === undefined || grant.accountId !== accountId) continue
        // A grant consented before the account's scopes were narrowed keeps only what it may still have.
        const account = await deps.accounts.findById(accountId!)
        let narrowed = false
        for (const [indicator, granted] of Object.entries(grant.resources ?? {})) {
          const allowed = deps.scopes.accountScopes(account, indicator)
          const removed = String(granted)
            .split(' ')
            .filter((scope) => scope !== '' && !allowed.has(scope))
          if (removed.length === 0) continue
          grant.resources![indicator] = String(granted)
            .split(' ')
            .filter((scope) => allowed.has(scope))
            .join(' ')
          grant.rejectResourceScope(indicator, removed.join(' '))
          narrowed = true
        }
        if (narrowed) await grant.save()
        return grant
      }
      return undefined
    },
    interactions: {
      url: (_ctx, interaction) => `${options.mountPath}${defaults.authServer.interactionPath}/${interaction.uid}`,
      policy: interactionPolicyFor(deps),
    },
  }
}
