/** One unused registration: its client, when it was made, and its address group. */
export interface UnusedEntry {
  clientId: string
  createdAt: number
  address: string
}

/**
 * Unused registrations by client id and by address group, each group's oldest first, and the
 * groups by how many they hold: adding, removing and finding the oldest registration of a group
 * holding the most are O(1) (the registration caps' bookkeeping, see UnusedClients).
 */
export class UnusedByGroup {
  readonly #entries = new Map<string, UnusedEntry>()
  readonly #groups = new Map<string, Map<string, UnusedEntry>>()
  readonly #byCount = new Map<number, Set<string>>()
  #most = 0

  get size(): number {
    return this.#entries.size
  }

  /** How many the group holding the most holds. */
  get most(): number {
    return this.#most
  }

  has(clientId: string): boolean {
    return this.#entries.has(clientId)
  }

  /** How many `address`'s group holds. */
  count(address: string): number {
    return this.#groups.get(address)?.size ?? 0
  }

  values(): IterableIterator<UnusedEntry> {
    return this.#entries.values()
  }

  add(entry: UnusedEntry): void {
    if (this.#entries.has(entry.clientId)) return
    this.#entries.set(entry.clientId, entry)
    let group = this.#groups.get(entry.address)
    if (group === undefined) this.#groups.set(entry.address, (group = new Map()))
    group.set(entry.clientId, entry)
    this.#recount(entry.address, group.size - 1, group.size)
  }

  /** False when `clientId` was not listed. */
  remove(clientId: string): boolean {
    const entry = this.#entries.get(clientId)
    if (entry === undefined) return false
    this.#entries.delete(clientId)
    const group = this.#groups.get(entry.address)!
    group.delete(clientId)
    if (group.size === 0) this.#groups.delete(entry.address)
    this.#recount(entry.address, group.size + 1, group.size)
    return true
  }

  /** The oldest registration of a group holding the most (of those, the one that got there first). */
  oldestOfLargest(): UnusedEntry | undefined {
    const address = this.#byCount.get(this.#most)?.values().next().value
    return address === undefined ? undefined : this.#groups.get(address)?.values().next().value
  }

  #recount(address: string, from: number, to: number): void {
    if (from > 0) {
      const bucket = this.#byCount.get(from)!
      bucket.delete(address)
      if (bucket.size === 0) this.#byCount.delete(from)
    }
    if (to > 0) {
      const bucket = this.#byCount.get(to)
      if (bucket === undefined) this.#byCount.set(to, new Set([address]))
      else bucket.add(address)
    }
    if (to > this.#most) this.#most = to
    // counts move by one: at most one step down
    while (this.#most > 0 && !this.#byCount.has(this.#most)) this.#most--
  }
}
