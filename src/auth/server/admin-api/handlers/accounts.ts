import { defaults } from '../../../../config/defaults.js'
import { AccountAdmin } from '../../admin/account-admin.js'
import type { AccountChange } from '../../stores/account-store.js'
import { accountView } from '../account-view.js'
import type { AdminOperation, AdminRequest } from '../admin-context.js'
import { etagOf, revisionToMatch } from '../etag.js'
import { collectPage } from '../list-page.js'

const a = defaults.authServer.admin

type ScopesInput = readonly string[] | 'default' | undefined
const scopesOf = (input: ScopesInput): readonly string[] | null | undefined => (input === 'default' ? null : input)

/** The URL of a set-password link (the console's page). */
function linkUrl(request: AdminRequest, token: string): string {
  return `${request.services.issuer.href.replace(/\/$/, '')}${a.consolePath}/password/${token}`
}

/** Accounts: the operations of the document's `accounts` tag, by operationId. */
export const accountOperations: Record<string, AdminOperation> = {
  async listAccounts(request) {
    const { q, role, disabled, limit, cursor } = request.query as { q?: string; role?: 'admin' | 'user'; disabled?: boolean; limit?: number; cursor?: string }
    const needle = q?.toLowerCase()
    const pageSize = limit ?? a.pageSize
    const page = await collectPage({
      cursor,
      limit: pageSize,
      maxScanned: pageSize * 20,
      scan: (from, count) =>
        request.services.accounts
          .page({ count, ...(from !== undefined ? { cursor: from } : {}) })
          .then((p) => ({ entries: p.accounts, ...(p.cursor !== undefined ? { cursor: p.cursor } : {}) })),
      keep: (account) => {
        if (role !== undefined && (account.role ?? 'user') !== role) return undefined
        if (disabled !== undefined && (account.disabled === true) !== disabled) return undefined
        if (needle !== undefined && ![account.username, account.claims.name, account.claims.email].some((text) => typeof text === 'string' && text.toLowerCase().includes(needle)))
          return undefined
        return accountView(account)
      },
    })
    return { body: page }
  },

  async createAccount(request) {
    const body = request.body as { username: string; password?: string; name?: string; email?: string; scopes?: ScopesInput; role?: 'admin' | 'user' }
    if (body.role === 'admin') request.services.authority.requireSensitiveLogin(request.caller)
    const scopes = scopesOf(body.scopes)
    const { account, link } = await request.services.administration.accounts.create({
      username: body.username,
      ...(body.password !== undefined ? { password: body.password } : {}),
      claims: { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.email !== undefined ? { email: body.email, email_verified: false } : {}) },
      ...(scopes !== undefined && scopes !== null ? { scopes } : {}),
      ...(body.role === 'admin' ? { role: 'admin' as const } : {}),
    })
    return {
      status: 201,
      etag: etagOf(account),
      headers: { location: `${request.services.issuer.href.replace(/\/$/, '')}${a.apiPath}/accounts/${encodeURIComponent(account.username)}` },
      body: {
        account: accountView(account),
        ...(link !== undefined ? { password_link: { url: linkUrl(request, link.token), expires_at: new Date(link.expiresAt).toISOString() } } : {}),
      },
    }
  },

  async getAccount(request) {
    const account = await request.services.administration.accounts.get(request.params['username']!)
    return { etag: etagOf(account), body: accountView(account) }
  },

  async updateAccount(request) {
    const admin = request.services.administration.accounts
    const current = await admin.get(request.params['username']!)
    const rev = revisionToMatch(request.ifMatch, current, `the account ${current.username}`)
    const body = request.body as { name?: string; email?: string; scopes?: ScopesInput; role?: 'admin' | 'user'; disabled?: boolean }
    const change: AccountChange = {
      ...(body.name !== undefined || body.email !== undefined
        ? {
            claims: {
              ...current.claims,
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.email !== undefined && body.email !== current.claims.email ? { email: body.email, email_verified: false } : {}),
            },
          }
        : {}),
      ...(body.scopes !== undefined ? { scopes: scopesOf(body.scopes) ?? null } : {}),
      ...(body.role !== undefined ? { role: body.role === 'admin' ? 'admin' : null } : {}),
      ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
    }
    if (AccountAdmin.isSensitive(current, change)) request.services.authority.requireSensitiveLogin(request.caller)
    const { account, grantsEnded } = await admin.update(current.username, change, rev)
    return { etag: etagOf(account), body: accountView(account), headers: { 'x-grants-ended': String(grantsEnded) } }
  },

  async deleteAccount(request) {
    const admin = request.services.administration.accounts
    const current = await admin.get(request.params['username']!)
    const rev = revisionToMatch(request.ifMatch, current, `the account ${current.username}`)
    if (AccountAdmin.isSensitive(current, 'delete')) request.services.authority.requireSensitiveLogin(request.caller)
    const { grantsEnded } = await request.services.deleteAccount(current, rev)
    return { body: { grants_ended: grantsEnded } }
  },

  async createPasswordLink(request) {
    const admin = request.services.administration.accounts
    const account = await admin.get(request.params['username']!)
    // a link sets the password of whoever holds it: an administrator's is a sensitive one
    if (account.role === 'admin') request.services.authority.requireSensitiveLogin(request.caller)
    const link = await admin.passwordLink(account)
    return { status: 201, body: { url: linkUrl(request, link.token), expires_at: new Date(link.expiresAt).toISOString() } }
  },

  async listAccountValues(request) {
    const account = await request.services.administration.accounts.get(request.params['username']!)
    const names = await request.services.accountValues.names(account.id)
    return { body: { items: names.map((entry) => ({ name: entry.name, updated_at: new Date(entry.setAt).toISOString() })) } }
  },

  async setAccountValue(request) {
    const account = await request.services.administration.accounts.get(request.params['username']!)
    await request.services.accountValues.set(account.id, request.params['name']!, (request.body as { value: string }).value)
    return { status: 204 }
  },

  async deleteAccountValue(request) {
    const account = await request.services.administration.accounts.get(request.params['username']!)
    await request.services.accountValues.unset(account.id, request.params['name']!)
    return { status: 204 }
  },
}
