import type { Context } from 'koa'
import { actingAs } from '../admin/admin-audit.js'
import { requestFacts } from '../provider/audit-provider-events.js'
import { passwordRefusal } from '../stores/account-store.js'
import type { ConsoleDeps } from './console-deps.js'
import { csrfToken, FormRefused, readConsoleForm } from './console-forms.js'
import { h, notice, sendPage } from './console-view.js'

/**
 * `/admin/password/{token}`: the one-time set-password link an administrator hands out. GET shows
 * the form while the link is live (`peek`); POST uses it (`use`: once, on every node, the first
 * use wins), sets the password and ends the account's other sessions (`sessionsNotBefore`). The
 * form's CSRF token is bound to the link itself: there is no session here.
 */
export async function servePasswordPage(ctx: Context, deps: ConsoleDeps, token: string): Promise<void> {
  const action = `${deps.surfaces.admin.basePath}/password/${token}`
  const csrf = csrfToken(deps.csrfKey, `password:${token}`)
  const link = await deps.passwordLinks.peek(token)
  const account = link === undefined ? undefined : await deps.accounts.findById(link.accountId)
  if (link === undefined || account === undefined) return gone(ctx, deps)
  if (ctx.method === 'GET') return form(ctx, deps, account.username, action, csrf)
  let body: URLSearchParams
  try {
    body = await readConsoleForm(ctx, { origin: deps.issuer.origin, csrfKey: deps.csrfKey, binding: `password:${token}` })
  } catch (error) {
    if (error instanceof FormRefused) return sendPage(ctx, { status: 403, title: 'Request refused', content: notice(error.message, true) }, deps.branding)
    throw error
  }
  const password = body.get('password') ?? ''
  if (password !== body.get('confirm')) return form(ctx, deps, account.username, action, csrf, 'The password and its confirmation differ.')
  // asked before the link is used: a refused password does not spend it
  const refused = passwordRefusal(password)
  if (refused !== undefined) return form(ctx, deps, account.username, action, csrf, `The password was refused: ${refused}.`)
  // claimed before the write: of two submissions (two nodes) exactly one sets the password
  const used = await deps.passwordLinks.use(token)
  if (used === undefined || used.accountId !== account.id) return gone(ctx, deps)
  await deps.accounts.update(account.username, { password, sessionsNotBefore: Math.floor(Date.now() / 1000) })
  actingAs({ actor: { subject: account.id, username: account.username, channel: 'console' }, ...requestFacts(ctx) }, () =>
    deps.administration.audit.record({
      type: 'account.changed',
      result: 'success',
      subject: account.id,
      username: account.username,
      details: { fields: ['password'], via: 'password-link' },
    }),
  )
  sendPage(
    ctx,
    {
      title: 'Password set',
      content: `<p id="password-set">The password of <strong>${h(account.username)}</strong> is set. Sign in with it from your application.</p><p><a href="${h(deps.surfaces.account.basePath)}">Your account page</a></p>`,
    },
    deps.branding,
  )
}

function form(ctx: Context, deps: ConsoleDeps, username: string, action: string, csrf: string, error?: string): void {
  sendPage(
    ctx,
    {
      status: error === undefined ? 200 : 400,
      title: 'Set your password',
      notice: error === undefined ? '' : notice(error, true),
      content: `<form method="post" action="${h(action)}" id="set-password">
<input type="hidden" name="csrf" value="${h(csrf)}">
<p>For the account <strong>${h(username)}</strong>. This link works once.</p>
<input type="text" name="username" value="${h(username)}" autocomplete="username" hidden>
<label for="password">New password</label><input id="password" type="password" name="password" required minlength="8" autocomplete="new-password">
<label for="confirm">New password again</label><input id="confirm" type="password" name="confirm" required minlength="8" autocomplete="new-password">
<div class="actions"><button type="submit" class="primary" id="set">Set password</button></div>
</form>`,
    },
    deps.branding,
  )
}

function gone(ctx: Context, deps: ConsoleDeps): void {
  sendPage(
    ctx,
    {
      status: 410,
      title: 'Link no longer valid',
      content: '<p id="link-gone">This set-password link was used, replaced by a newer one, or expired. Ask an administrator for a new one.</p>',
    },
    deps.branding,
  )
}
