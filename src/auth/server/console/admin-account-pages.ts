import { defaults } from '../../../config/defaults.js'
import { breakableUrl } from '../../../views/breakable-url.js'
import { AccountAdmin } from '../admin/account-admin.js'
import type { GrantSummary } from '../admin/grant-admin.js'
import { collectPage } from '../admin-api/list-page.js'
import type { Account } from '../stores/account-store.js'
import type { AdminPage, AdminPageRequest } from './console-deps.js'
import { h, notice, postButton, sendPage, table, when } from './console-view.js'

const a = defaults.authServer.admin

/** What a finished action says on the page it returns to (`?done=`): fixed texts, nothing reflected. */
const DONE: Record<string, string> = {
  created: 'Account created.',
  disabled: 'Account disabled: its grants ended.',
  enabled: 'Account enabled.',
  admin: 'The account is an administrator now.',
  user: 'The account is an ordinary account now.',
  deleted: 'Account deleted.',
  revoked: 'Grant ended.',
}

export const doneNotice = (request: AdminPageRequest): string => {
  const done = request.ctx.URL.searchParams.get('done')
  return done !== null && DONE[done] !== undefined ? notice(DONE[done]) : ''
}

const accountPath = (request: AdminPageRequest, username: string): string => `${request.deps.surfaces.admin.basePath}/accounts/${encodeURIComponent(username)}`

/** The rows of grants (an account's or a client's), each with its revoke button. */
export function grantRows(request: AdminPageRequest, grants: readonly GrantSummary[], back: string): string[][] {
  const base = request.deps.surfaces.admin.basePath
  return grants.map((grant) => [
    h(grant.username ?? grant.accountId),
    `<a href="${h(`${base}/clients/${encodeURIComponent(grant.clientId)}`)}">${h(grant.clientName ?? grant.clientId)}</a>`,
    Object.entries(grant.resources)
      .map(([uri, scopes]) => `<code class="url">${breakableUrl(uri)}</code>: ${h(scopes)}`)
      .join('<br>'),
    when(grant.createdAt),
    postButton(`${base}/grants/${encodeURIComponent(grant.grantId)}/revoke`, 'Revoke', request.csrf, { fields: { back }, secondary: true, id: `revoke-${grant.grantId}` }),
  ])
}

/** GET /admin/accounts: a page of accounts (search by name, email), and the form to create one. */
export const accountsPage: AdminPage = async (request) => {
  const base = request.deps.surfaces.admin.basePath
  const query = request.ctx.URL.searchParams
  const q = (query.get('q') ?? '').trim().slice(0, 200)
  const needle = q.toLowerCase()
  const page = await collectPage({
    cursor: query.get('cursor') ?? undefined,
    limit: a.pageSize,
    maxScanned: a.pageSize * 20,
    scan: (from, count) =>
      request.deps.accounts
        .page({ count, ...(from !== undefined ? { cursor: from } : {}) })
        .then((p) => ({ entries: p.accounts, ...(p.cursor !== undefined ? { cursor: p.cursor } : {}) })),
    keep: (account: Account) =>
      needle === '' || [account.username, account.claims.name, account.claims.email].some((text) => typeof text === 'string' && text.toLowerCase().includes(needle))
        ? account
        : undefined,
  })
  const rows = page.items.map((account) => [
    `<a href="${h(accountPath(request, account.username))}">${h(account.username)}</a>`,
    h(account.claims.name ?? ''),
    account.role === 'admin' ? 'administrator' : 'account',
    account.disabled === true ? '<strong>disabled</strong>' : 'active',
  ])
  const next =
    page.next_cursor === undefined
      ? ''
      : `<p><a href="${h(`${base}/accounts?${new URLSearchParams({ ...(q !== '' ? { q } : {}), cursor: page.next_cursor })}`)}" id="next-page">Next page</a></p>`
  sendPage(
    request.ctx,
    {
      title: 'Accounts',
      nav: request.nav('/accounts'),
      notice: doneNotice(request),
      content: `<form class="search" method="get" action="${h(`${base}/accounts`)}" role="search">
<div><label for="q">Search accounts</label><input id="q" type="text" name="q" value="${h(q)}" autocomplete="off"></div>
<button type="submit" class="secondary">Search</button></form>
${table('Accounts', ['Username', 'Name', 'Role', 'State'], rows, q === '' ? 'No accounts yet.' : 'No account matches this search on this page.')}
${next}
<h2>New account</h2>
<form method="post" action="${h(`${base}/accounts`)}" id="create-account">
<input type="hidden" name="csrf" value="${h(request.csrf)}">
<label for="new-username">Username</label><input id="new-username" type="text" name="username" required autocapitalize="none" autocomplete="off">
<label for="new-password">Password (leave empty to get a one-time set-password link)</label><input id="new-password" type="password" name="password" autocomplete="new-password">
<label for="new-name">Name (optional)</label><input id="new-name" type="text" name="name" autocomplete="off">
<div class="actions"><button type="submit" class="primary" id="create">Create account</button></div>
</form>`,
    },
    request.deps.branding,
  )
}

/** POST /admin/accounts: creates an account (no password: shows its one-time set-password link). */
export const createAccount: AdminPage = async (request) => {
  const username = (request.form.get('username') ?? '').trim()
  const password = request.form.get('password') ?? ''
  const name = (request.form.get('name') ?? '').trim()
  const { account, link } = await request.deps.administration.accounts.create({
    username,
    ...(password !== '' ? { password } : {}),
    claims: name === '' ? {} : { name },
  })
  if (link === undefined) {
    request.ctx.redirect(`${accountPath(request, account.username)}?done=created`)
    request.ctx.status = 303
    return
  }
  showLink(request, account, link)
}

