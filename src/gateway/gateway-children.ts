import { randomUUID } from 'node:crypto'
import type { Observer } from '../observe/observer.js'
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
  /** Ended by an administrator: the admin API recorded that, with its actor. */
  byAdministrator?: boolean
}

/**
 * The gateway's running children in this process, for administration: each factory is wrapped
 * ({@link track}) so every child it starts is listed with its principal, server and start time
 * until it ends, and an administrator can end one ({@link end}): its session gets a new child on
 * its next request, as after a crash. A child leaves the list as it ends, however it ends; a
 * listener ({@link watch}) hears each start and end. With an observer, each start, end and crash
 * is an audit event (`gateway.child-started`, `-ended`, `-crashed`), once.
 */
export class GatewayChildren {
  readonly #entries = new Map<string, Entry>()
  readonly #listeners = new Set<() => void>()
  readonly #observer: Observer | undefined

  constructor(options: { observer?: Observer } = {}) {
    this.#observer = options.observer
  }

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
      const entry: Entry = { info, link }
      this.#entries.set(id, entry)
      this.#record('gateway.child-started', info)
      this.#changed()
      // gone from the list once it ends, however it ends (the session has its own onended)
      void link.ended.then((end) => {
        this.#entries.delete(id)
        if (entry.byAdministrator !== true) this.#record(end.failed ? 'gateway.child-crashed' : 'gateway.child-ended', info, end.reason)
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
    entry.byAdministrator = true
    await entry.link.stop('the MCP server process was ended by an administrator')
    this.#entries.delete(id)
    return true
  }

  /** Calls `listener` when a child starts or ends; returns what stops it. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #record(type: 'gateway.child-started' | 'gateway.child-ended' | 'gateway.child-crashed', info: GatewayChildInfo, end?: string): void {
    this.#observer?.audit({
      type,
      result: type === 'gateway.child-crashed' ? 'failure' : 'success',
      ...(type === 'gateway.child-crashed' ? { reason: 'exited_unexpectedly' } : {}),
      ...(info.subject !== undefined ? { subject: info.subject } : {}),
      ...(info.clientId !== '' ? { clientId: info.clientId } : {}),
      actor: { channel: 'gateway' },
      details: { child: info.id, server: info.server, ...(end !== undefined ? { end, ran_ms: Date.now() - info.startedAt } : {}) },
    })
  }

  #changed(): void {
    for (const listener of this.#listeners) listener()
  }
}
