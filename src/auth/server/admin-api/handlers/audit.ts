import type { AuditQuery } from '../../../../observe/audit-event.js'
import { auditPage } from '../../../../observe/audit-page.js'
import type { AdminOperation } from '../admin-context.js'
import { auditEventView } from '../audit-view.js'
import { AdminProblem } from '../problem.js'

/** The audit trail: the operations of the document's `audit` tag, by operationId. */
export const auditOperations: Record<string, AdminOperation> = {
  async listAuditEvents(request) {
    const q = request.query as { limit?: number; cursor?: string; since?: string; until?: string; user?: string; client_id?: string; type?: string[] | string }
    const trail = request.services.auditTrail()
    if (trail === undefined) throw new AdminProblem('not-found', 'this server keeps no audit trail')
    const types = q.type === undefined ? undefined : Array.isArray(q.type) ? q.type : [q.type]
    const query: AuditQuery & { cursor?: string } = {
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(q.since !== undefined ? { since: Date.parse(q.since) } : {}),
      ...(q.until !== undefined ? { until: Date.parse(q.until) } : {}),
      ...(q.user !== undefined ? { user: q.user } : {}),
      ...(q.client_id !== undefined ? { clientId: q.client_id } : {}),
      ...(types !== undefined ? { types } : {}),
      ...(q.cursor !== undefined ? { cursor: unwrap(q.cursor) } : {}),
    }
    let page: Awaited<ReturnType<typeof auditPage>>
    try {
      page = await auditPage(trail, query)
    } catch (error) {
      if (error instanceof RangeError) throw new AdminProblem('invalid-request', 'cursor is not one this API gave: start the list again without it', { cause: error })
      throw error
    }
    return { body: { items: page.items.map(auditEventView), ...(page.nextCursor !== undefined ? { next_cursor: wrap(page.nextCursor) } : {}) } }
  },
}

const wrap = (cursor: string): string => Buffer.from(`a1:${cursor}`).toString('base64url')

function unwrap(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!text.startsWith('a1:')) throw new AdminProblem('invalid-request', 'cursor is not one this API gave: start the list again without it')
  return text.slice(3)
}
