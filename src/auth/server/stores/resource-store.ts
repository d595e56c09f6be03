import { defaults } from '../../../config/defaults.js'
import type { MessageBus } from '../../../storage/message-bus.js'
import type { RecordStore } from '../../../storage/types.js'
import { resolveResource, sharedIdentifiers, type ResolvedResource, type ResourceInput } from '../options.js'

const RESOURCES = 'resources'
/** Which stored resource each identifier (URI, alias) names: see {@link ResourceStore}. */
const IDENTIFIERS = 'resource-identifiers'
/** Bus channel: the stored resources changed (the message carries nothing; readers reload them). */
const CHANGED = 'resources-changed'

/** A stored resource, as `resources list` shows it. */
export interface StoredResource extends ResolvedResource {
  addedAt: number
  /** Revision: 0 when added, one more at each change ({@link ResourceStore.update}). */
  rev?: number
}

/** Who holds an identifier (a URI or alias): one record per identifier, created atomically. */
interface IdentifierClaim {
  uri: string
  claimedAt: number
  rev?: number
}

/**
 * Protected resources kept in the data directory beside accounts and clients (`mcp-auth resources
 * add|list|remove`, the admin API): the server issues tokens for these as for configured ones,
 * which come first (the first configured one is the default resource). Validated like configured
 * resources: https (http on loopback only), no query or fragment, scopes as tokens, default
 * scopes among them. An identifier (URI or alias) names one stored resource: each is claimed
 * with the store's atomic `create`, so two administrators adding resources that share an alias
 * at once, on two nodes, cannot both succeed. With a {@link MessageBus} (several nodes on Redis),
 * each change is announced and every node that {@link watch}es serves it at once.
 */
export class ResourceStore {
  readonly #records: RecordStore
  readonly #bus: MessageBus | undefined
  readonly #now: () => number

  constructor(records: RecordStore, bus?: MessageBus, now: () => number = Date.now) {
    this.#records = records
    this.#bus = bus
    this.#now = now
  }

