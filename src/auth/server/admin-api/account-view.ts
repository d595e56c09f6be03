import type { Account } from '../stores/account-store.js'
import { etagOf } from './etag.js'

/** An account as the admin API shows it (snake_case, ISO times, never a password hash). */
export function accountView(account: Account & { passwordHash?: unknown }): Record<string, unknown> {
  const { name, email } = account.claims
  return {
    id: account.id,
    username: account.username,
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof email === 'string' ? { email } : {}),
    role: account.role ?? 'user',
    disabled: account.disabled === true,
    ...(account.scopes !== undefined ? { scopes: account.scopes } : {}),
    ...(account.upstream !== undefined ? { upstream: account.upstream } : {}),
    created_at: new Date(account.createdAt).toISOString(),
    ...(account.updatedAt !== undefined ? { updated_at: new Date(account.updatedAt).toISOString() } : {}),
    etag: etagOf(account),
  }
}
