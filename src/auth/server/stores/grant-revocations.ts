import { createHash } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { MessageBus } from '../../../storage/message-bus.js'
import type { RecordStore } from '../../../storage/types.js'

const REVOKED = 'revoked-grants'
/** Bus channel: one revoked grant per message, `{ gid, until }`. */
const CHANNEL = 'grant-revoked'

interface Entry {
  gid: string
  until: number
}

/** The `gid` claim of our JWT access tokens: a digest of their grant's id (the id itself stays inside). */
export function grantDigest(grantId: string): string {
  return createHash('sha256').update(`grant:${grantId}`).digest('base64url').slice(0, 22)
}

export interface GrantRevocationsOptions {
  now?: () => number
  /**
   * With several nodes: each revocation is published here and every node adds it to its own
   * list, so a token of a grant revoked on one node is refused on all of them at once.
   */
  bus?: MessageBus
  /** With a bus, how often (ms) the persisted list is reloaded, for a message a node missed. */
  resyncMs?: number
}

/**
 * Grants revoked while JWT access tokens issued from them may still be unexpired. oidc-provider
 * does not store JWT access tokens, so revoking a grant cannot reach them; this list can. Filled by
 * `grant.revoked` (code replay, refresh reuse, revocation, logout, upstream revocation), kept in
 * memory for an O(1) check per request, persisted so a restart does not forget, and each entry
 * dropped once every token of its grant has expired (`accessTokenTtlSeconds`). With a
 * {@link MessageBus} (Redis pub/sub), revocations on any node reach every node's list.
 */
export class GrantRevocations {
  readonly #records: RecordStore
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #bus: MessageBus | undefined
  readonly #revoked = new Map<string, number>()
  /** Revocations announced by the provider and not yet stored and published: close() waits for them. */
  readonly #pending = new Set<Promise<void>>()
  #unsubscribe: (() => Promise<void>) | undefined
  #timer: NodeJS.Timeout | undefined

  private constructor(records: RecordStore, ttlSeconds: number, now: () => number, bus: MessageBus | undefined) {
    this.#records = records
    this.#ttlMs = ttlSeconds * 1000
    this.#now = now
    this.#bus = bus
  }

  static async load(records: RecordStore, accessTokenTtlSeconds: number, options: GrantRevocationsOptions = {}): Promise<GrantRevocations> {
    const revocations = new GrantRevocations(records, accessTokenTtlSeconds, options.now ?? Date.now, options.bus)
    if (options.bus !== undefined) {
      // Listening before loading: a revocation published meanwhile is in one or the other.
      revocations.#unsubscribe = await options.bus.subscribe(CHANNEL, (message) => revocations.#heard(message))
      if (options.resyncMs !== undefined) {
        revocations.#timer = setInterval(() => void revocations.#reload().catch(() => undefined), options.resyncMs)
        revocations.#timer.unref()
      }
    }
    try {
      await revocations.#reload()
    } catch (error) {
      await revocations.close()
      throw error
    }
    return revocations
  }

  /** Records every revocation the provider announces. */
  listen(provider: Provider): void {
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => {
      const pending = this.revoke(grantId).catch((error: unknown) => void provider.emit('server_error', undefined, error))
      this.#pending.add(pending)
      void pending.finally(() => this.#pending.delete(pending))
    })
  }

  async revoke(grantId: string): Promise<void> {
    const entry: Entry = { gid: grantDigest(grantId), until: this.#now() + this.#ttlMs }
    this.#revoked.set(entry.gid, entry.until)
    await this.#records.put(REVOKED, entry.gid, entry)
    await this.#bus?.publish(CHANNEL, JSON.stringify(entry))
  }

  /** True when a token carrying this `gid` claim comes from a revoked grant. */
  isRevoked(gid: unknown): boolean {
    if (typeof gid !== 'string') return false
    const until = this.#revoked.get(gid)
    if (until === undefined) return false
    if (until > this.#now()) return true
    this.#revoked.delete(gid)
    void this.#records.delete(REVOKED, gid).catch(() => undefined)
    return false
  }

  /** Stops listening to the other nodes, once the revocations under way are stored and published (a CLI exits right after). */
  async close(): Promise<void> {
    await Promise.all(this.#pending)
    clearInterval(this.#timer)
    // The listener is dropped at once; Redis hears UNSUBSCRIBE when it can (not waited for: it may be down).
    void this.#unsubscribe?.().catch(() => undefined)
    this.#unsubscribe = undefined
  }

  async #reload(): Promise<void> {
    for (const entry of await this.#records.list<Entry>(REVOKED)) {
      if (entry.until > this.#now()) this.#revoked.set(entry.gid, entry.until)
      else await this.#records.delete(REVOKED, entry.gid)
    }
  }

  #heard(message: string): void {
    let entry: Partial<Entry>
    try {
      entry = JSON.parse(message) as Partial<Entry>
    } catch {
      return
    }
    if (typeof entry.gid === 'string' && typeof entry.until === 'number' && entry.until > this.#now()) this.#revoked.set(entry.gid, entry.until)
  }
}
