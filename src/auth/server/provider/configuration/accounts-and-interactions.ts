import type { Configuration, Account as OidcAccount } from 'oidc-provider'
import { defaults } from '../../../../config/defaults.js'
import type { ResolvedOptions } from '../../options.js'
import type { ProviderConfigurationDeps } from './deps.js'
import { interactionPolicyFor } from './interaction-policy.js'
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider'
import { oidcOf } from '../oidc-context.js'
import type { AccountStore } from '../../stores/account-store.js'

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
    async findAccount(_ctx, id): Promise<OidcAccount | undefined> {
      const account = await deps.accounts.findById(id)
      // a deleted or disabled account gets no token: no code redeemed, no refresh
      if (account === undefined || account.disabled === true) return undefined
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
      policy: withEndedSessions(interactionPolicyFor(deps), deps.accounts),
    },
  }
}

/**
 * A browser session signed in before the account's `sessionsNotBefore` (its password changed
 * since: people's own page, a set-password link), or of an account deleted or disabled since, no
 * longer counts: the login page is shown again.
 */
function withEndedSessions(policy: ReturnType<typeof interactionPolicy.base>, accounts: AccountStore): ReturnType<typeof interactionPolicy.base> {
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('sessions_ended', "the account's sessions were ended (its password changed)", async (ctx: KoaContextWithOIDC) => {
      const session = oidcOf(ctx)?.session
      const accountId = session?.accountId
      if (session === undefined || accountId === undefined) return interactionPolicy.Check.NO_NEED_TO_PROMPT
      const account = await accounts.findById(accountId)
      // gone or disabled (findAccount gives oidc-provider nothing, and its consent prompt would fail on the missing grant): sign in again
      if (account === undefined || account.disabled === true) return interactionPolicy.Check.REQUEST_PROMPT
      const notBefore = account.sessionsNotBefore
      return notBefore !== undefined && (session.authTime() ?? 0) < notBefore ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT
    }),
  )
  return policy
}
