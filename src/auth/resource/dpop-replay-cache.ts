import { BoundedMap } from '../../collections/bounded-map.js'
import { defaults } from '../../config/defaults.js'

/**
 * Remembers DPoP proof `jti`s for as long as a proof could still be accepted (its `iat` window),
 * so a proof is good for one request only (RFC 9449 §11.1).
 */
export interface DpopReplayCache {
  /**
   * Records `jti` for the key `jkt` until `expiresAt` (ms); true when it was not seen before,
   * false for a replay.
   */
  remember(jkt: string, jti: string, expiresAt: number): Promise<boolean> | boolean
}

export interface MemoryDpopReplayCacheOptions {
  /** Most `jti`s remembered in all. */
  maxEntries?: number
  /** Most `jti`s remembered per key (per principal). */
  maxEntriesPerKey?: number
  now?: () => number
}

/**
 * The replay cache of one process, bounded twice: per key (a client that floods the server with
 * proofs forgets its own oldest ones first, never another client's) and in all (when full, the
 * key holding the most entries gives up its oldest). Entries go when their window ends. Several
 * processes behind a load balancer need a shared cache ({@link RedisDpopReplayCache}): a proof
 * replayed to another node would otherwise pass.
 */
export class MemoryDpopReplayCache implements DpopReplayCache {
  readonly #byKey = new Map<string, BoundedMap<string, number>>()
  readonly #max: number
  readonly #maxPerKey: number
  readonly #now: () => number
  #size = 0

  constructor(options: MemoryDpopReplayCacheOptions = {}) {
    const d = defaults.resourceServer.dpop
    this.#max = Math.max(1, options.maxEntries ?? d.replayCacheEntries)
    this.#maxPerKey = Math.max(1, options.maxEntriesPerKey ?? d.replayEntriesPerKey)
    this.#now = options.now ?? Date.now
  }

  get size(): number {
    return this.#size
  }

  remember(jkt: string, jti: string, expiresAt: number): boolean {
    const now = this.#now()
    let seen = this.#byKey.get(jkt)
    if (seen === undefined) this.#byKey.set(jkt, (seen = new BoundedMap(this.#maxPerKey)))
    else {
      this.#dropExpired(jkt, seen, now)
      const until = seen.get(jti)
      if (until !== undefined) return false
    }
    // room in the key's own entries first, then in the whole cache (the count spans every key):
    // the key's map then never has to forget an entry itself, behind the count's back
    if (seen.size >= this.#maxPerKey) this.#dropOldest(jkt, seen)
    if (this.#size >= this.#max) this.#makeRoom(now)
    // the key's map may have been emptied and removed while making room
    if (!this.#byKey.has(jkt)) this.#byKey.set(jkt, seen)
    seen.set(jti, expiresAt)
    this.#size++
    return true
  }

  /** Entries of one key are in arrival order, and every window is as long: expired ones are at the front. */
  #dropExpired(jkt: string, seen: BoundedMap<string, number>, now: number): void {
    for (const [jti, until] of seen) {
      if (until > now) break
      seen.delete(jti)
      this.#size--
    }
    if (seen.size === 0) this.#byKey.delete(jkt)
  }

  #dropOldest(jkt: string, seen: BoundedMap<string, number>): void {
    if (!seen.deleteOldest()) return
    this.#size--
    if (seen.size === 0) this.#byKey.delete(jkt)
  }

  #makeRoom(now: number): void {
    for (const [jkt, seen] of this.#byKey) this.#dropExpired(jkt, seen, now)
    if (this.#size < this.#max) return
    let largest: [string, BoundedMap<string, number>] | undefined
    for (const entry of this.#byKey) if (largest === undefined || entry[1].size > largest[1].size) largest = entry
    if (largest !== undefined) this.#dropOldest(largest[0], largest[1])
  }
}
