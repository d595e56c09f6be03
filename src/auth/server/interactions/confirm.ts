import type { Context } from 'koa'
import { InteractionMismatch, type StepContext } from './context.js'

/** POST `/:uid/confirm`: the user consents; the grant gets what the prompt said was missing. */
export async function confirmStep(ctx: Context, { deps }: StepContext): Promise<void> {
  const { provider } = deps
  const details = await provider.interactionDetails(ctx.req, ctx.res)
  if (details.prompt.name !== 'consent' || details.session?.accountId === undefined) throw new InteractionMismatch()
  const accountId = details.session.accountId
  const clientId = String(details.params['client_id'])
  const promptDetails = details.prompt.details
  const grant = (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId })
  const missingScope = promptDetails['missingOIDCScope'] as string[] | undefined
  if (missingScope) grant.addOIDCScope(missingScope.join(' '))
  const missingClaims = promptDetails['missingOIDCClaims'] as string[] | undefined
  if (missingClaims) grant.addOIDCClaims(missingClaims)
  const missingResourceScopes = promptDetails['missingResourceScopes'] as Record<string, string[]> | undefined
  if (missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '))
  }
  const grantId = await grant.save()
  await deps.consents.remember(accountId, clientId, grantId)
  await deps.upstreamSessions?.bindGrant(accountId, grantId)
  await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}
