/**
 * Client secrets at rest: sealed in the store, opened for oidc-provider — once per sealed value
 * (issue 18: not an AES-GCM decryption per token request), and a replaced secret is the one read
 * back at once, since a new secret is a new sealed value.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createAdapterFactory } from '../../../src/auth/server/provider/adapter-factory.js'
import { SecretBox } from '../../../src/auth/server/keys/secret-box.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'

describe('client secrets in the adapter', () => {
  it('are sealed in the store, read back in plain text, and a replaced secret is read back at once', async () => {
    const storage = createMemoryStorage()
    let opened = 0
    class CountingBox extends SecretBox {
      override open(sealed: string, context?: string): string {
        opened++
        return super.open(sealed, context)
      }
    }
    const counting = new CountingBox(randomBytes(32))
    const Adapter = createAdapterFactory(storage, { box: counting, reuseGraceSeconds: 0 })
    const clients = new Adapter('Client')
    await clients.upsert('app', { client_id: 'app', client_secret: 'first secret' }, 3600)
    const raw = await storage.adapter('Client').find('app')
    expect(raw?.['client_secret']).toMatch(/^enc:v1:/)
    for (let i = 0; i < 5; i++) expect((await clients.find('app'))?.['client_secret']).toBe('first secret')
    expect(opened).toBe(1)
    await clients.upsert('app', { client_id: 'app', client_secret: 'second secret' }, 3600)
    expect((await clients.find('app'))?.['client_secret']).toBe('second secret')
    expect(opened).toBe(2)
  })
})
