import type { AuditQuery, AuditTrail, StoredAuditEvent } from './audit-event.js'

/** A query with where the previous page ended (its `nextCursor`). */
export interface AuditPageQuery extends AuditQuery {
  cursor?: string
}

/** One page of a query, newest first; `nextCursor` when older matching events may follow. */
export interface AuditPage {
  items: StoredAuditEvent[]
  nextCursor?: string
}

/** A trail that can hand a query's events page by page (the file and the Redis stream can). */
export interface PagedAuditTrail extends AuditTrail {
  page(query: AuditPageQuery): Promise<AuditPage>
}

/**
 * One page of `query` from `trail`: its own paging when it has one, else its `query` (one page,
 * no cursor). The admin API, the console and `mcp-auth audit` read through this.
 *
 * @example
 * const { items, nextCursor } = await auditPage(trail, { types: ['sign-in.'], limit: 50 })
 */
export async function auditPage(trail: AuditTrail, query: AuditPageQuery): Promise<AuditPage> {
  if ('page' in trail && typeof trail.page === 'function') return (trail as PagedAuditTrail).page(query)
  return { items: await trail.query(query) }
}
