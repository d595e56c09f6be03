import type { Context } from 'koa'
import type { InteractionResults } from 'oidc-provider'
import { clientAddress } from '../client-address.js'
import { usernameKey } from '../username-key.js'
import type { StepContext } from './context.js'
import { showStep } from './show.js'

/** POST `/:uid/login`: the local login form, rate-limited per address and per account name. */
export async function loginStep(ctx: Context, step: StepContext, form: URLSearchParams): Promise<void> {
  const { deps } = step
  const username = form.get('username') ?? ''
  const password = form.get('password') ?? ''
  if (deps.loginLimits !== undefined) {
    for (const [limiter, key] of [
      [deps.loginLimits.perAddress, clientAddress(ctx)],
      [deps.loginLimits.perAccount, usernameKey(username)],
    ] as const) {
      const verdict = limiter.hit(key)
      if (!verdict.allowed) {
        ctx.status = 429
        ctx.set('retry-after', String(verdict.retryAfterSeconds))
        await showStep(ctx, step, `Too many sign-in attempts. Try again in ${verdict.retryAfterSeconds} s.`, username)
        return
      }
    }
  }
  const account = username === '' || password === '' ? undefined : await deps.accounts.authenticate(username, password)
  if (account === undefined) {
    ctx.status = 401
    await showStep(ctx, step, 'Wrong username or password.', username)
    return
  }
  const result: InteractionResults = { login: { accountId: account.id, amr: ['pwd'] } }
  await deps.provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
}
