import { randomUUID } from 'node:crypto'
import { defaults } from '../../../config/defaults.js'
import { HttpError } from '../../../net/http-error.js'
import type { SessionHost } from '../../../session-host/session-host.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { MessageBus } from '../../../sessions/message-bus.js'
import { SessionLimits, tooManySessions, tooManySessionsForPrincipal } from '../../http/session-limits.js'
import { ClusterSessions } from './cluster-sessions.js'
import { InMemoryEventStore, type EventStore } from '../../../sessions/event-store.js'
import { LiveSession } from './live-session.js'
import { SessionForwarder } from './session-forwarder.js'
import type { SessionState, SessionStore } from '../../../sessions/session-store.js'
import { SessionTransport, type SessionTransportOptions } from './session-transport.js'

export interface SessionTableOptions {
  sessionStore: SessionStore | undefined
  eventStore: EventStore
  /** Other processes serve the same sessions (see `StreamableHttpOptions.bus`). */
  bus: MessageBus | undefined
  sessionIdleMs: number
  maxSessions: number
  maxSessionsPerPrincipal: number
  /** Stateless mode keeps no sessions here: no sweep. */
  sweep: boolean
  /** What every session's transport shares (the table adds the store, the bus and its own close hook). */
  transports: Pick<SessionTransportOptions, 'keepAliveMs' | 'retryMs' | 'preferJsonResponse'>
}

const NOOP = () => {}

/** Attaches a catch to a store call's promise (synchronous stores return none). */
function settle(result: Promise<void> | void): void {
  if (result instanceof Promise) result.catch(NOOP)
}

/**
 * The sessions one handler serves: its live copies, the caps, the idle sweep, and the store that
 * lets another process (or handler) take a session up. With a store shared by several processes
 * (one that implements `touch`), each live copy is only this process's copy: it is checked with the
 * store on every request, and ending it (idle, or this process closing) leaves the session to the
 * others; only DELETE, or an eviction by the store, ends the session itself.
 */
export class SessionTable {
  readonly #server: SessionHost
  readonly #options: SessionTableOptions
  readonly #sessions = new Map<string, LiveSession>()
  readonly #limits: SessionLimits<LiveSession>
  readonly #transports: SessionTransportOptions
  /**
   * A store shared by several processes (it expires idle sessions itself and counts the caps of
   * all): asked on every request, never told to delete a session this process merely dropped.
   */
  readonly #sharedStore: (SessionStore & Required<Pick<SessionStore, 'touch'>>) | undefined
  /** With a bus: the other processes serving the same sessions. */
  readonly cluster: ClusterSessions | undefined
  /** Sessions being restored from the store: concurrent requests wait for the one copy. */
  readonly #restoring = new Map<string, Promise<LiveSession | undefined>>()
  readonly #sweep: NodeJS.Timeout | undefined
  /**
   * The host's sessions live only in the process that created them (the gateway's children), and
   * other processes share the store and the bus: they forward requests here, this process never
   * takes a session of another up, and a session that ends here ends for all.
   */
  readonly #pinned: boolean

  constructor(server: SessionHost, options: SessionTableOptions) {
    const d = defaults.streamableHttp
    this.#server = server
    this.#options = options
    const store = options.sessionStore
    this.#sharedStore = store?.touch === undefined ? undefined : (store as SessionStore & Required<Pick<SessionStore, 'touch'>>)
    this.cluster = options.bus === undefined ? undefined : new ClusterSessions(options.bus, this.#sessions)
    this.#pinned = server.pinnedSessions === true && this.cluster !== undefined && store !== undefined
    this.#transports = { ...options.transports, eventStore: options.eventStore, ended: (transport) => this.#ended(transport), cluster: this.cluster?.link }
    this.#limits = new SessionLimits({
      maxSessions: options.maxSessions,
      // a shared store counts each principal's sessions across processes (admit)
      maxSessionsPerOwner: this.#sharedStore === undefined ? options.maxSessionsPerPrincipal : Number.POSITIVE_INFINITY,
      minIdleMs: d.evictIdleAfterMs,
    })
    if (options.sweep) {
      // a shared store learns of busy sessions (open GET streams) from the sweep: before they look idle there
      const sweepMs = Math.min(d.sessionSweepMs, options.sessionIdleMs, this.#sharedStore === undefined ? Number.POSITIVE_INFINITY : d.evictIdleAfterMs / 2)
      this.#sweep = setInterval(() => this.#expireIdle(), sweepMs)
      this.#sweep.unref()
    }
  }

  /** Live sessions (copies) in this process. */
  get size(): number {
    return this.#sessions.size
  }

