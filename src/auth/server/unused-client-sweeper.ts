import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { OidcAdapter, RecordStore } from '../../storage/types.js'
import type { Context } from 'koa'
import { clientAddress } from './client-address.js'

const PENDING = 'unused-dynamic-clients'

/**
 * Deletes dynamically registered clients that never complete an authorization or a token
 * request within `ttlSeconds` (abuse control: open registration must not grow the store
 * forever). A client's first successful use takes it off the list for good, so the hot path
 * costs one Set lookup.
 */
export interface UnusedClients {
  sweep(): Promise<number>
  stop(): void
  /** Registrations not used yet: from one address group (see clientAddress), or in all. */
  unused(address?: string): number
}

export async function startUnusedClientSweeper(options: {
  provider: Provider
  records: RecordStore
  clients: OidcAdapter
  ttlSeconds: number
  intervalMs: number
  now?: () => number
}): Promise<UnusedClients> {
  const { provider, records, clients, ttlSeconds } = options
  const now = options.now ?? Date.now
  const pending = new Map<string, { createdAt: number; address: string }>()
  const perAddress = new Map<string, number>()
  const add = (clientId: string, createdAt: number, address: string): void => {
    pending.set(clientId, { createdAt, address })
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1)
  }
  const remove = (clientId: string): boolean => {
    const entry = pending.get(clientId)
    if (entry === undefined) return false
    pending.delete(clientId)
    const left = (perAddress.get(entry.address) ?? 1) - 1
    if (left <= 0) perAddress.delete(entry.address)
    else perAddress.set(entry.address, left)
    return true
  }
  for (const entry of await records.list<{ clientId: string; createdAt: number; address?: string }>(PENDING)) add(entry.clientId, entry.createdAt, entry.address ?? '')

  const used = (ctx: KoaContextWithOIDC): void => {
    const clientId = ctx.oidc?.client?.clientId
    if (clientId === undefined || !remove(clientId)) return
    void records.delete(PENDING, clientId).catch((error: unknown) => provider.emit('server_error', ctx, error))
  }
  provider.on('registration_create.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    const createdAt = now()
    const address = clientAddress(ctx as unknown as Context)
    add(client.clientId, createdAt, address)
    void records.put(PENDING, client.clientId, { clientId: client.clientId, createdAt, address }).catch((error: unknown) => provider.emit('server_error', ctx, error))
  })
  provider.on('authorization.success', used)
  provider.on('grant.success', used)
  provider.on('registration_delete.success', (_ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    remove(client.clientId)
    void records.delete(PENDING, client.clientId).catch(() => undefined)
  })

  async function sweep(): Promise<number> {
    const cutoff = now() - ttlSeconds * 1000
    let removed = 0
    for (const [clientId, { createdAt }] of [...pending]) {
      if (createdAt > cutoff) continue
      remove(clientId)
      await clients.destroy(clientId)
      await records.delete(PENDING, clientId)
      removed += 1
    }
    return removed
  }
  const timer = setInterval(() => void sweep().catch(() => undefined), options.intervalMs)
  timer.unref()
  return { sweep, stop: () => clearInterval(timer), unused: (address) => (address === undefined ? pending.size : (perAddress.get(address) ?? 0)) }
}
