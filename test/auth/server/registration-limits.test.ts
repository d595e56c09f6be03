// Issue 13, item 6: open registration cannot amplify storage: the body is capped (413), every
// metadata string and list is bounded, and unused registrations are capped per address.
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { defaults } from '../../../src/config/defaults.js'

let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer()
})
afterAll(() => s.stop(true))

async function register(metadata: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${s.origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('registration limits', () => {
  it('answers 413 in the OAuth format for a body over the cap, declared or chunked', async () => {
    const huge = { redirect_uris: ['https://app.example/cb'], client_name: 'x'.repeat(1024 * 1024) }
    const declared = await register(huge)
    expect(declared.status).toBe(413)
    expect(declared.body['error']).toBe('invalid_request')
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      for (let i = 0; i < 64; i++) req.write(`${i === 0 ? '{"client_name":"' : ''}${'y'.repeat(1024)}`)
      req.end('"}')
    })
    expect(chunked).toBe(413)
  })

  it('refuses over-long metadata strings and over-long lists with invalid_client_metadata', async () => {
    const longName = await register({ redirect_uris: ['https://app.example/cb'], client_name: 'n'.repeat(defaults.authServer.registration.maxMetadataString + 1) })
    expect(longName.status).toBe(400)
    expect(longName.body['error']).toBe('invalid_client_metadata')
    expect(String(longName.body['error_description'])).toContain('client_name')
    const manyUris = await register({ redirect_uris: Array.from({ length: defaults.authServer.registration.maxMetadataList + 1 }, (_, i) => `https://app.example/cb${i}`) })
    expect(manyUris.status).toBe(400)
    expect(String(manyUris.body['error_description'])).toContain('redirect_uris')
    const longUri = await register({ redirect_uris: [`https://app.example/${'p'.repeat(2000)}`] })
    expect(longUri.status).toBe(400)
  })

  it('caps registrations nobody has used per address, and a used one makes room', async () => {
    const capped = await startAuthServer()
    try {
      const made: Array<Record<string, unknown>> = []
      for (let i = 0; i < defaults.authServer.registration.maxUnusedPerAddress; i++) {
        const { status, body } = await fetch(`${capped.origin}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [], grant_types: ['client_credentials'], response_types: [] }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
        expect(status).toBe(201)
        made.push(body)
      }
      const refused = await fetch(`${capped.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
      })
      expect(refused.status).toBe(429)
      expect(((await refused.json()) as { error: string }).error).toBe('slow_down')
      const first = made[0]!
      const used = await fetch(`${capped.origin}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${first['client_id']}:${first['client_secret']}`).toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      })
      expect(used.status).toBe(200)
      const again = await fetch(`${capped.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
      })
      expect(again.status).toBe(201)
    } finally {
      await capped.stop(true)
    }
  })
})
