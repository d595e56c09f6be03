import type { RecordStore } from '../../storage/types.js'
import { resolveResource, type ResolvedResource, type ResourceInput } from './options.js'

const RESOURCES = 'resources'

/** A stored resource, as `resources list` shows it. */
export interface StoredResource extends ResolvedResource {
  addedAt: number
}

/**
 * Protected resources kept in the data directory beside accounts and clients (`mcp-auth resources
 * add|list|remove`): the server issues tokens for these as for configured ones, which come first
 * (the first configured one is the default resource). Validated like configured resources: https
 * (http on loopback only), no query or fragment, scopes as tokens, default scopes among them.
 */
export class ResourceStore {
  readonly #records: RecordStore

  constructor(records: RecordStore) {
    this.#records = records
  }

  /** Adds a resource, or replaces the one with the same URI. */
  async add(input: ResourceInput): Promise<StoredResource> {
    const stored: StoredResource = { ...resolveResource(input), addedAt: Date.now() }
    await this.#records.put(RESOURCES, stored.uri, stored)
    return stored
  }

  async list(): Promise<StoredResource[]> {
    return (await this.#records.list<StoredResource>(RESOURCES)).sort((a, b) => a.addedAt - b.addedAt)
  }

  /** Removes a stored resource; false when there was none with this URI. */
  async remove(uri: string): Promise<boolean> {
    if ((await this.#records.get(RESOURCES, uri)) === undefined) return false
    await this.#records.delete(RESOURCES, uri)
    return true
  }
}

/** Configured resources first (the first is the default), then stored ones with another URI. */
export function mergeResources(configured: readonly ResolvedResource[], stored: readonly StoredResource[]): ResolvedResource[] {
  const seen = new Set(configured.map((resource) => resource.uri))
  const added = stored.filter((resource) => !seen.has(resource.uri)).map(({ addedAt: _addedAt, ...resource }) => resource)
  return [...configured, ...added]
}
