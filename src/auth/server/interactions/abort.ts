import type { Context } from 'koa'
import { recordDenial } from './consent-decision.js'
import type { StepContext } from './context.js'

/** POST `/:uid/abort`: the user said no; the client gets access_denied. */
export async function abortStep(ctx: Context, { deps }: StepContext): Promise<void> {
  if (deps.observer !== undefined) recordDenial(ctx, deps, await deps.provider.interactionDetails(ctx.req, ctx.res), 'user_denied')
  const result = { error: 'access_denied', error_description: 'the user denied the request' }
  await deps.provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
}
