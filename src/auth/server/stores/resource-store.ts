import type { MessageBus } from '../../../storage/message-bus.js'
import type { RecordStore } from '../../../storage/types.js'
import { resolveResource, sharedIdentifiers, type ResolvedResource, type ResourceInput } from '../options.js'

const RESOURCES = 'resources'
/** Bus channel: the stored resources changed (the message carries nothing; readers reload them). */
const CHANGED = 'resources-changed'

/** A stored resource, as `resources list` shows it. */
export interface StoredResource extends ResolvedResource {
  addedAt: number
}

/**
 * Protected resources kept in the data directory beside accounts and clients (`mcp-auth resources
 * add|list|remove`): the server issues tokens for these as for configured ones, which come first
 * (the first configured one is the default resource). Validated like configured resources: https
 * (http on loopback only), no query or fragment, scopes as tokens, default scopes among them.
 * With a {@link MessageBus} (several nodes on Redis), each change is announced and every node
 * that {@link watch}es serves it at once, without a restart.
 */
export class ResourceStore {
  readonly #records: RecordStore
  readonly #bus: MessageBus | undefined

  constructor(records: RecordStore, bus?: MessageBus) {
    this.#records = records
    this.#bus = bus
  }

  /**
   * Adds a resource, or replaces the one with the same URI. Throws a TypeError when its URI or an
   * alias is another stored resource's URI or alias (an identifier names one server).
   */
  async add(input: ResourceInput): Promise<StoredResource> {
    const stored: StoredResource = { ...resolveResource(input), addedAt: Date.now() }
    for (const other of await this.list()) {
      if (other.uri === stored.uri) continue
      const shared = sharedIdentifiers(stored, other)
      if (shared.length > 0) throw new TypeError(`invalid resource:\n  ${shared.join(' ')} already names the stored resource ${other.uri}: remove it there first`)
    }
    await this.#records.put(RESOURCES, stored.uri, stored)
    await this.#bus?.publish(CHANGED, '')
    return stored
  }

  async list(): Promise<StoredResource[]> {
    return (await this.#records.list<StoredResource>(RESOURCES)).sort((a, b) => a.addedAt - b.addedAt)
  }

  /** Removes a stored resource; false when there was none with this URI. */
  async remove(uri: string): Promise<boolean> {
    if ((await this.#records.get(RESOURCES, uri)) === undefined) return false
    await this.#records.delete(RESOURCES, uri)
    await this.#bus?.publish(CHANGED, '')
    return true
  }

  /**
   * Calls `onChange` with the stored resources whenever another process announces a change, and
   * every `resyncMs` for an announcement missed, only when they differ from what it was last given
   * (so a reader keeps what it built from them). Without a bus it never calls. Returns `stop`.
   */
  async watch(initial: readonly StoredResource[], onChange: (stored: StoredResource[]) => void, resyncMs: number): Promise<() => Promise<void>> {
    const bus = this.#bus
    if (bus === undefined) return async () => undefined
    let last = JSON.stringify(initial)
    let reloading: Promise<void> | undefined
    const reload = (): void => {
      // one reload at a time; a change announced during one is read by the next
      reloading ??= this.list()
        .then((stored) => {
          const text = JSON.stringify(stored)
          if (text === last) return
          last = text
          onChange(stored)
        })
        .catch(() => undefined)
        .finally(() => {
          reloading = undefined
        })
    }
    const unsubscribe = await bus.subscribe(CHANGED, () => {
      if (reloading === undefined) reload()
      else void reloading.then(reload)
    })
    const timer = setInterval(reload, resyncMs)
    timer.unref()
    // a change between the caller's list() and the subscription is not missed
    reload()
    return async () => {
      clearInterval(timer)
      void unsubscribe().catch(() => undefined)
    }
  }
}

/**
 * Configured resources first (the first is the default), then stored ones none of whose
 * identifiers (URI, aliases) a configured one or an earlier stored one already has.
 */
export function mergeResources(configured: readonly ResolvedResource[], stored: readonly StoredResource[]): ResolvedResource[] {
  const merged = [...configured]
  for (const { addedAt: _addedAt, ...resource } of stored) {
    if (merged.every((other) => sharedIdentifiers(resource, other).length === 0)) merged.push(resource)
  }
  return merged
}