  /** Sessions with their GET stream open (counted when asked, e.g. at a metrics scrape: not kept up to date on the request path). */
  get standaloneStreams(): number {
    let open = 0
    for (const live of this.#sessions.values()) if (live.transport.hasStandaloneStream) open++
    return open
  }

  /** Whether saving state after a request is needed at all (a store is configured). */
  get stored(): boolean {
    return this.#options.sessionStore !== undefined
  }

  /** Close every live copy, stop the sweep, leave the bus. */
  async close(): Promise<void> {
    if (this.#sweep !== undefined) clearInterval(this.#sweep)
    // a drain: the requests other processes forwarded here finish first (as this process's own do)
    if (this.#pinned) await this.#settleForwarded()
    await Promise.all([...this.#sessions.values()].map((live) => live.session.close()))
    await this.cluster?.link.close()
  }

  /** Until no request forwarded here is owed an answer, or `forwardedDrainMs` passed. */
  async #settleForwarded(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, defaults.streamableHttp.forwardedDrainMs)))
    await Promise.race([Promise.all([...this.#sessions.values()].map((live) => live.transport.settled())), late])
    clearTimeout(timer)
  }

  /**
   * 400 without a session id; 404 for one that is unknown, ended, or belongs to another principal
   * (the same answer: whether an id exists is not told to whoever does not own it). `fresh` asks a
   * shared store even when this copy was checked moments ago.
   */
  async find(sessionId: string | undefined, owner: string, fresh = false): Promise<LiveSession> {
    if (sessionId === undefined) throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required')
    let live = this.#sessions.get(sessionId)
    if (live === undefined) live = await this.#restore(sessionId, owner)
    else if (this.#sharedStore !== undefined && live.owner === owner) live = await this.#refresh(live, this.#sharedStore, fresh)
    if (live === undefined || live.owner !== owner) throw new HttpError(404, 'Not Found: unknown or ended session', { rpcCode: -32001 })
    return live
  }

  /**
   * A shared store is asked whether the session still exists (it may have been deleted through
   * another process, evicted, or expired: this copy ends then) and refreshes its idle expiry; what
   * the client changed elsewhere (subscriptions, log level) is taken over.
   */
  async #refresh(live: LiveSession, store: Required<Pick<SessionStore, 'touch'>> & Pick<SessionStore, 'reachable'>, fresh: boolean): Promise<LiveSession | undefined> {
    // checked moments ago: a busy session is not asked about on every request (unless the caller
    // needs what the store has now: a GET stream opening, whose notices follow the subscriptions)
    const now = performance.now()
    if (!fresh && now - live.checkedAt < defaults.streamableHttp.sharedSessionRecheckMs && store.reachable !== false) return live
    live.checkedAt = now
    const state = await store.touch(live.transport.sessionId!)
    if (state === undefined) {
      live.close()
      return undefined
    }
    this.#adoptState(live, state)
    return live
  }

  #adoptState(live: LiveSession, state: SessionState): void {
    if (state.updatedAt === live.updatedAt) return
    live.session.applySharedState(state)
    live.updatedAt = state.updatedAt
  }

  /** A new session of `owner`, within the caps (of every process, with a shared store). */
  async create(owner: string, authInfo?: AuthInfo): Promise<LiveSession> {
    const sessionId = randomUUID()
    const store = this.#sharedStore
    if (store?.admit !== undefined) {
      const o = this.#options
      const verdict = await store.admit(sessionId, owner, {
        maxSessions: o.maxSessions,
        maxSessionsPerPrincipal: o.maxSessionsPerPrincipal,
        idleBefore: Date.now() - defaults.streamableHttp.evictIdleAfterMs,
      })
      if (!verdict.admitted) throw verdict.reason === 'principal' ? tooManySessionsForPrincipal() : tooManySessions()
      for (const victim of verdict.evicted) this.#evicted(victim)
    }
    try {
      this.#limits.admit(owner, this.#sessions.values(), this.#sessions.size)
      // the host may refuse too (the gateway's caps on its children)
      return await this.#adopt(sessionId, owner, authInfo)
    } catch (error) {
      if (store !== undefined) settle(store.delete(sessionId))
      throw error
    }
  }

  /** A session the shared store ended to make room: the other processes close their copies. */
  #evicted(sessionId: string): void {
    this.#sessions.get(sessionId)?.close()
    settle(this.#options.eventStore.dropSession(sessionId))
    if (this.cluster !== undefined) settle(this.cluster.link.publishEnd(sessionId))
  }

  /** DELETE: the session ends here and, with a shared store or other processes, in all of them. */
  async end(live: LiveSession): Promise<void> {
    const sessionId = live.transport.sessionId!
    await live.session.close()
    const store = this.#sharedStore
    if (store === undefined && this.cluster === undefined) return
    await Promise.all([store?.delete(sessionId), store === undefined ? undefined : this.#options.eventStore.dropSession(sessionId), this.cluster?.link.publishEnd(sessionId)])
  }

  /**
   * A session another process (or an earlier run) created, found in a shared store; only for its
   * owner. Concurrent requests for it share one restoration.
   */
  #restore(sessionId: string, owner: string): Promise<LiveSession | undefined> {
    const store = this.#options.sessionStore
    if (store === undefined) return Promise.resolve(undefined)
    let restoring = this.#restoring.get(sessionId)
    if (restoring === undefined) {
      restoring = this.#load(store, sessionId, owner).finally(() => this.#restoring.delete(sessionId))
      this.#restoring.set(sessionId, restoring)
    }
    return restoring
  }

  async #load(store: SessionStore, sessionId: string, owner: string): Promise<LiveSession | undefined> {
    const state = await (store.touch?.(sessionId) ?? store.get(sessionId))
    if (state === undefined || state.owner !== owner) return undefined
    if (this.#pinned) return this.#forwarder(state)
    this.#limits.admit(owner, this.#sessions.values(), this.#sessions.size)
    const live = await this.#adopt(sessionId, owner)
    live.session.restore(state)
    live.createdAt = state.createdAt
    live.updatedAt = state.updatedAt
    return live
  }

  /**
   * A pinned session runs in the process its state names: a stand-in that forwards there. One
   * that names this process (or none) ended here: it cannot be rebuilt, the client starts anew.
   */
  async #forwarder(state: SessionState): Promise<LiveSession | undefined> {
    const cluster = this.cluster!
    if (state.node === undefined || state.node === cluster.link.nodeId) return undefined
    const session = new SessionForwarder(state, cluster.link, (sessionId, send) => cluster.acknowledge(sessionId, send))
    // JSON-first exchanges: nothing is written before the owner took the requests, so a gone
    // owner is a true 404 that makes the client start a new session (SSE would have said 200)
    const transport = new SessionTransport(state.id, { ...this.#transports, preferJsonResponse: true })
    const live = new LiveSession(session, transport, state.owner)
    live.createdAt = state.createdAt
    live.updatedAt = state.updatedAt
    this.#sessions.set(state.id, live)
    this.#limits.added(live)
    await session.connect(transport)
    return live
  }

  async #adopt(sessionId: string, owner: string, authInfo?: AuthInfo): Promise<LiveSession> {
    const session = this.#server.createSession(authInfo === undefined ? undefined : { authInfo })
    const transport = new SessionTransport(sessionId, this.#transports)
    const live = new LiveSession(session, transport, owner)
    ;(this.#options.eventStore as Partial<InMemoryEventStore>).openSession?.(sessionId)
    this.#sessions.set(sessionId, live)
    this.#limits.added(live)
    await session.connect(transport)
    return live
  }

  /**
   * Save what another process needs to take the session up (after initialize, and after the
   * client changed its subscriptions or log level); `announce` tells the GET stream's holder.
   */
  async save(live: LiveSession, announce: boolean): Promise<void> {
    const { session, transport } = live
    const store = this.#options.sessionStore
    if (store === undefined || transport.sessionId === undefined || session instanceof SessionForwarder) return
    // a pinned session is saved at once, with the process that runs it (its host may answer
    // initialize later: the gateway's child); the others only need to know where it runs
    if (session.protocolVersion === undefined && !this.#pinned) return
    // fractional ms: two saves through two processes in the same millisecond still differ
    const shared = { subscriptions: session.subscriptions, logLevel: session.logLevel, updatedAt: performance.timeOrigin + performance.now() }
    await store.set({
      id: transport.sessionId,
      protocolVersion: session.protocolVersion ?? '',
      clientCapabilities: session.clientCapabilities ?? {},
      clientInfo: session.clientInfo,
      owner: live.owner,
      createdAt: live.createdAt,
      ...(this.#pinned ? { node: this.cluster!.link.nodeId } : {}),
      ...shared,
    })
    live.updatedAt = shared.updatedAt
    if (announce && this.cluster !== undefined) await this.cluster.link.publishState(transport.sessionId, shared)
  }

  /**
   * A session's transport closed (after its server session learnt of it): forget the session.
   * With a shared store only this copy ends (the store expires the session, or DELETE ends it).
   */
  #ended(transport: SessionTransport): void {
    const sessionId = transport.sessionId!
    const live = this.#sessions.get(sessionId)
    if (live === undefined || live.transport !== transport) return
    this.#limits.removed(live)
    this.#sessions.delete(sessionId)
    const events = this.#options.eventStore
    if (this.#pinned && !(live.session instanceof SessionForwarder)) {
      // it ran here only: ended (DELETE, idle, its child gone, a drain) it is gone for every process
      settle(this.#options.sessionStore?.delete(sessionId))
      settle(events.dropSession(sessionId))
      settle(this.cluster!.link.publishEnd(sessionId))
      return
    }
    if (this.#sharedStore !== undefined) {
      // events kept in this process's memory go with its copy
      if (events instanceof InMemoryEventStore) events.dropSession(sessionId)
      return
    }
    settle(this.#options.sessionStore?.delete(sessionId))
    settle(events.dropSession(sessionId))
  }

  #expireIdle(): void {
    const cutoff = Date.now() - this.#options.sessionIdleMs
    const store = this.#sharedStore
    for (const live of this.#sessions.values()) {
      // a session still answering a request, or holding its GET stream, is not idle; a shared
      // store learns that it is in use
      if (live.transport.busy) {
        if (store !== undefined) void this.#refresh(live, store, true).catch(NOOP)
      } else if (live.lastSeen < cutoff) {
        void live.session.close()
      }
    }
  }
}
