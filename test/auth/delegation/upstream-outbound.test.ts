/**
 * Issue 27, item 5: every request to the upstream identity provider goes through the
 * authorization server's outbound fetch: a provider on a private address is reached only with
 * `upstream.allowPrivateAddresses`, a redirect is not followed, a body is cut at the cap.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UpstreamLogin } from '../../../src/auth/delegation/upstream-login.js'
import { resolveOptions, type UpstreamOptions } from '../../../src/auth/server/options.js'
import { defaults } from '../../../src/config/defaults.js'

let provider: Server
let origin: string
let requests = 0
let endlessClosed = false

beforeAll(async () => {
  provider = createServer((req, res) => {
    requests += 1
    if (req.url?.startsWith('/redirecting/')) {
      res.writeHead(302, { location: `${origin}/elsewhere` }).end()
      return
    }
    if (req.url?.startsWith('/endless/')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"issuer":"')
      const chunk = Buffer.alloc(64 * 1024, 0x61)
      let written = 0
      const pump = () => {
        while (written < 200 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => (endlessClosed = true))
      pump()
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
})
afterAll(() => {
  provider?.close()
})

function login(upstream: Partial<UpstreamOptions>): UpstreamLogin {
  return new UpstreamLogin({
    upstream: { issuer: origin, clientId: 'our-as', clientSecret: 'our-as-secret-0123456789', ...upstream } as UpstreamOptions,
    callbackUrl: 'http://127.0.0.1:1/upstream/callback',
    records: {} as never,
    pending: {} as never,
    accounts: {} as never,
  })
}

/** The error and its causes, as one text (openid-client may wrap what the fetch threw). */
async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    const messages: string[] = []
    for (let current: unknown = error; current instanceof Error; current = current.cause) messages.push(current.message)
    return messages.join(' <- ')
  }
  throw new Error('expected a failure')
}

describe('requests to the upstream identity provider', () => {
  it('refuses a provider on a private address without allowPrivateAddresses, before connecting', async () => {
    const before = requests
    const said = await failure(login({}).refreshTokens('a-refresh-token'))
    expect(said).toMatch(/127\.0\.0\.1 resolves to 127\.0\.0\.1, a private or special-use address: refused \(set upstream\.allowPrivateAddresses: true/)
    expect(requests).toBe(before)
  })

  it('is refused at start when configured on a private address without allowPrivateAddresses', () => {
    expect(() => resolveOptions({ upstream: { issuer: origin, clientId: 'our-as', clientSecret: 'our-as-secret-0123456789' } })).toThrow(
      /upstream\.allowPrivateAddresses: the upstream provider is on a private or loopback address/,
    )
    expect(resolveOptions({ upstream: { issuer: origin, allowPrivateAddresses: true, clientId: 'our-as', clientSecret: 'our-as-secret-0123456789' } }).upstream).toMatchObject({
      allowPrivateAddresses: true,
    })
  })

  it('does not follow a redirect from the provider', async () => {
    const said = await failure(login({ issuer: `${origin}/redirecting/`, allowPrivateAddresses: true }).refreshTokens('a-refresh-token'))
    expect(said).toMatch(/answered 302 redirecting to .*\/elsewhere: redirects are not followed/)
  })

  it('cuts a response at the body cap', async () => {
    const began = Date.now()
    const said = await failure(login({ issuer: `${origin}/endless/`, allowPrivateAddresses: true }).refreshTokens('a-refresh-token'))
    expect(said).toMatch(new RegExp(`longer than ${defaults.outbound.maxBytes} bytes`))
    expect(Date.now() - began).toBeLessThan(2_000)
    await expect.poll(() => endlessClosed).toBe(true)
  })
})
