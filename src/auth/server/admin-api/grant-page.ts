import { defaults } from '../../../config/defaults.js'
import type { AdminRequest } from './admin-context.js'
import { grantView, type GrantView } from './grant-view.js'
import { collectPage, type ListPage } from './list-page.js'

const a = defaults.authServer.admin

/** A page of live grants (all, of an account, of a client), read through the consents' indexes (GrantAdmin.scan). */
export function grantPage(request: AdminRequest, filter: { username?: string; clientId?: string }): Promise<ListPage<GrantView>> {
  const { limit, cursor } = request.query as { limit?: number; cursor?: string }
  const grants = request.services.administration.grants
  return collectPage({
    cursor,
    limit: limit ?? a.pageSize,
    maxScanned: a.maxGrantsScanned,
    // consents whose grant is gone count as read too, so a page reads at most maxGrantsScanned
    scan: async (from, count) => {
      const page = await grants.scan(filter, { count, ...(from !== undefined ? { cursor: from } : {}) })
      const gone: undefined[] = new Array(page.read - page.entries.length).fill(undefined)
      return { entries: [...page.entries, ...gone], ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) }
    },
    keep: (grant) => (grant === undefined ? undefined : grantView(grant)),
  })
}
