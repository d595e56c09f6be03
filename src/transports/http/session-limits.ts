import { HttpError } from '../../net/http-error.js'

/** A new session over its principal's cap while all of the principal's sessions are busy. */
export const tooManySessionsForPrincipal = () => new HttpError(429, 'Too Many Requests: too many open sessions for this client', { headers: { 'Retry-After': '60' } })

/** A new session over the total cap while no session is idle enough to make room. */
export const tooManySessions = () => new HttpError(503, 'Service Unavailable: too many sessions', { headers: { 'Retry-After': '60' } })

/** What the limits need to know of a live session. */
export interface LimitedSession {
  owner: string
  /** Last request (ms since the epoch). */
  lastSeen: number
  /** Still answering a request or holding a stream the owner opened: not evicted. */
  readonly busy: boolean
  close(): void
}

/**
 * Caps on live sessions, globally and per owner (see `sessionOwner`). A new session over its
 * owner's cap evicts that owner's least recently used idle session (429 when all are busy), so one
 * client cannot fill the process-wide table. Over the global cap, the least recently used session
 * of anyone that has been idle for `minIdleMs` makes room (503 when none has), so sessions nobody
 * uses any more give way long before the idle sweep, while active ones are never pushed out.
 */
export class SessionLimits<S extends LimitedSession> {
  readonly #max: number
  readonly #maxPerOwner: number
  readonly #minIdleMs: number
  readonly #byOwner = new Map<string, Set<S>>()

  constructor(options: { maxSessions: number; maxSessionsPerOwner: number; minIdleMs: number }) {
    this.#max = options.maxSessions
    this.#maxPerOwner = options.maxSessionsPerOwner
    this.#minIdleMs = options.minIdleMs
  }

  /** Makes room for one more session of `owner` among `all`, or throws 429 / 503. */
  admit(owner: string, all: Iterable<S>, size: number): void {
    const own = this.#byOwner.get(owner)
    if (own !== undefined && own.size >= this.#maxPerOwner) {
      const victim = leastRecentlyUsedIdle(own, Number.POSITIVE_INFINITY)
      if (victim === undefined) throw tooManySessionsForPrincipal()
      this.#evict(victim)
    }
    if (size >= this.#max) {
      const victim = leastRecentlyUsedIdle(all, Date.now() - this.#minIdleMs)
      if (victim === undefined) throw tooManySessions()
      this.#evict(victim)
    }
  }

  added(session: S): void {
    let own = this.#byOwner.get(session.owner)
    if (own === undefined) this.#byOwner.set(session.owner, (own = new Set()))
    own.add(session)
  }

  removed(session: S): void {
    const own = this.#byOwner.get(session.owner)
    own?.delete(session)
    if (own?.size === 0) this.#byOwner.delete(session.owner)
  }

  #evict(session: S): void {
    // Counted out now: its close may finish later.
    this.removed(session)
    session.close()
  }
}

function leastRecentlyUsedIdle<S extends LimitedSession>(sessions: Iterable<S>, seenBefore: number): S | undefined {
  let oldest: S | undefined
  for (const session of sessions) {
    if (session.busy || session.lastSeen > seenBefore) continue
    if (oldest === undefined || session.lastSeen < oldest.lastSeen) oldest = session
  }
  return oldest
}
