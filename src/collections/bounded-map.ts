/** How a {@link BoundedMap} orders and evicts its entries. */
export interface BoundedMapOptions {
  /**
   * Setting a key already held moves it to the newest place (the map forgets the key set longest
   * ago, not the one added first). Default: false, a key keeps the place of its first set.
   */
  refreshOnSet?: boolean
  /**
   * Make room before setting rather than after: when the map already holds `max` entries, the
   * oldest is forgotten before the set, even when the key set is one already held. Default: false,
   * the oldest is forgotten after a set that took the map past `max`.
   */
  evictBeforeSet?: boolean
}

/**
 * A `Map` that holds at most `max` entries: past that, the oldest is forgotten (`Map` iterates in
 * insertion order, so the oldest is the first key). Reads cost what a `Map`'s cost; a set costs
 * one more size check, and an eviction one iterator, as the hand-written versions did.
 *
 * @example
 * const seen = new BoundedMap<string, number>(2)
 * seen.set('a', 1).set('b', 2).set('c', 3) // 'a' is forgotten
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly max: number
  readonly #refreshOnSet: boolean
  readonly #evictBeforeSet: boolean

  // Map's constructor would call the overridden `set` before the fields exist: no initial entries.
  constructor(max: number, options: BoundedMapOptions = {}) {
    super()
    this.max = max
    this.#refreshOnSet = options.refreshOnSet === true
    this.#evictBeforeSet = options.evictBeforeSet === true
  }

  override set(key: K, value: V): this {
    if (this.#refreshOnSet) super.delete(key)
    if (this.#evictBeforeSet) {
      if (this.size >= this.max) this.#dropOldest()
      return super.set(key, value)
    }
    super.set(key, value)
    if (this.size > this.max) this.#dropOldest()
    return this
  }

  /**
   * Forgets the oldest entry now; false when the map is empty. For an owner that counts entries
   * across several maps and must make room itself, in its own order, before a set (the DPoP
   * replay cache: a key's own oldest proof first, then the whole cache).
   */
  deleteOldest(): boolean {
    return this.#dropOldest()
  }

  #dropOldest(): boolean {
    const oldest = this.keys().next()
    return oldest.done !== true && super.delete(oldest.value)
  }
}
