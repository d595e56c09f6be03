import type { GrantSummary } from '../admin/grant-admin.js'

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString()

/** A grant as the admin API shows it (snake_case, ISO times). */
export interface GrantView {
  grant_id: string
  account_id: string
  username?: string
  client_id: string
  client_name?: string
  resources: Record<string, string>
  created_at?: string
  expires_at?: string
}

export function grantView(grant: GrantSummary): GrantView {
  return {
    grant_id: grant.grantId,
    account_id: grant.accountId,
    ...(grant.username !== undefined ? { username: grant.username } : {}),
    client_id: grant.clientId,
    ...(grant.clientName !== undefined ? { client_name: grant.clientName } : {}),
    resources: grant.resources,
    ...(grant.createdAt !== undefined ? { created_at: iso(grant.createdAt) } : {}),
    ...(grant.expiresAt !== undefined ? { expires_at: iso(grant.expiresAt) } : {}),
  }
}
