// Issue 32 (clients and grants, item 3): an account's or a client's grants are read from their own
// consents (per-account and per-client indexes), never by walking every consent; a store that held
// consents before the indexes is indexed once, at start, guarded by a marker.
import type Provider from 'oidc-provider'
import { beforeEach, describe, expect, it } from 'vitest'
import { GrantAdmin } from '../../../../src/auth/server/admin/grant-admin.js'
import { AccountStore } from '../../../../src/auth/server/stores/account-store.js'
import { ConsentStore } from '../../../../src/auth/server/stores/consent-store.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import type { AuthStorage, RecordStore } from '../../../../src/storage/types.js'

let storage: AuthStorage
/** Collections read whole or paged, in order. */
let walked: string[]
let records: RecordStore

beforeEach(() => {
  storage = createMemoryStorage()
  walked = []
  const inner = storage.records
  records = {
    ...inner,
    get: (collection, id) => inner.get(collection, id),
    put: (collection, id, value) => inner.put(collection, id, value),
    create: (collection, id, value) => inner.create(collection, id, value),
    delete: (collection, id) => inner.delete(collection, id),
    putIfRevision: (collection, id, value, revision) => inner.putIfRevision(collection, id, value, revision),
    list: (collection) => {
      walked.push(collection)
      return inner.list(collection)
    },
    scan: (collection, options) => {
      walked.push(collection)
      return inner.scan(collection, options)
    },
  }
})

async function grant(grantId: string, accountId: string, clientId: string): Promise<void> {
  await storage.adapter('Grant').upsert(grantId, { accountId, clientId, resources: { 'https://mcp.example/mcp': 'mcp' }, iat: 1, exp: 4_000_000_000 }, 3600)
}

function grantAdmin(consents: ConsentStore, accounts: AccountStore): GrantAdmin {
  const provider = { emit: () => true } as unknown as Provider
  return new GrantAdmin({ provider, adapter: (name) => storage.adapter(name), accounts, consents })
}

describe('GrantAdmin through the consent indexes', () => {
  it('lists an account’s and a client’s grants without reading every consent', async () => {
    const accounts = new AccountStore(records)
    const consents = new ConsentStore(records)
    const ada = await accounts.setUser('ada', 'ada password 1')
    for (let i = 0; i < 40; i++) {
      await grant(`other-${i}`, `someone-${i}`, 'busy-client')
      await consents.remember(`someone-${i}`, 'busy-client', `other-${i}`)
    }
    await grant('ada-1', ada.id, 'busy-client')
    await consents.remember(ada.id, 'busy-client', 'ada-1')
    await grant('ada-2', ada.id, 'quiet-client')
    await consents.remember(ada.id, 'quiet-client', 'ada-2')
    const admin = grantAdmin(consents, accounts)

    walked = []
    expect((await admin.list({ username: 'ada' })).map((summary) => summary.grantId).sort()).toEqual(['ada-1', 'ada-2'])
    expect((await admin.list({ clientId: 'quiet-client' })).map((summary) => summary.grantId)).toEqual(['ada-2'])
    expect(walked).not.toContain('consents')
    expect(walked.every((collection) => collection === `consents-of-account:${ada.id}` || collection === 'consents-of-client:quiet-client')).toBe(true)
    // all of them: the consents themselves, a page at a time
    expect(await admin.list()).toHaveLength(42)
    expect(walked).toContain('consents')
  })

  it('ends every grant of a client through its index, and forgets the consents in both indexes', async () => {
    const accounts = new AccountStore(records)
    const consents = new ConsentStore(records)
    const ada = await accounts.setUser('ada', 'ada password 1')
    await grant('g-1', ada.id, 'client-a')
    await consents.remember(ada.id, 'client-a', 'g-1')
    await grant('g-2', ada.id, 'client-b')
    await consents.remember(ada.id, 'client-b', 'g-2')
    const admin = grantAdmin(consents, accounts)
    expect(await admin.revokeAll({ clientId: 'client-a' })).toBe(1)
    expect((await consents.pageOfClient('client-a', { count: 10 })).entries).toEqual([])
    expect((await consents.pageOfAccount(ada.id, { count: 10 })).entries.map((entry) => entry.id)).toEqual(['client-b'])
  })

  it('skips a consent whose grant expired', async () => {
    const accounts = new AccountStore(records)
    const consents = new ConsentStore(records)
    const ada = await accounts.setUser('ada', 'ada password 1')
    await consents.remember(ada.id, 'client-a', 'gone')
    expect(await grantAdmin(consents, accounts).list({ username: 'ada' })).toEqual([])
  })
})

describe('ConsentStore.ensureIndexed', () => {
  it('indexes once the consents a store held before the indexes, older records by their key', async () => {
    const accounts = new AccountStore(records)
    const ada = await accounts.setUser('ada', 'ada password 1')
    // as an older version stored them: no indexes; the oldest records name their grant only
    await records.put('consents', JSON.stringify([ada.id, 'client-a']), { grantId: 'g-1', at: 1 })
    await records.put('consents', JSON.stringify([ada.id, 'client-b']), { accountId: ada.id, clientId: 'client-b', grantId: 'g-2', at: 2 })
    await grant('g-1', ada.id, 'client-a')
    await grant('g-2', ada.id, 'client-b')
    const consents = new ConsentStore(records)
    expect(await grantAdmin(consents, accounts).list({ username: 'ada' })).toEqual([])

    expect(await consents.ensureIndexed()).toBe(2)
    expect((await grantAdmin(consents, accounts).list({ username: 'ada' })).map((summary) => summary.grantId).sort()).toEqual(['g-1', 'g-2'])
    expect((await grantAdmin(consents, accounts).list({ clientId: 'client-a' })).map((summary) => summary.grantId)).toEqual(['g-1'])
    // the marker: the next start reads nothing
    walked = []
    expect(await new ConsentStore(records).ensureIndexed()).toBe(0)
    expect(walked).toEqual([])
  })
})
