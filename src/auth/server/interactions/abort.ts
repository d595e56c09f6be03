import type { Context } from 'koa'
import type { StepContext } from './context.js'

/** POST `/:uid/abort`: the user said no; the client gets access_denied. */
export async function abortStep(ctx: Context, { deps }: StepContext): Promise<void> {
  const result = { error: 'access_denied', error_description: 'the user denied the request' }
  await deps.provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
}