function showLink(request: AdminPageRequest, account: Account, link: { token: string; expiresAt: number }): void {
  const url = `${request.deps.issuer.origin}${request.deps.mountPath}${a.consolePath}/password/${link.token}`
  sendPage(
    request.ctx,
    {
      title: `Set-password link for ${account.username}`,
      nav: request.nav('/accounts'),
      content: `<p>Hand this link to <strong>${h(account.username)}</strong> over a channel you trust. It works once, until ${when(link.expiresAt, true)}; it is shown only now.</p>
<p><label for="link">One-time set-password link</label><input id="link" type="text" readonly value="${h(url)}"></p>
<p><a href="${h(accountPath(request, account.username))}">Back to the account</a></p>`,
    },
    request.deps.branding,
  )
}

/** GET /admin/accounts/{username}: the account, its grants, and what may be done to it. */
export const accountPage: AdminPage = async (request) => {
  const account = await request.deps.administration.accounts.get(request.params[0]!)
  const grants = await request.deps.administration.grants.list({ username: account.username })
  const path = accountPath(request, account.username)
  const action = (verb: string, label: string, secondary = true) =>
    postButton(`${path}/${verb}`, label, request.csrf, { fields: { rev: String(account.rev ?? 0) }, id: verb, secondary })
  const actions = [
    account.disabled === true ? action('enable', 'Enable', false) : action('disable', 'Disable'),
    action('password-link', 'Reset password (one-time link)'),
    account.role === 'admin' ? action('remove-admin', 'Make an ordinary account') : action('make-admin', 'Make administrator'),
    action('delete', 'Delete account'),
  ]
  sendPage(
    request.ctx,
    {
      title: account.username,
      nav: request.nav('/accounts'),
      notice: doneNotice(request),
      content: `<dl class="facts">
<dt>Name</dt><dd>${h(account.claims.name ?? '–')}</dd>
<dt>Email</dt><dd>${h(account.claims.email ?? '–')}</dd>
<dt>Role</dt><dd id="role">${account.role === 'admin' ? 'administrator' : 'account'}</dd>
<dt>State</dt><dd id="state">${account.disabled === true ? 'disabled' : 'active'}</dd>
<dt>Created</dt><dd>${when(account.createdAt, true)}</dd>
<dt>Scopes</dt><dd>${h(account.scopes?.join(' ') ?? 'the resources’ defaults')}</dd>
</dl>
<div class="actions">${actions.join('')}</div>
<p class="muted">Disabling, deleting or demoting an administrator and making one ask for a sign-in in the last ${Math.round(a.sensitiveLoginAgeSeconds / 60)} minutes. Sessions: the grants below are this account’s signed-in applications; ending one signs that application out.</p>
<h2>Grants</h2>
${table(`Grants of ${account.username}`, ['Account', 'Client', 'Resources and scopes', 'Granted', ''], grantRows(request, grants, path), 'No grants: this account has not allowed any application.')}`,
    },
    request.deps.branding,
  )
}

/** POST /admin/accounts/{username}/{verb}: disable, enable, password-link, make-admin, remove-admin, delete. */
export const accountAction: AdminPage = async (request) => {
  const [username, verb] = request.params as [string, string]
  const admin = request.deps.administration.accounts
  const current = await admin.get(username)
  const rev = Number(request.form.get('rev') ?? Number.NaN)
  const revision = Number.isInteger(rev) ? rev : undefined
  const path = accountPath(request, current.username)
  const sensitive = (change: Parameters<typeof AccountAdmin.isSensitive>[1]) => {
    if (AccountAdmin.isSensitive(current, change)) request.deps.authority.requireSensitiveLogin(request.caller)
  }
  const back = (done: string, to = path) => {
    request.ctx.redirect(`${to}?done=${done}`)
    request.ctx.status = 303
  }
  switch (verb) {
    case 'disable':
    case 'enable': {
      const change = { disabled: verb === 'disable' }
      sensitive(change)
      await admin.update(current.username, change, revision)
      return back(verb === 'disable' ? 'disabled' : 'enabled')
    }
    case 'make-admin':
    case 'remove-admin': {
      const change = { role: verb === 'make-admin' ? ('admin' as const) : null }
      sensitive(change)
      await admin.update(current.username, change, revision)
      return back(verb === 'make-admin' ? 'admin' : 'user')
    }
    case 'password-link':
      return showLink(request, current, await admin.passwordLink(current))
    case 'delete':
      sensitive('delete')
      if (request.form.get('confirm') !== 'yes')
        return confirmPage(
          request,
          `Delete ${current.username}?`,
          `${path}/delete`,
          { rev: String(current.rev ?? 0) },
          path,
          'Its grants end and its gateway values are deleted; this cannot be undone.',
        )
      await request.deps.deleteAccount(current, revision)
      return back('deleted', `${request.deps.surfaces.admin.basePath}/accounts`)
  }
}

/** A second step before an action that cannot be undone: the same form again, with `confirm=yes`. */
export function confirmPage(request: AdminPageRequest, title: string, action: string, fields: Record<string, string>, back: string, consequence: string): void {
  sendPage(
    request.ctx,
    {
      title,
      nav: request.nav(''),
      content: `<p>${h(consequence)}</p><div class="actions row">${postButton(action, 'Yes, do it', request.csrf, { fields: { ...fields, confirm: 'yes' }, id: 'confirm' })}<a href="${h(back)}" id="cancel">Cancel</a></div>`,
    },
    request.deps.branding,
  )
}