  /**
   * Adds a resource, or replaces the one with the same URI. Throws a TypeError when its URI or an
   * alias is another stored resource's URI or alias (an identifier names one server).
   */
  async add(input: ResourceInput): Promise<StoredResource> {
    const resolved = resolveResource(input)
    const before = await this.get(resolved.uri)
    const stored: StoredResource = { ...resolved, addedAt: this.#now(), rev: before === undefined ? 0 : (before.rev ?? 0) + 1 }
    await this.#claimAll(stored)
    await this.#records.put(RESOURCES, stored.uri, stored)
    if (before !== undefined) await this.#release(before, stored)
    await this.#bus?.publish(CHANGED, '')
    return stored
  }

  /**
   * Stores a new resource; undefined when one with this URI is stored already (of two calls at
   * once, on any nodes, one stores it). Throws like {@link add} on an invalid input or a shared
   * identifier.
   */
  async create(input: ResourceInput): Promise<StoredResource | undefined> {
    const stored: StoredResource = { ...resolveResource(input), addedAt: this.#now(), rev: 0 }
    await this.#claimAll(stored)
    if (!(await this.#records.create(RESOURCES, stored.uri, stored))) {
      await this.#release(stored, await this.get(stored.uri))
      return undefined
    }
    await this.#bus?.publish(CHANGED, '')
    return stored
  }

  /**
   * Changes a stored resource in place (its `addedAt` stays, its `rev` grows), only while it is at
   * `revision` (absent: the revision read now): of two administrators saving one resource at
   * once, one wins. Returns undefined when there is no stored resource with this URI; throws a
   * {@link StaleResourceError} when it changed, a TypeError when the input is invalid or names
   * an identifier another resource has.
   */
  async update(uri: string, input: ResourceInput, revision?: number): Promise<StoredResource | undefined> {
    const resolved = resolveResource(input)
    if (resolved.uri !== uri) throw new TypeError(`invalid resource:\n  uri: a stored resource keeps its URI (${uri}): add the new one and remove this one instead`)
    const current = await this.get(uri)
    if (current === undefined) return undefined
    const at = revision ?? current.rev ?? 0
    if ((current.rev ?? 0) !== at) throw new StaleResourceError(uri)
    const next: StoredResource = { ...resolved, addedAt: current.addedAt, rev: at + 1 }
    await this.#claimAll(next)
    if (!(await this.#records.putIfRevision(RESOURCES, uri, next, at))) {
      await this.#release(next, current)
      throw new StaleResourceError(uri)
    }
    await this.#release(current, next)
    await this.#bus?.publish(CHANGED, '')
    return next
  }

  /** One stored resource by its URI. */
  async get(uri: string): Promise<StoredResource | undefined> {
    return this.#records.get<StoredResource>(RESOURCES, uri)
  }

  /**
   * Claims every identifier of `resource` for it, or none: on a conflict, the claims this call
   * made are given back and a TypeError names the resource that has the identifier.
   */
  async #claimAll(resource: StoredResource): Promise<void> {
    const made: string[] = []
    try {
      for (const identifier of [resource.uri, ...(resource.aliases ?? [])]) {
        const outcome = await this.#claim(identifier, resource.uri)
        if (outcome === 'made') made.push(identifier)
        else if (outcome !== 'held') throw new ResourceConflictError(`invalid resource:\n  ${identifier} already names the stored resource ${outcome}: remove it there first`)
      }
      // resources stored before identifiers were claimed hold none: compare with them as well
      for (const other of await this.list()) {
        if (other.uri === resource.uri) continue
        const shared = sharedIdentifiers(resource, other)
        if (shared.length > 0) throw new ResourceConflictError(`invalid resource:\n  ${shared.join(' ')} already names the stored resource ${other.uri}: remove it there first`)
      }
    } catch (error) {
      for (const identifier of made) await this.#records.delete(IDENTIFIERS, identifier)
      throw error
    }
  }

  /** 'made' (this call claimed it), 'held' (the resource had it already), or the URI of the resource that has it. */
  async #claim(identifier: string, uri: string): Promise<'made' | 'held' | string> {
    for (let round = 0; round < 2; round++) {
      if (await this.#records.create(IDENTIFIERS, identifier, { uri, claimedAt: this.#now(), rev: 0 } satisfies IdentifierClaim)) return 'made'
      const claim = await this.#records.get<IdentifierClaim>(IDENTIFIERS, identifier)
      if (claim === undefined) continue
      if (claim.uri === uri) return 'held'
      const owner = await this.get(claim.uri)
      if (owner !== undefined && [owner.uri, ...(owner.aliases ?? [])].includes(identifier)) return claim.uri
      // a claim whose resource never got stored (its writer stopped in between) is taken over once
      // it is older than any add takes; a younger one is an add under way
      if (this.#now() - claim.claimedAt < defaults.authServer.resourceClaimGraceMs) return claim.uri
      const rev = claim.rev ?? 0
      if (await this.#records.putIfRevision(IDENTIFIERS, identifier, { uri, claimedAt: this.#now(), rev: rev + 1 } satisfies IdentifierClaim, rev)) return 'made'
    }
    return 'a resource added at the same moment'
  }

  /** Gives back the identifiers `before` had and `after` (the same resource, now) no longer has. */
  async #release(before: StoredResource, after: StoredResource | undefined): Promise<void> {
    const kept = new Set(after === undefined ? [] : [after.uri, ...(after.aliases ?? [])])
    for (const identifier of [before.uri, ...(before.aliases ?? [])]) {
      if (kept.has(identifier)) continue
      const claim = await this.#records.get<IdentifierClaim>(IDENTIFIERS, identifier)
      if (claim?.uri === before.uri) await this.#records.delete(IDENTIFIERS, identifier)
    }
  }

  async list(): Promise<StoredResource[]> {
    return (await this.#records.list<StoredResource>(RESOURCES)).sort((a, b) => a.addedAt - b.addedAt)
  }

  /**
   * Removes a stored resource; false when there was none with this URI. With `revision`, only
   * while it is at that revision (a {@link StaleResourceError} otherwise).
   */
  async remove(uri: string, revision?: number): Promise<boolean> {
    const current = await this.get(uri)
    if (current === undefined) return false
    const at = current.rev ?? 0
    if (revision !== undefined && at !== revision) throw new StaleResourceError(uri)
    // a change saved meanwhile (on any node) wins over a removal made on what was read before it
    if (revision !== undefined && !(await this.#records.putIfRevision(RESOURCES, uri, { ...current, rev: at + 1 }, at))) throw new StaleResourceError(uri)
    await this.#records.delete(RESOURCES, uri)
    await this.#release(current, undefined)
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
  for (const { addedAt: _addedAt, rev: _rev, ...resource } of stored) {
    if (merged.every((other) => sharedIdentifiers(resource, other).length === 0)) merged.push(resource)
  }
  return merged
}

/** A stored resource changed since the revision a change was made on. */
export class StaleResourceError extends Error {
  override name = 'StaleResourceError'
  readonly uri: string

  constructor(uri: string) {
    super(`the stored resource ${uri} changed since it was read: read it again and reapply the change`)
    this.uri = uri
  }
}

/** A resource's URI or alias is another stored resource's (a TypeError, as every invalid resource). */
export class ResourceConflictError extends TypeError {
  override name = 'ResourceConflictError'
}
