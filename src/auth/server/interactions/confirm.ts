import type { Context } from 'koa'
import { consentDecision, denyForScopes, finishConsent } from './consent-decision.js'
import { InteractionMismatch, type StepContext } from './context.js'

/** POST `/:uid/confirm`: the user consents; the grant gets what was missing and the account may have. */
export async function confirmStep(ctx: Context, { deps }: StepContext): Promise<void> {
  const details = await deps.provider.interactionDetails(ctx.req, ctx.res)
  if (details.prompt.name !== 'consent' || details.session?.accountId === undefined) throw new InteractionMismatch()
  const decision = await consentDecision(deps, details)
  if (decision.nothingAllowed) return denyForScopes(ctx, deps, details)
  await finishConsent(ctx, deps, details, decision)
}
