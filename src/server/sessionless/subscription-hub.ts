import type { JsonRpcParams } from '../../jsonrpc/index.js'
import type { ServerCapabilities } from '../../schema/capabilities.js'

/**
 * The notifications a client opts in to on a `subscriptions/listen` stream. Each is opt-in: the
 * server sends nothing else on the stream.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 */
export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
}

/** One open stream, as the hub sees it. */
export interface HubListener {
  readonly filter: SubscriptionFilter
  /** The resources whose updates it asked for. */
  readonly uris: ReadonlySet<string>
  deliver(method: string, params: JsonRpcParams): void
  /** The server is closing: end the stream. */
  end(): void
}

const LIST_CHANGED: Record<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
}

/**
 * The part of a client's filter the server honours: what it asked for and the declared
 * capabilities support (list changes, resource updates); anything else is left out.
 */
export function honouredFilter(requested: SubscriptionFilter, caps: ServerCapabilities): SubscriptionFilter {
  const honoured: SubscriptionFilter = {}
  if (requested.toolsListChanged === true && caps.tools?.listChanged === true) honoured.toolsListChanged = true
  if (requested.promptsListChanged === true && caps.prompts?.listChanged === true) honoured.promptsListChanged = true
  if (requested.resourcesListChanged === true && caps.resources?.listChanged === true) honoured.resourcesListChanged = true
  if (Array.isArray(requested.resourceSubscriptions) && caps.resources?.subscribe === true) {
    honoured.resourceSubscriptions = [...new Set(requested.resourceSubscriptions.filter((uri) => typeof uri === 'string'))]
  }
  return honoured
}

/**
 * The open `subscriptions/listen` streams of one server: list changes and resource updates go to
 * the streams whose filter asked for them.
 */
export class SubscriptionHub {
  readonly #listeners = new Set<HubListener>()

  get size(): number {
    return this.#listeners.size
  }

  /** Deliver matching notifications to `listener` until it is removed; its `end` runs if the server closes first. */
  add(listener: HubListener): void {
    this.#listeners.add(listener)
  }

  remove(listener: HubListener): void {
    this.#listeners.delete(listener)
  }

  listChanged(method: string): void {
    const key = LIST_CHANGED[method]
    if (key === undefined) return
    for (const listener of this.#listeners) if (listener.filter[key] === true) listener.deliver(method, {})
  }

  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners) if (listener.uris.has(uri)) listener.deliver('notifications/resources/updated', { uri })
  }

  /** The server is shutting down: every stream ends with its listen result. */
  closeAll(): void {
    const all = [...this.#listeners]
    this.#listeners.clear()
    for (const listener of all) listener.end()
  }
}
