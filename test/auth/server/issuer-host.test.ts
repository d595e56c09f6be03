// Issue 13, item 7: metadata and every absolute URL come from the configured issuer, never from the
// request's Host; a request for another host is refused; metadata can be cached.
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

let s: RunningAuthServer
let proxied: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer()
  proxied = await startAuthServer({ trustProxy: true })
})
afterAll(async () => {
  await s.stop(true)
  await proxied.stop(true)
})

function get(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const METADATA = '/.well-known/oauth-authorization-server'

describe('the Host of a request', () => {
  it('refuses a foreign Host with 403 and an OAuth error, and reflects it nowhere', async () => {
    const answer = await get(s.origin, METADATA, { host: 'evil.example' })
    expect(answer.status).toBe(403)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' })
    expect(answer.body).not.toContain('evil.example')
    for (const path of ['/authorize?client_id=x', '/register', '/.well-known/openid-configuration']) {
      expect((await get(s.origin, path, { host: 'evil.example' })).status).toBe(403)
    }
  })

  it("names the issuer's origin in metadata when reached through a loopback alias", async () => {
    const port = new URL(s.issuer).port
    const answer = await get(s.origin, METADATA, { host: `localhost:${port}` })
    expect(answer.status).toBe(200)
    const metadata = JSON.parse(answer.body) as Record<string, string>
    expect(metadata['issuer']).toBe(s.issuer)
    expect(metadata['authorization_endpoint']).toBe(`${s.issuer}/authorize`)
    expect(answer.body).not.toContain('localhost')
    expect((await get(s.origin, METADATA, { host: `localhost:${Number(port) + 1}` })).status).toBe(403)
  })

  it('behind a trusted proxy refuses a foreign X-Forwarded-Host, and never uses it for URLs', async () => {
    const host = new URL(proxied.issuer).host
    expect((await get(proxied.origin, METADATA, { host, 'x-forwarded-host': 'evil.example' })).status).toBe(403)
    const fine = await get(proxied.origin, METADATA, { host, 'x-forwarded-host': host, 'x-forwarded-proto': 'https' })
    expect(fine.status).toBe(200)
    expect((JSON.parse(fine.body) as Record<string, string>)['token_endpoint']).toBe(`${proxied.issuer}/token`)
  })

  it('lets clients cache metadata', async () => {
    const answer = await get(s.origin, METADATA, { host: new URL(s.issuer).host })
    expect(answer.headers['cache-control']).toMatch(/max-age=\d+/)
  })
})
