import type { AccountStore } from '../stores/account-store.js'
import type { GrantAdmin } from './grant-admin.js'

/**
 * Local accounts' end, as an administrator manages it (`mcp-auth users delete|disable|enable`):
 * what ends an account's access ends its grants too. Plain inputs and results. An unknown
 * username is refused: by `delete` with `AdminError` `unknown_account` (from `GrantAdmin.list`),
 * by `disable` with the account store's error (the same message).
 */
export class AccountAdmin {
  readonly #accounts: AccountStore
  readonly #grants: GrantAdmin

  constructor(deps: { accounts: AccountStore; grants: GrantAdmin }) {
    this.#accounts = deps.accounts
    this.#grants = deps.grants
  }

  /** Deletes an account and ends its grants. */
  async delete(username: string): Promise<{ grantsEnded: number }> {
    const grantsEnded = await this.#grants.revokeAll({ username })
    await this.#accounts.delete(username)
    return { grantsEnded }
  }

  /** Disables (or, with `disabled` false, enables) an account; disabling ends its grants. */
  async disable(username: string, disabled = true): Promise<{ grantsEnded: number }> {
    await this.#accounts.setDisabled(username, disabled)
    return { grantsEnded: disabled ? await this.#grants.revokeAll({ username }) : 0 }
  }
}
