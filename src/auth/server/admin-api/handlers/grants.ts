import type { AdminOperation } from '../admin-context.js'
import { grantPage } from '../grant-page.js'
import { AdminProblem } from '../problem.js'

/** Grants: the operations of the document's `grants` tag, by operationId. */
export const grantsOperations: Record<string, AdminOperation> = {
  async listGrants(request) {
    const { username, client_id: clientId } = request.query as { username?: string; client_id?: string }
    return { body: await grantPage(request, { ...(username !== undefined ? { username } : {}), ...(clientId !== undefined ? { clientId } : {}) }) }
  },

  async revokeGrant(request) {
    const grantId = request.params['grant_id']!
    if (!(await request.services.administration.grants.revoke(grantId))) throw new AdminProblem('not-found', `no live grant has the id ${grantId}`)
    return { status: 204 }
  },

  async listAccountGrants(request) {
    // an unknown account: 404 (GrantAdmin's unknown_account)
    return { body: await grantPage(request, { username: request.params['username']! }) }
  },
}
