import type { Context } from 'koa'
import { AdminError } from '../admin/admin-error.js'
import type { ConsoleDeps } from './console-deps.js'
import { csrfToken, FormRefused, readConsoleForm } from './console-forms.js'
import { h, notice, sendPage } from './console-view.js'

/**
 * `/admin/setup/{token}`: the one-time link a start printed on a store without an administrator.
 * It creates one administrator account (username and password), once, and signs nobody in: the
 * person then signs in to the console as anyone does.
 */
export async function serveSetupPage(ctx: Context, deps: ConsoleDeps, token: string): Promise<void> {
  const action = `${deps.surfaces.admin.basePath}/setup/${token}`
  const csrf = csrfToken(deps.csrfKey, `setup:${token}`)
  if (!(await deps.firstAdministrator.isLive(token))) return gone(ctx, deps)
  if (ctx.method === 'GET') return form(ctx, deps, action, csrf)
  let body: URLSearchParams
  try {
    body = await readConsoleForm(ctx, { origin: deps.issuer.origin, csrfKey: deps.csrfKey, binding: `setup:${token}` })
  } catch (error) {
    if (error instanceof FormRefused) return sendPage(ctx, { status: 403, title: 'Request refused', content: notice(error.message, true) }, deps.branding)
    throw error
  }
  const username = (body.get('username') ?? '').trim()
  const password = body.get('password') ?? ''
  if (password !== body.get('confirm')) return form(ctx, deps, action, csrf, 'The password and its confirmation differ.', username)
  try {
    const account = await deps.firstAdministrator.use(token, { username, password }, deps.administration.accounts)
    if (account === undefined) return gone(ctx, deps)
    sendPage(
      ctx,
      {
        title: 'Administrator created',
        content: `<p id="admin-created"><strong>${h(account.username)}</strong> is an administrator of this server. This link no longer works.</p><p><a href="${h(deps.surfaces.admin.basePath)}">Sign in to the console</a></p>`,
      },
      deps.branding,
    )
  } catch (error) {
    if (error instanceof AdminError) return form(ctx, deps, action, csrf, error.message, username)
    throw error
  }
}

function form(ctx: Context, deps: ConsoleDeps, action: string, csrf: string, error?: string, username = ''): void {
  sendPage(
    ctx,
    {
      status: error === undefined ? 200 : 400,
      title: 'Create the first administrator',
      notice: error === undefined ? '' : notice(error, true),
      content: `<form method="post" action="${h(action)}" id="setup">
<input type="hidden" name="csrf" value="${h(csrf)}">
<p>This server has no administrator yet. The account you create here administers it; this link then stops working.</p>
<label for="username">Username</label><input id="username" type="text" name="username" value="${h(username)}" required autocapitalize="none" autocomplete="username">
<label for="password">Password</label><input id="password" type="password" name="password" required minlength="8" autocomplete="new-password">
<label for="confirm">Password again</label><input id="confirm" type="password" name="confirm" required minlength="8" autocomplete="new-password">
<div class="actions"><button type="submit" class="primary" id="create-admin">Create administrator</button></div>
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
      content:
        '<p id="link-gone">This setup link was used, expired, or the server has an administrator already. Start the server again for a new link, or use <code>mcp-auth users add NAME --admin</code>.</p>',
    },
    deps.branding,
  )
}
