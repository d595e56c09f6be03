import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { MessageBus } from '../../storage/message-bus.js'
import type { OidcAdapter, RecordStore } from '../../storage/types.js'
import type { Context } from 'koa'
import { clientAddress } from './client-address.js'

const PENDING = 'unused-dynamic-clients'
/** Bus channel: `{ added: Entry }` or `{ used: clientId }`, so every node counts the same registrations. */
const CHANNEL = 'unused-clients'

interface Entry {
  clientId: string
  createdAt: number
  address: string
}

/**
 * Deletes dynamically registered clients that never complete an authorization or a token
 * request within `ttlSeconds` (abuse control: open registration must not grow the store
 * forever). A client's first successful use takes it off the list for good, so the hot path
 * costs one Map lookup.
 */
export interface UnusedClients {
  sweep(): Promise<number>
  stop(): Promise<void>
  /** Registrations not used yet: from one address group (see clientAddress), or in all. */
  unused(address?: string): number
}

/**
 * Starts the sweeper. The list of unused registrations is persisted (the sweep and a restart
 * read it) and mirrored in memory for the registration caps. With a `bus` (several nodes on
 * Redis), each registration and first use is announced, so every node's caps count all nodes'
 * registrations, and each sweep reconciles the mirror with the store. The sweep runs on every
 * node and is idempotent: it works from the persisted list, re-reads an entry before deleting
 * its client, and deleting what another node just deleted is a no-op. A client used on a node
 * that missed its registration's announcement is still taken off the list there (once).
 */
export async function startUnusedClientSweeper(options: {
  provider: Provider
  records: RecordStore
  clients: OidcAdapter
  ttlSeconds: number
  intervalMs: number
  bus?: MessageBus
  /** With a bus: how many used clients this node remembers having taken off the list. */
  maxSeenUsed: number
  now?: () => number
}): Promise<UnusedClients> {
  const { provider, records, clients, ttlSeconds, bus } = options
  const now = options.now ?? Date.now
  const pending = new Map<string, Entry>()
  const perAddress = new Map<string, number>()
  const add = (entry: Entry): void => {
    if (pending.has(entry.clientId)) return
    pending.set(entry.clientId, entry)
    perAddress.set(entry.address, (perAddress.get(entry.address) ?? 0) + 1)
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
  const stored = async (): Promise<Entry[]> =>
    (await records.list<Partial<Entry> & { clientId: string; createdAt: number }>(PENDING)).map((entry) => ({ ...entry, address: entry.address ?? '' }))
  const announce = (message: { added: Entry } | { used: string }): Promise<void> => bus?.publish(CHANNEL, JSON.stringify(message)) ?? Promise.resolve()

  const unsubscribe = await bus?.subscribe(CHANNEL, (text) => {
    try {
      const message = JSON.parse(text) as { added?: Entry; used?: string }
      if (typeof message.used === 'string') remove(message.used)
      else if (typeof message.added?.clientId === 'string')
        add({ clientId: message.added.clientId, createdAt: Number(message.added.createdAt), address: String(message.added.address ?? '') })
    } catch {
      // not one of ours
    }
  })
  for (const entry of await stored()) add(entry)

  // With several nodes: clients this node has seen used, each once taken off the persisted list
  // even when this node never heard of its registration (an announcement it missed), so a sweep
  // anywhere cannot delete a client in use. One delete per client and node start; bounded.
  const seenUsed = new Set<string>()
  const used = (ctx: KoaContextWithOIDC): void => {
    const clientId = ctx.oidc?.client?.clientId
    if (clientId === undefined) return
    if (!remove(clientId)) {
      if (bus === undefined || seenUsed.has(clientId)) return
      seenUsed.add(clientId)
      if (seenUsed.size > options.maxSeenUsed) seenUsed.delete(seenUsed.values().next().value!)
    }
    void records
      .delete(PENDING, clientId)
      .then(() => announce({ used: clientId }))
      .catch((error: unknown) => provider.emit('server_error', ctx, error))
  }
  provider.on('registration_create.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    const entry: Entry = { clientId: client.clientId, createdAt: now(), address: clientAddress(ctx as unknown as Context) }
    add(entry)
    void records
      .put(PENDING, entry.clientId, entry)
      .then(() => announce({ added: entry }))
      .catch((error: unknown) => provider.emit('server_error', ctx, error))
  })
  provider.on('authorization.success', used)
  provider.on('grant.success', used)
  provider.on('registration_delete.success', (_ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    remove(client.clientId)
    void records
      .delete(PENDING, client.clientId)
      .then(() => announce({ used: client.clientId }))
      .catch(() => undefined)
  })

  async function sweep(): Promise<number> {
    const listedAt = now()
    const cutoff = listedAt - ttlSeconds * 1000
    const entries = await stored()
    let removed = 0
    for (const entry of entries) {
      if (entry.createdAt > cutoff) continue
      remove(entry.clientId)
      // Used on another node since the list was read: keep it.
      if ((await records.get(PENDING, entry.clientId)) === undefined) continue
      await clients.destroy(entry.clientId)
      await records.delete(PENDING, entry.clientId)
      removed += 1
    }
    // Reconcile the mirror: registrations another node announced while this one was not listening.
    const kept = new Set(entries.filter((entry) => entry.createdAt > cutoff).map((entry) => entry.clientId))
    for (const entry of entries) if (kept.has(entry.clientId)) add(entry)
    for (const entry of [...pending.values()]) if (!kept.has(entry.clientId) && entry.createdAt < listedAt) remove(entry.clientId)
    return removed
  }
  const timer = setInterval(() => void sweep().catch(() => undefined), options.intervalMs)
  timer.unref()
  return {
    sweep,
    async stop() {
      clearInterval(timer)
      // The listener is dropped at once; Redis hears UNSUBSCRIBE when it can (not waited for: it may be down).
      void unsubscribe?.().catch(() => undefined)
    },
    unused: (address) => (address === undefined ? pending.size : (perAddress.get(address) ?? 0)),
  }
}
