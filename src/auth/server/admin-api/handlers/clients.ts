import { defaults } from '../../../../config/defaults.js'
import type { ClientSummary } from '../../admin/client-admin.js'
import type { AdminOperation } from '../admin-context.js'
import { clientView } from '../client-view.js'
import { grantPage } from '../grant-page.js'
import { collectPage } from '../list-page.js'

const a = defaults.authServer.admin

/** Clients: the operations of the document's `clients` tag, by operationId. */
export const clientsOperations: Record<string, AdminOperation> = {
  async listClients(request) {
    const { origin, blocked, q, limit, cursor } = request.query as { origin?: string; blocked?: boolean; q?: string; limit?: number; cursor?: string }
    const needle = q?.toLowerCase()
    // the clients are read once per request (the Client model has no pages), then paged by client_id
    const all = await request.services.administration.clients.list()
    const page = await collectPage({
      cursor,
      limit: limit ?? a.pageSize,
      maxScanned: Number.POSITIVE_INFINITY,
      scan: async (from, count) => {
        const start = from === undefined ? 0 : all.findIndex((client) => client.client_id > from)
        const entries = start < 0 ? [] : all.slice(start, start + count)
        const last = entries.at(-1)
        return { entries, ...(last !== undefined && start + count < all.length ? { cursor: last.client_id } : {}) }
      },
      keep: (client: ClientSummary) => {
        if (origin !== undefined && client.origin !== origin) return undefined
        if (blocked !== undefined && client.blocked !== blocked) return undefined
        if (needle !== undefined && ![client.client_id, client.client_name].some((text) => typeof text === 'string' && text.toLowerCase().includes(needle))) return undefined
        return clientView(client)
      },
    })
    return { body: page }
  },

  async createClient(request) {
    const metadata = request.body as Record<string, unknown>
    // a client registered with the admin API's scope is a machine administrator: as sensitive as making one
    if (typeof metadata['scope'] === 'string' && metadata['scope'].split(' ').includes(a.scope)) {
      request.services.authority.requireSensitiveLogin(request.caller)
    }
    const clients = request.services.administration.clients
    const added = await clients.add(metadata)
    return {
      status: 201,
      headers: { location: `${request.services.issuer.href.replace(/\/$/, '')}${a.apiPath}/clients/${encodeURIComponent(added.client_id)}` },
      body: { client: clientView(await clients.get(added.client_id)), ...(added.client_secret !== undefined ? { client_secret: added.client_secret } : {}) },
    }
  },

  async getClient(request) {
    return { body: clientView(await request.services.administration.clients.get(request.params['client_id']!)) }
  },

  async deleteClient(request) {
    const clients = request.services.administration.clients
    const clientId = request.params['client_id']!
    await clients.get(clientId)
    const { grantsEnded } = await clients.remove(clientId)
    return { body: { grants_ended: grantsEnded } }
  },

  async blockClient(request) {
    const { client, grantsEnded } = await request.services.administration.clients.block(request.params['client_id']!)
    return { body: { client: clientView(client), grants_ended: grantsEnded } }
  },

  async unblockClient(request) {
    return { body: clientView(await request.services.administration.clients.unblock(request.params['client_id']!)) }
  },

  async listClientGrants(request) {
    const clientId = request.params['client_id']!
    await request.services.administration.clients.get(clientId)
    return { body: await grantPage(request, { clientId }) }
  },
}
