import type { AuditQuery, StoredAuditEvent } from './audit-event.js'

/** A query's filter as one predicate on a stored event (its time bounds included). */
export type AuditMatch = (event: StoredAuditEvent) => boolean

/**
 * The predicate of `query`'s filters, built once per query: `user` names the actor or the account
 * the event is about (subject or username), `clientId` the client (as actor or as the event's),
 * `types` exact names or prefixes ending in `.` (`sign-in.`), `since`/`until` the time (inclusive).
 *
 * @example
 * const match = auditQueryMatch({ user: 'alice', types: ['sign-in.'] })
 * events.filter(match)
 */
export function auditQueryMatch(query: AuditQuery): AuditMatch {
  const { user, clientId, since, until } = query
  const exact = new Set<string>()
  const prefixes: string[] = []
  for (const type of query.types ?? []) {
    if (type.endsWith('.')) prefixes.push(type)
    else exact.add(type)
  }
  const anyType = exact.size === 0 && prefixes.length === 0
  return function matches(event: StoredAuditEvent): boolean {
    if (since !== undefined || until !== undefined) {
      const at = Date.parse(event.at)
      if (since !== undefined && !(at >= since)) return false
      if (until !== undefined && !(at <= until)) return false
    }
    if (!anyType && !exact.has(event.type) && !prefixes.some((prefix) => event.type.startsWith(prefix))) return false
    if (user !== undefined) {
      const actor = event.actor
      if (event.subject !== user && event.username !== user && actor?.subject !== user && actor?.username !== user) return false
    }
    if (clientId !== undefined && event.clientId !== clientId && event.actor?.clientId !== clientId) return false
    return true
  }
}

/** `limit` within 1 and the cap (`maxQueryLimit`), `fallback` when absent. */
export function auditQueryLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return Math.min(fallback, max)
  return Math.max(1, Math.min(Math.floor(limit), max))
}
