// Issue 32 (clients and grants, item 1): a client's last use costs the token path no store write
// but once per client and interval, the memory it takes is bounded, and each record expires.
import { describe, expect, it } from 'vitest'
import { ClientLastUse } from '../../../../src/auth/server/admin/client-last-use.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import type { OidcAdapter } from '../../../../src/storage/types.js'

const RETENTION = 365 * 24 * 3600

function counting(): { adapter: OidcAdapter; puts: () => number; expiries: number[] } {
  const inner = createMemoryStorage().adapter('ClientLastUse')
  let puts = 0
  const expiries: number[] = []
  return {
    adapter: {
      ...inner,
      find: (id) => inner.find(id),
      list: () => inner.list(),
      destroy: (id) => inner.destroy(id),
      upsert: (id, payload, expiresIn) => {
        puts += 1
        if (expiresIn !== undefined) expiries.push(expiresIn)
        return inner.upsert(id, payload, expiresIn)
      },
    },
    puts: () => puts,
    expiries,
  }
}

describe('ClientLastUse', () => {
  it('writes a client’s use at most once per interval, however many requests it makes', async () => {
    let now = 1_000_000
    const { adapter, puts, expiries } = counting()
    const lastUse = new ClientLastUse(adapter, { intervalMs: 3_600_000, max: 100, retentionSeconds: RETENTION, now: () => now })
    for (let i = 0; i < 1_000; i++) {
      await lastUse.used({ clientId: 'busy' })
      now += 1_000
    }
    // 1000 s of requests: one write
    expect(puts()).toBe(1)
    expect(expiries).toEqual([RETENTION])
    expect((await lastUse.get('busy'))?.at).toBe(1_000_000)
    now += 3_600_000
    expect(lastUse.used({ clientId: 'busy' })).toBeInstanceOf(Promise)
    expect(lastUse.used({ clientId: 'busy' })).toBeUndefined()
  })

  it('remembers at most `max` clients: one forgotten is written again on its next use', async () => {
    const { adapter, puts } = counting()
    const lastUse = new ClientLastUse(adapter, { intervalMs: 3_600_000, max: 2, retentionSeconds: RETENTION })
    await lastUse.used({ clientId: 'a' })
    await lastUse.used({ clientId: 'b' })
    await lastUse.used({ clientId: 'c' })
    expect(puts()).toBe(3)
    await lastUse.used({ clientId: 'c' })
    expect(puts()).toBe(3)
    await lastUse.used({ clientId: 'a' })
    expect(puts()).toBe(4)
  })

  it('keeps what a metadata-document client said about itself', async () => {
    const lastUse = new ClientLastUse(createMemoryStorage().adapter('ClientLastUse'), { intervalMs: 1, max: 10, retentionSeconds: RETENTION })
    await lastUse.used({
      clientId: 'https://app.example/client.json',
      clientName: 'App',
      grantTypes: ['authorization_code'],
      redirectUris: ['https://app.example/cb'],
      tokenEndpointAuthMethod: 'none',
    })
    expect(await lastUse.get('https://app.example/client.json')).toMatchObject({
      client_name: 'App',
      grant_types: ['authorization_code'],
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'none',
    })
  })
})
