import type { HostedSession } from '../../../session-host/session-host.js'
import type { LimitedSession } from '../../http/session-limits.js'
import type { SessionTransport } from './session-transport.js'

/** A session this process serves, with what the limits need of it (a class: one per session, no closures). */
export class LiveSession implements LimitedSession {
  readonly session: HostedSession
  readonly transport: SessionTransport
  readonly owner: string
  lastSeen = Date.now()
  createdAt = this.lastSeen
  /** With a store: when the state this copy has was saved (a newer one is applied). */
  updatedAt: number | undefined
  /** With a shared store: when this copy was last checked against it (ms, performance.now()). */
  checkedAt = 0

  constructor(session: HostedSession, transport: SessionTransport, owner: string) {
    this.session = session
    this.transport = transport
    this.owner = owner
  }

  get busy(): boolean {
    return this.transport.busy
  }

  close(): void {
    void this.session.close()
  }
}
