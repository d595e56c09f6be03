import type { MessageBus } from '../../../storage/message-bus.js'
import type { RecordStore } from '../../../storage/types.js'

const BLOCKED = 'blocked-clients'
/** Bus channel: `{ clientId, blocked }`, one change per message. */
const CHANNEL = 'client-blocked'

/** A block as stored: which client, since when. */
export interface ClientBlock {
  clientId: string
  /** Epoch ms. */
  at: number
}

export interface BlockedClientsOptions {
  /** With several nodes: each change is published here and every node applies it to its own set. */
  bus?: MessageBus
  /** With a bus, how often (ms) the stored blocks are reloaded, for a message a node missed. */
  resyncMs?: number
}

/**
 * Clients an administrator blocked, by `client_id` (configured, dynamic and metadata-document
 * clients alike). Stored in a record collection, mirrored in memory for an O(1) check on every
 * client lookup (the token path), and with a {@link MessageBus} (Redis pub/sub) a block on one
 * node reaches every node's set at once; a periodic reload covers a message a node missed.
 * The collection only holds what administrators blocked: small, so a reload reads it whole.
 */
export class BlockedClients {
  readonly #records: RecordStore
  readonly #bus: MessageBus | undefined
  #blocked = new Map<string, number>()
  /** Changes made or heard while a reload reads the store: applied again over what it read. */
  readonly #sinceRead = new Set<Array<[string, number | undefined]>>()
  #unsubscribe: (() => Promise<void>) | undefined
  #timer: NodeJS.Timeout | undefined

  private constructor(records: RecordStore, bus: MessageBus | undefined) {
    this.#records = records
    this.#bus = bus
  }

  static async load(records: RecordStore, options: BlockedClientsOptions = {}): Promise<BlockedClients> {
    const blocked = new BlockedClients(records, options.bus)
    if (options.bus !== undefined) {
      // Listening before loading: a change published meanwhile is in one or the other.
      blocked.#unsubscribe = await options.bus.subscribe(CHANNEL, (message) => blocked.#heard(message))
      if (options.resyncMs !== undefined) {
        blocked.#timer = setInterval(() => void blocked.#reload().catch(() => undefined), options.resyncMs)
        blocked.#timer.unref()
      }
    }
    try {
      await blocked.#reload()
    } catch (error) {
      await blocked.close()
      throw error
    }
    return blocked
  }

  /** Whether the client is blocked: one Map lookup. */
  isBlocked(clientId: string): boolean {
    return this.#blocked.has(clientId)
  }

  /** When the client was blocked (epoch ms), or undefined. */
  blockedAt(clientId: string): number | undefined {
    return this.#blocked.get(clientId)
  }

  /** Every block, as this node knows it. */
  list(): ClientBlock[] {
    return [...this.#blocked].map(([clientId, at]) => ({ clientId, at }))
  }

  /** Blocks a client on every node; false when it was blocked already (nothing changes). */
  async block(clientId: string, now = Date.now()): Promise<boolean> {
    const entry: ClientBlock = { clientId, at: now }
    if (!(await this.#records.create(BLOCKED, clientId, entry))) {
      this.#apply(clientId, (await this.#records.get<ClientBlock>(BLOCKED, clientId))?.at ?? now)
      return false
    }
    this.#apply(clientId, entry.at)
    await this.#bus?.publish(CHANNEL, JSON.stringify({ clientId, blocked: true, at: entry.at }))
    return true
  }

  /** Lets a client in again on every node; false when it was not blocked. */
  async unblock(clientId: string): Promise<boolean> {
    const known = (await this.#records.get(BLOCKED, clientId)) !== undefined
    this.#apply(clientId, undefined)
    if (!known) return false
    await this.#records.delete(BLOCKED, clientId)
    await this.#bus?.publish(CHANNEL, JSON.stringify({ clientId, blocked: false }))
    return true
  }

  /** Stops listening to the other nodes. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    // The listener is dropped at once; Redis hears UNSUBSCRIBE when it can (not waited for: it may be down).
    void this.#unsubscribe?.().catch(() => undefined)
    this.#unsubscribe = undefined
  }

  async #reload(): Promise<void> {
    const since: Array<[string, number | undefined]> = []
    this.#sinceRead.add(since)
    let stored: ClientBlock[]
    try {
      stored = await this.#records.list<ClientBlock>(BLOCKED)
    } finally {
      this.#sinceRead.delete(since)
    }
    // one map swapped for another: a lookup never sees a half-built set; a block or unblock made
    // or heard while the store was read (which the read may have missed) still holds
    const blocked = new Map(stored.map((entry) => [entry.clientId, entry.at]))
    for (const [clientId, at] of since) {
      if (at === undefined) blocked.delete(clientId)
      else blocked.set(clientId, at)
    }
    this.#blocked = blocked
  }

  /** Blocks (`at`) or unblocks (undefined) in this node's set, and in what a reload under way will swap in. */
  #apply(clientId: string, at: number | undefined): void {
    if (at === undefined) this.#blocked.delete(clientId)
    else this.#blocked.set(clientId, at)
    for (const since of this.#sinceRead) since.push([clientId, at])
  }

  #heard(message: string): void {
    let change: { clientId?: unknown; blocked?: unknown; at?: unknown }
    try {
      change = JSON.parse(message) as typeof change
    } catch {
      return
    }
    if (typeof change.clientId !== 'string') return
    if (change.blocked === true) this.#apply(change.clientId, typeof change.at === 'number' ? change.at : Date.now())
    else if (change.blocked === false) this.#apply(change.clientId, undefined)
  }
}
