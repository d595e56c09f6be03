import { defaults } from '../../../config/defaults.js'
import { InvalidAccountError, UnknownAccountError, type Account, type AccountChange, type AccountRole, type AccountStore } from '../stores/account-store.js'
import type { PasswordLinks } from '../stores/password-links.js'
import { AdminAudit } from './admin-audit.js'
import { AdminError } from './admin-error.js'
import type { GrantAdmin } from './grant-admin.js'

/** A new account as an administrator makes it. */
export interface NewAccount {
  username: string
  /** Absent: the account gets a one-time set-password link instead. */
  password?: string
  claims?: Account['claims']
  scopes?: readonly string[]
  role?: AccountRole
}

/**
 * Accounts as an administrator manages them (the admin API, the console, `mcp-auth users`), with
 * the rules every surface keeps: what ends an account's access ends its grants too; the demo
 * account is never an administrator; the last active administrator is not disabled, demoted or
 * deleted (make another first). Plain inputs and results; refusals are {@link AdminError}s.
 */
export class AccountAdmin {
  readonly #accounts: AccountStore
  readonly #grants: GrantAdmin
  readonly #links: PasswordLinks | undefined
  readonly #audit: AdminAudit

  constructor(deps: { accounts: AccountStore; grants: GrantAdmin; links?: PasswordLinks; audit?: AdminAudit }) {
    this.#accounts = deps.accounts
    this.#grants = deps.grants
    this.#links = deps.links
    this.#audit = deps.audit ?? AdminAudit.none()
  }

  /** The account named `username`; `AdminError` `unknown_account` when there is none. */
  async get(username: string): Promise<Account> {
    const account = await this.#accounts.findByUsername(username)
    if (account === undefined) throw new AdminError('unknown_account', `no account named ${username}`)
    return account
  }

  /** Creates an account; without a password, with a set-password link (its token, to make the URL from). */
  async create(input: NewAccount): Promise<{ account: Account; link?: { token: string; expiresAt: number } }> {
    if (input.role === 'admin') refuseDemo(input.username)
    const account = await guard(() => this.#accounts.createUser(input.username, input.password, input.claims ?? {}, input.scopes, input.role))
    if (account === undefined) throw new AdminError('account_exists', `an account named ${input.username} exists already`)
    this.#audit.record({
      type: 'account.created',
      result: 'success',
      subject: account.id,
      username: account.username,
      ...(account.scopes !== undefined ? { scopes: account.scopes } : {}),
      details: { role: account.role ?? 'user', password: input.password !== undefined ? 'set' : 'link' },
    })
    if (input.password !== undefined) return { account }
    return { account, link: await this.passwordLink(account) }
  }

  /**
   * Changes an account at revision `rev` (undefined: whatever it is now): `AdminError` `stale` when
   * another change came first. Disabling ends the account's grants.
   */
  async update(username: string, change: AccountChange, rev?: number): Promise<{ account: Account; grantsEnded: number }> {
    const current = await this.get(username)
    if (change.role === 'admin') refuseDemo(current.username)
    if (current.role === 'admin' && current.disabled !== true && (change.disabled === true || change.role === null)) await this.#keepAnAdministrator(current)
    const account = await guard(() => this.#accounts.update(username, change, rev))
    if (account === undefined) throw new AdminError('stale', `the account ${username} changed since it was read: read it again and reapply the change`)
    const grantsEnded = change.disabled === true && current.disabled !== true ? await this.#grants.revokeAll({ username }, 'account-disabled') : 0
    this.#recordChange(current, account, change, grantsEnded)
    return { account, grantsEnded }
  }

  /** Whether a change to `current` is one that needs a sign-in in the last minutes. */
  static isSensitive(current: Account, change: AccountChange | 'delete'): boolean {
    if (change === 'delete') return current.role === 'admin'
    return (change.role !== undefined && (change.role ?? undefined) !== current.role) || (current.role === 'admin' && change.disabled === true)
  }

  /** Deletes an account and ends its grants. */
  async delete(username: string, rev?: number): Promise<{ grantsEnded: number }> {
    const current = await this.get(username)
    if (rev !== undefined && (current.rev ?? 0) !== rev) throw new AdminError('stale', `the account ${username} changed since it was read: read it again`)
    if (current.role === 'admin' && current.disabled !== true) await this.#keepAnAdministrator(current)
    const grantsEnded = await this.#grants.revokeAll({ username }, 'account-deleted')
    await this.#accounts.delete(username)
    await this.#links?.revoke(current.id)
    this.#audit.record({ type: 'account.deleted', result: 'success', subject: current.id, username: current.username, details: { grants_ended: grantsEnded } })
    return { grantsEnded }
  }

  /** Disables (or, with `disabled` false, enables) an account; disabling ends its grants. */
  async disable(username: string, disabled = true): Promise<{ grantsEnded: number }> {
    return { grantsEnded: (await this.update(username, { disabled })).grantsEnded }
  }

  /** Makes an account an administrator, or an ordinary account again. */
  async setRole(username: string, role: AccountRole | undefined): Promise<Account> {
    return (await this.update(username, { role: role ?? null })).account
  }

  /** A new one-time set-password link for the account (the one before stops working). */
  async passwordLink(account: Account): Promise<{ token: string; expiresAt: number }> {
    if (this.#links === undefined) throw new Error('set-password links need the server (the admin API or the console)')
    const link = await this.#links.create(account.id, defaults.authServer.admin.passwordLinkTtlSeconds)
    // never the link's token: who got one, and until when
    this.#audit.record({ type: 'account.password-link-created', result: 'success', subject: account.id, username: account.username, details: { expires_at: link.expiresAt } })
    return link
  }

  /** One event per change: disabled, enabled, role changed, and anything else as changed (which fields, never their values). */
  #recordChange(before: Account, after: Account, change: AccountChange, grantsEnded: number): void {
    const about = { subject: after.id, username: after.username }
    const rest = Object.keys(change).filter((key) => key !== 'disabled' && key !== 'role' && change[key as keyof AccountChange] !== undefined)
    if (change.disabled !== undefined && change.disabled !== (before.disabled === true)) {
      this.#audit.record({
        type: change.disabled ? 'account.disabled' : 'account.enabled',
        result: 'success',
        ...about,
        ...(change.disabled ? { details: { grants_ended: grantsEnded } } : {}),
      })
    }
    if (change.role !== undefined && (change.role ?? undefined) !== before.role) {
      this.#audit.record({ type: 'account.role-changed', result: 'success', ...about, details: { from: before.role ?? 'user', to: after.role ?? 'user' } })
    }
    if (rest.length > 0) this.#audit.record({ type: 'account.changed', result: 'success', ...about, details: { fields: rest.sort() } })
  }

  async #keepAnAdministrator(leaving: Account): Promise<void> {
    for (const id of await this.#accounts.administratorIds()) {
      if (id === leaving.id) continue
      const other = await this.#accounts.findById(id)
      if (other?.role === 'admin' && other.disabled !== true) return
    }
    throw new AdminError('last_administrator', `${leaving.username} is the last active administrator: make another account an administrator first`)
  }
}

function refuseDemo(username: string): void {
  if (username.toLowerCase() === defaults.mainJob.demoUsername) {
    throw new AdminError('demo_account', `the demo account (${username}) is never an administrator: its password is printed at start and set from MCP_AUTH_DEMO_PASSWORD`)
  }
}

/** The store's own refusals as the administration's. */
async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof UnknownAccountError) throw new AdminError('unknown_account', error.message, { cause: error })
    if (error instanceof InvalidAccountError) throw new AdminError('invalid', error.message, { cause: error })
    throw error
  }
}
