import type { Context } from 'koa'
import type { InteractionResults } from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import { isStorageUnavailable } from '../../../storage/errors.js'
import { TemporarilyUnavailableError } from '../../errors.js'
import type { Account } from '../stores/account-store.js'
import { clientAddress } from '../middleware/client-address.js'
import { usernameKey } from '../stores/username-key.js'
import { page, type StepContext } from './context.js'
import { showStep } from './show.js'
import { requestFacts } from '../provider/audit-provider-events.js'

/** How a login attempt ends: the account, too many attempts (per address or per account), or a wrong name or password. */
type Outcome = { account: Account } | { refused: 429; retryAfterSeconds: number; per: 'address' | 'account' } | { refused: 401 }

/**
 * POST `/:uid/login`: the local login form, rate-limited per address and per account name. When
 * the shared limiter or the account store cannot be reached, the form answers 503 with
 * Retry-After: the attempt is neither counted nor tried (fail closed, see RedisRateLimiter).
 */
export async function loginStep(ctx: Context, step: StepContext, form: URLSearchParams): Promise<void> {
  const username = form.get('username') ?? ''
  const password = form.get('password') ?? ''
  let outcome: Outcome
  try {
    outcome = await attempt(ctx, step, username, password)
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error
    const retryAfter = defaults.authServer.unavailableRetryAfterSeconds
    ctx.set('retry-after', String(retryAfter))
    page(ctx, step.deps, 503, 'error', 'Sign-in unavailable', {
      error: 'temporarily_unavailable',
      description: `Sign-in is unavailable for a moment. Try again in ${retryAfter} s.`,
    })
    // an outage, not a fault of this request: one line where errors are logged, no stack
    ctx.app.emit('error', new TemporarilyUnavailableError('sign-in: storage is unreachable', { cause: error }), ctx)
    return
  }
  await recordSignIn(ctx, step, username, outcome)
  if (!('account' in outcome)) {
    ctx.status = outcome.refused
    if (outcome.refused === 429) {
      ctx.set('retry-after', String(outcome.retryAfterSeconds))
      await showStep(ctx, step, `Too many sign-in attempts. Try again in ${outcome.retryAfterSeconds} s.`, username)
    } else await showStep(ctx, step, 'Wrong username or password.', username)
    return
  }
  const result: InteractionResults = { login: { accountId: outcome.account.id, amr: ['pwd'] } }
  await step.deps.provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
}

async function attempt(ctx: Context, { deps }: StepContext, username: string, password: string): Promise<Outcome> {
  if (deps.loginLimits !== undefined) {
    for (const [limiter, key, per] of [
      [deps.loginLimits.perAddress, clientAddress(ctx), 'address'],
      [deps.loginLimits.perAccount, usernameKey(username), 'account'],
    ] as const) {
      const verdict = await limiter.hit(key)
      if (!verdict.allowed) return { refused: 429, retryAfterSeconds: verdict.retryAfterSeconds, per }
    }
  }
  const account = username === '' || password === '' ? undefined : await deps.accounts.authenticate(username, password)
  return account === undefined ? { refused: 401 } : { account }
}

/**
 * The attempt in the audit trail, once: who tried (the name typed, never the password), from which
 * address group, for which client. Unknown name and wrong password are one reason,
 * `invalid_credentials`, as the page says: the trail is an operator's, the name tells them which.
 */
async function recordSignIn(ctx: Context, { deps, uid }: StepContext, username: string, outcome: Outcome): Promise<void> {
  if (deps.observer === undefined) return
  // the interaction names the client (an interaction gone is the step's own failure, shown after)
  const interaction = await deps.provider.Interaction.find(uid).catch(() => undefined)
  const clientId = interaction?.params['client_id']
  const facts = {
    ...requestFacts(ctx),
    ...(typeof clientId === 'string' ? { clientId } : {}),
    ...(username !== '' ? { username: username.slice(0, defaults.observe.events.maxRecordedUsernameLength) } : {}),
    details: { factor: 'password' },
  }
  if ('account' in outcome) deps.observer.audit({ type: 'sign-in.succeeded', result: 'success', subject: outcome.account.id, ...facts, username: outcome.account.username })
  else if (outcome.refused === 429) deps.observer.audit({ type: 'sign-in.rate-limited', result: 'refused', reason: `too_many_attempts_per_${outcome.per}`, ...facts })
  else deps.observer.audit({ type: 'sign-in.failed', result: 'failure', reason: 'invalid_credentials', ...facts })
}
