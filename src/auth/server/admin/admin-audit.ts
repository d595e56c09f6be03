import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditActor, AuditEvent } from '../../../observe/audit-event.js'
import type { Observer } from '../../../observe/observer.js'

/** Who an administration action comes from, and the request that carried it (none from the CLI). */
export interface AdminOrigin {
  actor: AuditActor
  requestId?: string
  addressGroup?: string
}

const origins = new AsyncLocalStorage<AdminOrigin>()

/**
 * Runs `action` on behalf of `origin`: every administration event it records names that actor.
 * The surfaces call it once they know the caller (the admin API, the console, the CLI), so the
 * core records the same event whichever way an action came, and no method takes an actor argument.
 *
 * @example
 * await actingAs({ actor: { osUser: 'ops', channel: 'cli-local' } }, () => as.administration.accounts.disable('ann'))
 */
export function actingAs<T>(origin: AdminOrigin, action: () => T): T {
  return origins.run(origin, action)
}

/**
 * Records the administration's security events through the server's observer, stamped with the
 * actor of {@link actingAs} (absent when the library is called straight, outside any surface).
 */
export class AdminAudit {
  readonly #observer: Observer | undefined

  constructor(observer?: Observer) {
    this.#observer = observer
  }

  /** A recorder that records nothing (the administration of a test or a tool built without an observer). */
  static none(): AdminAudit {
    return new AdminAudit()
  }

  record(event: Omit<AuditEvent, 'actor' | 'requestId' | 'addressGroup'>): void {
    if (this.#observer === undefined) return
    const origin = origins.getStore()
    this.#observer.audit({
      ...event,
      ...(origin !== undefined ? { actor: origin.actor } : {}),
      ...(origin?.requestId !== undefined ? { requestId: origin.requestId } : {}),
      ...(origin?.addressGroup !== undefined ? { addressGroup: origin.addressGroup } : {}),
    })
  }
}
