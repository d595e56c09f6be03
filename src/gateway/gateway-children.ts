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
 * its next request, as after a crash. Ended children are dropped as the list is read or a child
 * starts, so the list holds no more than the children running and those ended since.
 */
export class GatewayChildren {
  readonly #entries = new Map<string, Entry>()

  /** `factory`, with each child it starts listed here under `server` (its MCP path). */
  track(factory: ChildFactory, server: string): ChildFactory {
    return async (principal, options) => {
      const link = await factory(principal, options)
      this.#prune()
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
      return link
    }
  }

  /** The children running now. */
  list(): GatewayChildInfo[] {
    this.#prune()
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

  #prune(): void {
    for (const [id, entry] of this.#entries) if (entry.link.end !== undefined && entry.info.state === 'running') this.#entries.delete(id)
  }
}
