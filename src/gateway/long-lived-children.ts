import { defaults } from '../config/defaults.js'
import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'
import type { ChildFactory } from './child-factory.js'
import type { ChildLink, ChildRoute } from './child-link.js'
import type { ChildPool, ChildSlot } from './child-pool.js'
import { describePrincipal, type Principal } from './principal.js'

/** What a child the gateway initialized itself said of itself. */
export interface ChildInitialize {
  protocolVersion: string
  capabilities: Record<string, unknown>
  serverInfo: { name: string; version: string; [key: string]: unknown }
  instructions?: string
}

/** A long-lived child, initialized and ready for requests. */
export interface ReadyChild {
  readonly link: ChildLink
  readonly init: ChildInitialize
}

interface Entry {
  readonly key: string
  readonly principal: Principal | undefined
  readonly slot: ChildSlot
  readonly startedAt: number
  ready: ReadyChild | undefined
  starting: Promise<ReadyChild> | undefined
  lastUsed: number
}

export interface LongLivedChildrenOptions {
  pool: ChildPool
  factory: ChildFactory
  /** One child for everyone (`--shared`) instead of one per principal. */
  shared: boolean
  idleMs: number
  initializeTimeoutMs: number
  /** The version and identity the gateway initializes its children with. */
  clientInfo: { name: string; version: string }
  log: (line: string) => void
}

const SHARED_KEY = '["shared"]'

/**
 * The children the gateway initializes itself and keeps: one per principal for stateless clients
 * (2026-07-28 requests, stateless POSTs, the JSON endpoint), or one for everyone with `--shared`
 * (its stateful sessions too). Started on a principal's first request, ended after `idleMs`
 * without one; a child that fails is started again on the next request, after the pool's back-off.
 */
export class LongLivedChildren {
  readonly #options: LongLivedChildrenOptions
  readonly #entries = new Map<string, Entry>()
  /** Callers told of each key's list changes, whatever child serves the key now. */
  readonly #listeners = new Map<string, Set<ChildRoute>>()

  constructor(options: LongLivedChildrenOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#entries.size
  }

  #keyOf(principal: Principal): string {
    return this.#options.shared ? SHARED_KEY : principal.key
  }

  /**
   * The principal's child, ready (synchronously when it runs), or its start; throws the pool's
   * refusal (429 / 503 with Retry-After) when a new child is over a cap or in a back-off.
   */
  acquire(principal: Principal): ReadyChild | Promise<ReadyChild> {
    const key = this.#keyOf(principal)
    const entry = this.#entries.get(key)
    if (entry !== undefined) {
      entry.lastUsed = Date.now()
      return entry.ready ?? entry.starting!
    }
    return this.#start(key, this.#options.shared ? undefined : principal)
  }

  /** Tell `route` of the list changes of `principal`'s child (the shared child's stateful sessions). */
  listen(principal: Principal, route: ChildRoute): void {
    const key = this.#keyOf(principal)
    let routes = this.#listeners.get(key)
    if (routes === undefined) this.#listeners.set(key, (routes = new Set()))
    routes.add(route)
    this.#entries.get(key)?.ready?.link.listen(route)
  }

  /** Forget `route` (its session ended): no more answers, list changes or subscriptions. */
  detach(principal: Principal, route: ChildRoute): void {
    const key = this.#keyOf(principal)
    const routes = this.#listeners.get(key)
    routes?.delete(route)
    if (routes?.size === 0) this.#listeners.delete(key)
    this.#entries.get(key)?.ready?.link.detach(route)
  }

  #start(key: string, principal: Principal | undefined): Promise<ReadyChild> {
    const o = this.#options
    const slot = o.pool.reserve(key)
    const now = Date.now()
    const entry: Entry = { key, principal, slot, startedAt: now, ready: undefined, starting: undefined, lastUsed: now }
    entry.starting = this.#open(entry).then(
      (ready) => {
        entry.ready = ready
        entry.starting = undefined
        return ready
      },
      (error: unknown) => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key)
        slot.release()
        o.pool.failed(key, 0)
        const who = principal === undefined ? 'the shared child' : describePrincipal(principal)
        const reason = error instanceof Error ? error.message : String(error)
        o.log(`gateway: could not start the MCP server for ${who}: ${reason}`)
        throw new JsonRpcError(ErrorCode.InternalError, `Internal error: the MCP server could not be started (${reason}); the gateway tries again on a later request`)
      },
    )
    this.#entries.set(key, entry)
    return entry.starting
  }

  async #open(entry: Entry): Promise<ReadyChild> {
    const o = this.#options
    const link = await o.factory(entry.principal, {})
    link.onended = (end) => {
      if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key)
      entry.slot.release()
      // a child that fails before it is ready is counted by its start's refusal
      if (end.failed && entry.ready !== undefined) {
        o.pool.failed(entry.key, Date.now() - entry.startedAt)
        o.log(`gateway: ${end.reason} (${entry.principal === undefined ? 'the shared child' : describePrincipal(entry.principal)})`)
      }
    }
    try {
      const result = await link.request('initialize', { protocolVersion: defaults.gateway.childProtocolVersion, capabilities: {}, clientInfo: o.clientInfo }, o.initializeTimeoutMs)
      link.notify('notifications/initialized')
      for (const route of this.#listeners.get(entry.key) ?? []) link.listen(route)
      return { link, init: readInitialize(result) }
    } catch (error) {
      await link.stop(error instanceof Error ? error.message : String(error), true).catch(() => {})
      throw error
    }
  }

  /** End the children idle for `idleMs` (none in flight, no stateful session listening). */
  sweep(): void {
    const cutoff = Date.now() - this.#options.idleMs
    for (const entry of this.#entries.values()) {
      const ready = entry.ready
      if (ready === undefined || entry.lastUsed > cutoff || ready.link.inFlight > 0 || this.#listeners.has(entry.key)) continue
      this.#entries.delete(entry.key)
      void ready.link.stop('the MCP server process was idle and was stopped').catch(() => {})
    }
  }

  /** Stop every child (a drain): stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const entries = [...this.#entries.values()]
    this.#entries.clear()
    await Promise.all(
      entries.map(async (entry) => {
        const ready = entry.ready ?? (await entry.starting?.catch(() => undefined))
        await ready?.link.stop('the gateway is shutting down').catch(() => {})
      }),
    )
  }
}

/** The child's initialize result, checked for what the gateway uses of it. */
export function readInitialize(result: Record<string, unknown>): ChildInitialize {
  const { protocolVersion, capabilities, serverInfo, instructions } = result as Partial<ChildInitialize>
  if (typeof protocolVersion !== 'string' || typeof serverInfo !== 'object' || serverInfo === null) {
    throw new JsonRpcError(ErrorCode.InternalError, 'the MCP server answered initialize without a protocolVersion and serverInfo')
  }
  return {
    protocolVersion,
    capabilities: typeof capabilities === 'object' && capabilities !== null ? capabilities : {},
    serverInfo,
    ...(typeof instructions === 'string' ? { instructions } : {}),
  }
}
