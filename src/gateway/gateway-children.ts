import { randomUUID } from 'node:crypto'
import type { ChildFactory } from './child-factory.js'
import type { ChildLink } from './child-link.js'

/** One running child, as an administrator sees it (the admin API's `ChildInfo`). */
export interface GatewayChildInfo {
  readonly id: string
  readonly subject?: string
  readonly clientId: string
  readonly server: string
  readonly startedAt: number
  readonly state: 'running' | 'ending'
}

interface Entry {
  info: GatewayChildInfo
  link: ChildLink
}

/**
 * The gateway's running children in this process, for administration: each factory is wrapped
 * ({@link track}) so every child it starts is listed with its principal, server and start time
 * until it ends, and an administrator can end one ({@link end}): its session gets a new child on
 * its next request, as after a crash. A child leaves the list as it ends, however it ends; a
 * listener ({@link watch}) hears each start and end.
 */
export class GatewayChildren {
  readonly #entries = new Map<string, Entry>()
  readonly #listeners = new Set<() => void>()

  /** `factory`, with each child it starts listed here under `server` (its MCP path). */
  track(factory: ChildFactory, server: string): ChildFactory {
    return async (principal, options) => {
      const link = await factory(principal, options)
      const id = randomUUID()
      const info: GatewayChildInfo = {
        id,
        ...(principal?.subject !== undefined && principal.subject !== '' ? { subject: principal.subject } : {}),
        clientId: principal?.clientId ?? '',
        server,
        startedAt: Date.now(),
        state: 'running',
      }
      this.#entries.set(id, { info, link })
      this.#changed()
      // gone from the list once it ends, however it ends (the session has its own onended)
      void link.ended.then(() => {
        this.#entries.delete(id)
        this.#changed()
      })
      return link
    }
  }

  /** The children running now. */
  list(): GatewayChildInfo[] {
    return [...this.#entries.values()].map((entry) => entry.info)
  }

  /** Ends a child (stdin closed, then SIGTERM, then SIGKILL); false when none has this id here. */
  async end(id: string): Promise<boolean> {
    const entry = this.#entries.get(id)
    if (entry === undefined || entry.link.end !== undefined) return false
    entry.info = { ...entry.info, state: 'ending' }
    await entry.link.stop('the MCP server process was ended by an administrator')
    this.#entries.delete(id)
    return true
  }

  /** Calls `listener` when a child starts or ends; returns what stops it. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed(): void {
    for (const listener of this.#listeners) listener()
  }
}
