import type { Context } from 'koa'
import type { InteractionResults } from 'oidc-provider'
import { requestFacts } from '../provider/audit-provider-events.js'
import { InteractionMismatch, page, type InteractionDeps, type StepContext } from './context.js'

/**
 * GET on the upstream provider's redirect URI: the result is handed to the interaction under its
 * own path (where the interaction cookie is sent).
 */
export async function upstreamCallback(ctx: Context, deps: InteractionDeps): Promise<void> {
  const back = await deps.upstream!.callback(ctx)
  if (back === undefined) {
    page(ctx, deps, 400, 'error', 'Sign-in failed', {
      error: 'unknown or expired sign-in',
      description: 'This sign-in has expired or did not start here. Start again from the application.',
    })
    return
  }
  ctx.redirect(`${deps.basePath}/${back.uid}/upstream?handle=${encodeURIComponent(back.handle)}`)
}

/** GET `/:uid/upstream?handle=…`: finishes the login step with the upstream identity (or its refusal). */
export async function upstreamDoneStep(ctx: Context, { deps, uid }: StepContext): Promise<void> {
  const { provider } = deps
  const result = await deps.upstream!.take(uid, String(ctx.query['handle'] ?? ''))
  if (result === undefined) throw new InteractionMismatch()
  const details = await provider.interactionDetails(ctx.req, ctx.res)
  const clientId = String(details.params['client_id'])
  if (result.accountId !== undefined) {
    // A remembered consent skips the consent step: tie its grant to this new upstream session now.
    const remembered = await deps.consents.grantIdFor(result.accountId, clientId)
    if (remembered !== undefined) await deps.upstreamSessions?.bindGrant(result.accountId, remembered)
  }
  if (deps.observer !== undefined) {
    const facts = { clientId, ...requestFacts(ctx), details: { factor: 'upstream' } }
    if (result.accountId !== undefined) {
      const account = await deps.accounts.findById(result.accountId)
      deps.observer.audit({ type: 'sign-in.succeeded', result: 'success', subject: result.accountId, ...(account !== undefined ? { username: account.username } : {}), ...facts })
    } else deps.observer.audit({ type: 'sign-in.failed', result: 'failure', reason: upstreamReason(result.error), ...facts })
  }
  const outcome: InteractionResults =
    result.accountId !== undefined
      ? { login: { accountId: result.accountId, amr: ['fed'] } }
      : { error: result.error ?? 'access_denied', error_description: result.error_description ?? 'the identity provider refused the sign-in' }
  await provider.interactionFinished(ctx.req, ctx.res, outcome, { mergeWithLastSubmission: false })
}

/** The identity provider's error code as the event's reason, when it looks like one (it is outside input). */
function upstreamReason(error: string | undefined): string {
  return error !== undefined && /^[a-z_]{1,64}$/.test(error) ? error : 'access_denied'
}
