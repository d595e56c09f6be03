import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { OidcAdapter, RecordStore } from '../../storage/types.js'

const PENDING = 'unused-dynamic-clients'

/**
 * Deletes dynamically registered clients that never complete an authorization or a token
 * request within `ttlSeconds` (abuse control: open registration must not grow the store
 * forever). A client's first successful use takes it off the list for good, so the hot path
 * costs one Set lookup.
 */
export async function startUnusedClientSweeper(options: {
  provider: Provider
  records: RecordStore
  clients: OidcAdapter
  ttlSeconds: number
  intervalMs: number
  now?: () => number
}): Promise<{ sweep(): Promise<number>; stop(): void }> {
  const { provider, records, clients, ttlSeconds } = options
  const now = options.now ?? Date.now
  const pending = new Map<string, number>()
  for (const entry of await records.list<{ clientId: string; createdAt: number }>(PENDING)) pending.set(entry.clientId, entry.createdAt)

  const used = (ctx: KoaContextWithOIDC): void => {
    const clientId = ctx.oidc?.client?.clientId
    if (clientId === undefined || !pending.has(clientId)) return
    pending.delete(clientId)
    void records.delete(PENDING, clientId).catch((error: unknown) => provider.emit('server_error', ctx, error))
  }
  provider.on('registration_create.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    const createdAt = now()
    pending.set(client.clientId, createdAt)
    void records.put(PENDING, client.clientId, { clientId: client.clientId, createdAt }).catch((error: unknown) => provider.emit('server_error', ctx, error))
  })
  provider.on('authorization.success', used)
  provider.on('grant.success', used)
  provider.on('registration_delete.success', (_ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    pending.delete(client.clientId)
    void records.delete(PENDING, client.clientId).catch(() => undefined)
  })

  async function sweep(): Promise<number> {
    const cutoff = now() - ttlSeconds * 1000
    let removed = 0
    for (const [clientId, createdAt] of [...pending]) {
      if (createdAt > cutoff) continue
      pending.delete(clientId)
      await clients.destroy(clientId)
      await records.delete(PENDING, clientId)
      removed += 1
    }
    return removed
  }
  const timer = setInterval(() => void sweep().catch(() => undefined), options.intervalMs)
  timer.unref()
  return { sweep, stop: () => clearInterval(timer) }
}
