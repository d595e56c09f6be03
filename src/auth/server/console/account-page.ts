import type { Context, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { actingAs, type AdminOrigin } from '../admin/admin-audit.js'
import { requestFacts } from '../provider/audit-provider-events.js'
import { breakableUrl } from '../../../views/breakable-url.js'
import { AccessDeniedError, InsufficientUserAuthenticationError, OAuthError } from '../../errors.js'
import type { Account } from '../stores/account-store.js'
import { maxAgeOf, SignInNeeded, type ConsoleSession } from './console-auth.js'
import type { ConsoleDeps } from './console-deps.js'
import { csrfToken, FormRefused, readConsoleForm } from './console-forms.js'
import { h, notice, postButton, sendPage, table, when } from './console-view.js'

/** What a finished action says (`?done=`): fixed texts, nothing reflected. */
const DONE: Record<string, string> = {
  revoked: 'Access ended: the application must ask you again.',
  password: 'Password changed: your other sessions are ended.',
}

/**
 * People's own page, `/account`: any signed-in person (the console client, resource
 * `${issuer}/account`, scope `mcp-auth:account`, a cookie of its own) sees the applications they
 * allowed and ends any of them, and changes their password (the current one required; every
 * other session of the account then ends, this one is re-stamped).
 */
export async function serveAccountPage(ctx: Context, next: Next, deps: ConsoleDeps): Promise<void> {
  const surface = deps.surfaces.account
  const sub = ctx.path.slice(surface.basePath.length)
  if (sub === '/callback' && ctx.method === 'GET') {
    const result = await deps.auth.callback(ctx, surface)
    if ('next' in result) return ctx.redirect(result.next)
    sendPage(
      ctx,
      { status: 400, title: 'Sign-in failed', content: `${notice(`${result.error}: ${result.description}`, true)}<p><a href="${h(surface.basePath)}">Try again</a></p>` },
      deps.branding,
    )
    return
  }
  const revoke = /^\/grants\/([^/]+)\/revoke$/.exec(sub)
  const known = sub === '' || sub === '/password' || sub === '/signout' || revoke !== null
  if (!known) return next()
  if ((sub === '' && ctx.method !== 'GET') || (sub !== '' && ctx.method !== 'POST')) {
    ctx.status = 405
    return
  }
  let session: ConsoleSession
  let account: Account
  try {
    session = await deps.auth.session(ctx, surface)
    account = await person(deps, session).catch(async (error: unknown) => {
      if (!(error instanceof OAuthError) || error.status !== 401 || error instanceof InsufficientUserAuthenticationError) throw error
      session = await deps.auth.refresh(ctx, surface, session)
      return person(deps, session)
    })
  } catch (error) {
    if (error instanceof SignInNeeded) return deps.auth.startSignIn(ctx, surface, surface.basePath, error.maxAge)
    if (error instanceof InsufficientUserAuthenticationError) return deps.auth.startSignIn(ctx, surface, surface.basePath, maxAgeOf(error))
    if (error instanceof OAuthError && (error.status === 401 || error instanceof AccessDeniedError)) {
      deps.auth.signOut(ctx, surface)
      if (error instanceof AccessDeniedError) {
        sendPage(ctx, { status: 403, title: 'Refused', content: notice(error.message, true) }, deps.branding)
        return
      }
      return deps.auth.startSignIn(ctx, surface, surface.basePath)
    }
    throw error
  }
  const csrf = csrfToken(deps.csrfKey, session.sid)
  try {
    if (ctx.method === 'GET') return await show(ctx, deps, account, csrf)
    const form = await readConsoleForm(ctx, { origin: deps.issuer.origin, csrfKey: deps.csrfKey, binding: session.sid })
    if (sub === '/signout') return await deps.auth.endSession(ctx, surface, session)
    if (revoke !== null) {
      const grantId = decodeURIComponent(revoke[1]!)
      // only a grant of this account: the id alone proves nothing
      const own = (await deps.administration.grants.list({ username: account.username })).some((grant) => grant.grantId === grantId)
      if (own) await actingAs(ownAction(account, ctx), () => deps.administration.grants.revoke(grantId, 'user'))
      return done(ctx, surface.basePath, 'revoked')
    }
    const current = form.get('current') ?? ''
    const password = form.get('password') ?? ''
    if (!(await deps.accounts.checkPassword(account.id, current))) return await show(ctx, deps, account, csrf, 'The current password is not right.')
    if (password !== form.get('confirm')) return await show(ctx, deps, account, csrf, 'The new password and its confirmation differ.')
    const now = Math.floor(Date.now() / 1000)
    try {
      await deps.accounts.update(account.username, { password, sessionsNotBefore: now })
    } catch (error) {
      if (error instanceof Error && error.name === 'InvalidAccountError') return await show(ctx, deps, account, csrf, error.message)
      throw error
    }
    actingAs(ownAction(account, ctx), () =>
      deps.administration.audit.record({ type: 'account.changed', result: 'success', subject: account.id, username: account.username, details: { fields: ['password'] } }),
    )
    // this session made the change: it goes on
    deps.auth.save(ctx, surface, { ...session, restampedAt: now })
    return done(ctx, surface.basePath, 'password')
  } catch (error) {
    if (error instanceof FormRefused) {
      sendPage(ctx, { status: 403, title: 'Request refused', content: `${notice(error.message, true)}<p><a href="${h(surface.basePath)}">Back</a></p>` }, deps.branding)
      return
    }
    throw error
  }
}

function done(ctx: Context, base: string, what: string): void {
  ctx.redirect(`${base}?done=${what}`)
  ctx.status = 303
}

/** The person behind the session: the token checked for people's page, the account active, the sign-in not ended since. */
async function person(deps: ConsoleDeps, session: ConsoleSession): Promise<Account> {
  const token = await deps.accountBearer.authenticate({
    method: 'GET',
    url: new URL(deps.surfaces.account.resource),
    headers: { authorization: `Bearer ${session.tokens.accessToken}` },
  })
  const sub = token.claims?.['sub']
  const account = typeof sub === 'string' ? await deps.accounts.findById(sub) : undefined
  if (account === undefined) throw new AccessDeniedError('the account of this sign-in no longer exists')
  if (account.disabled === true) throw new AccessDeniedError(`the account ${account.username} is disabled`)
  const authTime = typeof token.claims?.['auth_time'] === 'number' ? token.claims['auth_time'] : 0
  const signedIn = Math.max(authTime, session.restampedAt ?? 0)
  if (account.sessionsNotBefore !== undefined && signedIn < account.sessionsNotBefore) {
    throw new InsufficientUserAuthenticationError('this sign-in was ended (the password changed since): sign in again', 0)
  }
  return account
}

async function show(ctx: Context, deps: ConsoleDeps, account: Account, csrf: string, error?: string): Promise<void> {
  const base = deps.surfaces.account.basePath
  const grants = (await deps.administration.grants.list({ username: account.username })).filter((grant) => grant.clientId !== defaults.authServer.admin.console.clientId)
  const rows = grants.map((grant) => [
    `<strong>${h(grant.clientName ?? grant.clientId)}</strong><br><code class="muted small">${h(grant.clientId)}</code>`,
    Object.entries(grant.resources)
      .map(([uri, scopes]) => `<code class="url">${breakableUrl(uri)}</code><br><span class="muted">${h(scopes)}</span>`)
      .join('<br>'),
    when(grant.createdAt),
    postButton(`${base}/grants/${encodeURIComponent(grant.grantId)}/revoke`, 'Revoke', csrf, { secondary: true, id: `revoke-${grant.clientId}` }),
  ])
  const doneCode = ctx.URL.searchParams.get('done')
  sendPage(
    ctx,
    {
      status: error === undefined ? 200 : 400,
      title: `Your account, ${account.username}`,
      nav: `<nav class="console" aria-label="Your account"><a href="${h(base)}" aria-current="page">Your account</a><form method="post" action="${h(`${base}/signout`)}"><input type="hidden" name="csrf" value="${h(csrf)}"><button type="submit" class="secondary" id="sign-out">Sign out</button></form></nav>`,
      notice: error !== undefined ? notice(error, true) : doneCode !== null && DONE[doneCode] !== undefined ? notice(DONE[doneCode]) : '',
      content: `<h2>Applications you allowed</h2>
${table('Applications with access to your account', ['Application', 'Resources and scopes', 'Allowed', ''], rows, 'You have not allowed any application.')}
<p class="muted">When each was last used is not recorded; revoking ends the application’s tokens at once.</p>
<h2>Change your password</h2>
<form method="post" action="${h(`${base}/password`)}" id="change-password">
<input type="hidden" name="csrf" value="${h(csrf)}">
<input type="text" name="username" value="${h(account.username)}" autocomplete="username" hidden>
<label for="current">Current password</label><input id="current" type="password" name="current" required autocomplete="current-password">
<label for="password">New password</label><input id="password" type="password" name="password" required minlength="8" autocomplete="new-password">
<label for="confirm">New password again</label><input id="confirm" type="password" name="confirm" required minlength="8" autocomplete="new-password">
<div class="actions"><button type="submit" class="primary" id="change">Change password</button></div>
<p class="muted">Your other sessions end: applications you allowed keep their access until you revoke it.</p>
</form>`,
    },
    deps.branding,
  )
}

/** A person acting on their own account from their page: the actor of its audit events. */
function ownAction(account: Account, ctx: Context): AdminOrigin {
  return { actor: { subject: account.id, username: account.username, channel: 'console' }, ...requestFacts(ctx) }
}
