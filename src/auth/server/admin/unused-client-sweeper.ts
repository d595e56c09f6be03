import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import { oidcOf } from '../provider/oidc-context.js'
import type { MessageBus } from '../../../storage/message-bus.js'
import type { OidcAdapter, RecordStore } from '../../../storage/types.js'
import type { Context } from 'koa'
import { BoundedMap } from '../../../collections/bounded-map.js'
import { clientAddress } from '../middleware/client-address.js'
import { UnusedByGroup, type UnusedEntry } from './unused-by-group.js'

const PENDING = 'unused-dynamic-clients'
/** Bus channel: `{ added: Entry }` or `{ used: clientId }`, so every node counts the same registrations. */
const CHANNEL = 'unused-clients'

type Entry = UnusedEntry

/**
 * Deletes dynamically registered clients that never complete an authorization or a token
 * request within `ttlSeconds` (abuse control: open registration must not grow the store
 * forever). A client's first successful use takes it off the list for good, so the hot path
 * costs one Map lookup.
 */
export interface UnusedClients {
  sweep(): Promise<number>
  stop(): Promise<void>
  /** Registrations not used yet (and registrations under way): from one address group (see clientAddress), or in all. */
  unused(address?: string): number
  /**
   * Whether a registration from `address` may go ahead (see registrationLimits): when it may,
   * its place is held until `release` (called once the registration is answered).
   */
  admit(address: string, caps: RegistrationCaps): Admission
}

/** How many unused registrations one address group, and all together, may hold. */
export interface RegistrationCaps {
  perGroup: number
  total: number
}

/**
 * `group`: the address group holds `perGroup` unused registrations already. `full`: the server
 * holds `total`, and this group holds as many as any other (it would only displace its own).
 */
export type Admission = { refused: false; release(): void } | { refused: 'group' | 'full'; held: number }

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
  const pending = new UnusedByGroup()
  const add = (entry: Entry): void => pending.add(entry)
  const remove = (clientId: string): boolean => pending.remove(clientId)
  // registrations under way on this node, per group: counted at once, so a burst cannot overshoot a cap
  const underWay = new Map<string, number>()
  let allUnderWay = 0
  const held = (address: string): number => pending.count(address) + (underWay.get(address) ?? 0)
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
  const seenUsed = new BoundedMap<string, true>(options.maxSeenUsed)
  const used = (ctx: KoaContextWithOIDC): void => {
    const clientId = oidcOf(ctx)?.client?.clientId
    if (clientId === undefined) return
    if (!remove(clientId)) {
      if (bus === undefined || seenUsed.has(clientId)) return
      seenUsed.set(clientId, true)
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
  /**
   * Room for a registration while the server holds all it keeps: the oldest unused registration
   * of a group holding the most goes (its client is deleted, as the sweep would in time), so the
   * bound holds and a group holding few gets in before one holding many.
   */
  const evictOne = (): boolean => {
    const oldest = pending.oldestOfLargest()
    if (oldest === undefined) return false
    remove(oldest.clientId)
    const displaced = clients
      .destroy(oldest.clientId)
      .then(() => records.delete(PENDING, oldest.clientId))
      .then(() => announce({ used: oldest.clientId }))
      .catch((error: unknown) => void provider.emit('server_error', undefined, error))
      .finally(() => displacing.delete(displaced))
    displacing.add(displaced)
    return true
  }
  // displacements under way: stop() lets them finish (a client half-deleted would stay listed)
  const displacing = new Set<Promise<void>>()
  const admit = (address: string, caps: RegistrationCaps): Admission => {
    const mine = held(address)
    if (mine >= caps.perGroup) return { refused: 'group', held: mine }
    // full: a group holding as many as the largest would only displace its own
    if (pending.size + allUnderWay >= caps.total && (mine >= pending.most || pending.size === 0)) return { refused: 'full', held: mine }
    underWay.set(address, (underWay.get(address) ?? 0) + 1)
    allUnderWay += 1
    let released = false
    return {
      refused: false,
      release() {
        if (released) return
        released = true
        allUnderWay -= 1
        const left = (underWay.get(address) ?? 1) - 1
        if (left <= 0) underWay.delete(address)
        else underWay.set(address, left)
        // a registration made while full displaces one (not before it succeeded: a refused one displaces none)
        while (pending.size > caps.total) if (!evictOne()) break
      },
    }
  }

  const timer = setInterval(() => void sweep().catch(() => undefined), options.intervalMs)
  timer.unref()
  return {
    sweep,
    async stop() {
      clearInterval(timer)
      await Promise.all(displacing)
      // The listener is dropped at once; Redis hears UNSUBSCRIBE when it can (not waited for: it may be down).
      void unsubscribe?.().catch(() => undefined)
    },
    unused: (address) => (address === undefined ? pending.size + allUnderWay : held(address)),
    admit,
  }
}
