/**
 * A dynamic client's oidc-provider `Client` is kept per revision of its record (issue 18: a token
 * request does not re-read, serialise and hash the record), and any write to the record — an
 * RFC 7592 update, a deletion — is what the next request sees.
 */
import { generateKeyPairSync } from 'node:crypto'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reuseUnchangedClients } from '../../../src/auth/server/provider/client-reuse.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'
import type { OidcAdapter } from '../../../src/storage/types.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

let s: RunningAuthServer
beforeAll(async () => {
  s = await startAuthServer()
})
afterAll(async () => {
  await s.stop(true)
})

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

async function token(client: { id: string; secret: string }, method: 'basic' | 'post'): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', resource: `${s.origin}/mcp`, scope: 'mcp' })
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if (method === 'basic') headers['authorization'] = basic(client.id, client.secret)
  else {
    form.set('client_id', client.id)
    form.set('client_secret', client.secret)
  }
  const res = await fetch(`${s.origin}/token`, { method: 'POST', headers, body: form })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('dynamic clients at the token endpoint', () => {
  it('are built once while unchanged, and an update or a deletion of the registration applies to the very next request', async () => {
    const metadata = { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], response_types: [], client_name: 'Before' }
    const registered = await fetch(`${s.origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) })
    expect(registered.status).toBe(201)
    const body = (await registered.json()) as Record<string, string>
    const client = { id: body['client_id']!, secret: body['client_secret']! }
    expect((await token(client, 'basic')).status).toBe(200)
    const Client = s.as.provider.Client
    const before = await Client.find(client.id)
    expect(before?.clientName).toBe('Before')
    expect(await Client.find(client.id)).toBe(before)

    // RFC 7592 update: the client now authenticates in the form only
    const updated = await fetch(body['registration_client_uri']!, {
      method: 'PUT',
      headers: { authorization: `Bearer ${body['registration_access_token']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...metadata, client_id: client.id, client_secret: client.secret, client_name: 'After', token_endpoint_auth_method: 'client_secret_post' }),
    })
    expect(updated.status).toBe(200)
    const refused = await token(client, 'basic')
    expect(refused.status).toBe(401)
    expect(refused.body['error']).toBe('invalid_client')
    expect((await token(client, 'post')).status).toBe(200)
    const after = await Client.find(client.id)
    expect(after).not.toBe(before)
    expect(after?.clientName).toBe('After')

    const rotated = ((await updated.json()) as Record<string, string>)['registration_access_token']
    const removed = await fetch(body['registration_client_uri']!, { method: 'DELETE', headers: { authorization: `Bearer ${rotated}` } })
    expect(removed.status).toBe(204)
    expect((await token(client, 'post')).status).toBe(401)
    expect(await Client.find(client.id)).toBeUndefined()
  })

  it('are kept for at most a bounded number of clients, the oldest kept forgotten first', async () => {
    const storage = createMemoryStorage()
    const stored = storage.adapter('Client')
    let reads = 0
    const counted: OidcAdapter = {
      ...stored,
      find: (id) => {
        reads++
        return stored.find(id)
      },
      revision: (id) => stored.revision?.(id),
    }
    const provider = new Provider('http://127.0.0.1:1', {
      adapter: function Adapter(name: string) {
        return name === 'Client' ? counted : storage.adapter(name)
      } as never,
      features: { devInteractions: { enabled: false }, clientCredentials: { enabled: true } },
      // a key of its own: oidc-provider's development keys come with a warning on stderr
      jwks: { keys: [generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })] as never },
    })
    reuseUnchangedClients(provider, counted, 2)
    for (const id of ['one', 'two', 'three']) {
      await stored.upsert(id, {
        client_id: id,
        client_secret: `${id} secret`,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })
    }
    for (const id of ['one', 'two', 'three']) expect((await provider.Client.find(id))?.clientId).toBe(id)
    expect(reads).toBe(3)
    // 'three' and 'two' are kept; 'one' was forgotten and is read again
    await provider.Client.find('three')
    await provider.Client.find('two')
    expect(reads).toBe(3)
    await provider.Client.find('one')
    expect(reads).toBe(4)
  })
})
