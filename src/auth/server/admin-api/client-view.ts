import type { ClientSummary } from '../admin/client-admin.js'

const iso = (ms: number): string => new Date(ms).toISOString()

/** A client as the admin API shows it (wire spelling, ISO times, never a secret). */
export function clientView(client: ClientSummary): Record<string, unknown> {
  return {
    client_id: client.client_id,
    ...(client.client_name !== undefined ? { client_name: client.client_name } : {}),
    origin: client.origin,
    grant_types: client.grant_types ?? [],
    redirect_uris: client.redirect_uris ?? [],
    ...(client.scope !== undefined ? { scope: client.scope } : {}),
    token_endpoint_auth_method: client.token_endpoint_auth_method ?? 'client_secret_basic',
    ...(client.createdAt !== undefined ? { created_at: iso(client.createdAt) } : {}),
    ...(client.lastUsedAt !== undefined ? { last_used_at: iso(client.lastUsedAt) } : {}),
    blocked: client.blocked,
    ...(client.blockedAt !== undefined ? { blocked_at: iso(client.blockedAt) } : {}),
  }
}
