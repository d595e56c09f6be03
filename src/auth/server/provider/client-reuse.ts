import type Provider from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { OidcAdapter } from '../../../storage/types.js'
import { BoundedMap } from '../../../collections/bounded-map.js'

/**
 * oidc-provider reads a dynamic client's record on every request that names the client (a token
 * request reads it to authenticate the caller), then serialises and hashes it to find the
 * `Client` it built last time from the same record. When the store can say whether a record
 * changed ({@link OidcAdapter.revision}: our lowdb and in-memory stores), the `Client` built from
 * a revision is kept and handed back while that revision is current; the first write to the
 * record (an update, a deletion, expiry) makes a new revision, and the next lookup builds again
 * through oidc-provider. A lookup answers exactly what oidc-provider would: the object it built
 * from that record. At most `max` clients are kept (the oldest kept forgotten first), so many
 * clients cannot grow memory. Without `revision` (Redis) nothing changes.
 */
export function reuseUnchangedClients(provider: Provider, clients: Pick<OidcAdapter, 'revision'>, max: number = defaults.authServer.keptClients): void {
  const revision = clients.revision?.bind(clients)
  if (revision === undefined) return
  const Client = provider.Client as unknown as { find(id: unknown): Promise<object | undefined> }
  const find = Client.find.bind(Client)
  const kept = new BoundedMap<string, { revision: object; client: object }>(max, { refreshOnSet: true })
  const build = async (id: string, current: object): Promise<object | undefined> => {
    const client = await find(id)
    // built from this revision only if the record did not change while oidc-provider read it
    if (client !== undefined && revision(id) === current) {
      kept.set(id, { revision: current, client })
    }
    return client
  }
  Client.find = function find_(id: unknown) {
    const current = typeof id === 'string' && id !== '' ? revision(id) : undefined
    if (current === undefined) return find(id)
    const entry = kept.get(id as string)
    return entry?.revision === current ? Promise.resolve(entry.client) : build(id as string, current)
  }
}
