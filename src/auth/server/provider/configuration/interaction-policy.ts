import type { KoaContextWithOIDC } from 'oidc-provider'
import { interactionPolicy } from 'oidc-provider'
import { oidcOf } from '../oidc-context.js'
import type { ProviderConfigurationDeps } from './deps.js'

/**
 * oidc-provider's prompts, plus one login check for delegated login: a live browser session is
 * not enough when the account's upstream session has ended (revoked upstream, refused at a
 * refresh): the user signs in at the upstream again instead of getting a grant that dies at its
 * first refresh.
 */
export function interactionPolicyFor(deps: Pick<ProviderConfigurationDeps, 'upstreamLoginNeeded'>): ReturnType<typeof interactionPolicy.base> {
  const policy = interactionPolicy.base()
  const needed = deps.upstreamLoginNeeded
  if (needed === undefined) return policy
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('upstream_session_ended', 'the identity provider ended the session', async (ctx: KoaContextWithOIDC) => {
      const accountId = oidcOf(ctx)?.session?.accountId
      return accountId !== undefined && (await needed(accountId)) ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT
    }),
  )
  return policy
}
