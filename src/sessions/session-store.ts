import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { LoggingLevel } from '../schema/features.js'

/** What survives of a session outside the process that holds its live connection. */
export interface SessionState {
  id: string
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation | undefined
  /** Who opened it (see `sessionOwner`): nobody else may use it, in any process. */
  owner: string
  createdAt: number
  /** The resources it subscribed to (resources/subscribe), so any process can tell it of updates. */
  subscriptions?: string[] | undefined
  /** The level it asked for with logging/setLevel. */
  logLevel?: LoggingLevel | undefined
  /** When it was last saved (ms): a process holding a copy applies a newer state. */
  updatedAt?: number | undefined
  /**
   * The process that runs it (its `ClusterLink.nodeId`), for a host whose sessions are pinned
   * (`SessionHost.pinnedSessions`: the gateway's children): the others forward its requests there
   * instead of taking it up. Its `protocolVersion` may then be '' (saved before the child answered).
   */
  node?: string | undefined
}

/** Why a shared store refused to admit a new session. */
export type AdmitVerdict = { admitted: true; evicted: readonly string[] } | { admitted: false; reason: 'principal' | 'total' }

/** The caps a shared store applies across every process (see `StreamableHttpOptions`). */
export interface SharedSessionLimits {
  maxSessions: number
  maxSessionsPerPrincipal: number
  /** A session last used before this time (ms since the epoch) may be ended to make room. */
  idleBefore: number
}

/**
 * Where session state is kept. A shared store (Redis) lets another process pick a session up: it
 * finds the state here and rebuilds the live session from it instead of answering 404. The
 * in-memory store does the same for handlers of one process that share it; a handler given no
 * store keeps none (its live sessions are in its own memory).
 *
 * A store shared by several processes implements `touch` and `admit`: it expires idle sessions
 * itself and counts the caps across processes. A handler given such a store asks it on every
 * request whether the session still exists, and never deletes a session only because this process
 * stopped using it (another may still be).
 */
export interface SessionStore {
  get(id: string): Promise<SessionState | undefined> | SessionState | undefined
  set(state: SessionState): Promise<void> | void
  delete(id: string): Promise<void> | void
  /**
   * The session was used now: refresh its idle expiry and return its current state (undefined
   * when it is gone: ended elsewhere, evicted, or expired).
   */
  touch?(id: string): Promise<SessionState | undefined>
  /**
   * Count a new session `id` of `owner` against the caps of every process, atomically: evicts the
   * least recently used idle session when one may make room (their ids come back, to be ended).
   */
  admit?(id: string, owner: string, limits: SharedSessionLimits): Promise<AdmitVerdict>
  /**
   * False while the store is known to be unreachable (no round trip): a process then asks it
   * instead of trusting a recently checked copy, so requests fail with 503 at once.
   */
  readonly reachable?: boolean
}

export class InMemorySessionStore implements SessionStore {
  readonly #states = new Map<string, SessionState>()

  get(id: string): SessionState | undefined {
    return this.#states.get(id)
  }

  set(state: SessionState): void {
    this.#states.set(state.id, state)
  }

  delete(id: string): void {
    this.#states.delete(id)
  }
}
