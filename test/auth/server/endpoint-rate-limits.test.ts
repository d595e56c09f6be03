/**
 * Token requests are counted per client by the id in their Basic header (issue 18 keeps each
 * header's id once read): whatever secret a caller sends, and however many other headers pushed a
 * header out of what is kept, a request counts for the client it names, and only for it.
 */
import Koa from 'koa'
import { afterEach, describe, expect, it } from 'vitest'
import { endpointRateLimits } from '../../../src/auth/server/middleware/endpoint-rate-limits.js'
import { oauthErrors } from '../../../src/auth/server/middleware/oauth-errors.js'
import { RateLimiter } from '../../../src/auth/server/middleware/rate-limiter.js'
import { listenOnLoopback } from '../../helpers/listen.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function serve(options: { perClient: number; keptBasicHeaders: number; maxKeptBasicHeaderLength?: number }): Promise<string> {
  const app = new Koa()
  app.silent = true
  app.use(oauthErrors())
  app.use(
    endpointRateLimits({
      registrationPath: '/register',
      tokenPath: '/token',
      registrationPerAddress: new RateLimiter({ limit: 100, windowSeconds: 60, maxKeys: 100 }),
      tokenPerAddress: new RateLimiter({ limit: 100, windowSeconds: 60, maxKeys: 100 }),
      tokenPerClient: new RateLimiter({ limit: options.perClient, windowSeconds: 60, maxKeys: 100 }),
      maxBodyBytes: 4096,
      keptBasicHeaders: options.keptBasicHeaders,
      ...(options.maxKeptBasicHeaderLength !== undefined ? { maxKeptBasicHeaderLength: options.maxKeptBasicHeaderLength } : {}),
    }),
  )
  app.use((ctx) => {
    ctx.body = { ok: true }
  })
  const { url, close } = await listenOnLoopback(app.callback())
  closers.push(close)
  return url
}

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

async function statuses(origin: string, headers: string[]): Promise<number[]> {
  const out: number[] = []
  for (const authorization of headers) {
    const res = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
    await res.arrayBuffer()
    out.push(res.status)
  }
  return out
}

describe('token requests counted per client from the Basic header', () => {
  it('counts every secret a caller tries for one client against that client', async () => {
    const origin = await serve({ perClient: 3, keptBasicHeaders: 100 })
    expect(
      await statuses(
        origin,
        ['one', 'two', 'three', 'four', 'five'].map((secret) => basic('victim', secret)),
      ),
    ).toEqual([200, 200, 200, 429, 429])
    // another client is not touched by the first one's count
    expect(await statuses(origin, [basic('other', 'secret')])).toEqual([200])
  })

  it('counts a header again when other headers pushed it out of those kept, and only for its own client', async () => {
    const origin = await serve({ perClient: 2, keptBasicHeaders: 1 })
    const a = basic('client-a', 'secret-a')
    const b = basic('client-b', 'secret-b')
    // a, b, a: each time the other header was the one kept
    expect(await statuses(origin, [a, b, a, b])).toEqual([200, 200, 200, 200])
    expect(await statuses(origin, [a, b])).toEqual([429, 429])
  })

  it('reads a header too long to keep each time, with the same count', async () => {
    const origin = await serve({ perClient: 2, keptBasicHeaders: 100, maxKeptBasicHeaderLength: 8 })
    expect(await statuses(origin, [basic('long-client', 'x'), basic('long-client', 'y'), basic('long-client', 'z')])).toEqual([200, 200, 429])
  })

  it('decodes a form-encoded client id (RFC 6749 §2.3.1): the encoded and plain spellings are one client', async () => {
    const origin = await serve({ perClient: 2, keptBasicHeaders: 100 })
    expect(await statuses(origin, [basic('a%20b', 's'), basic('a+b', 's'), basic('a b', 's')])).toEqual([200, 200, 429])
  })
})

describe('token requests counted per client from a client assertion (RFC 7523 §3)', () => {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  const assertion = (sub: string): string => `${part({ alg: 'RS256' })}.${part({ sub, iss: sub, aud: 'x' })}.c2ln`
  async function formStatuses(origin: string, assertions: string[]): Promise<number[]> {
    const out: number[] = []
    for (const value of assertions) {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: value,
      })
      const res = await fetch(`${origin}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      await res.arrayBuffer()
      out.push(res.status)
    }
    return out
  }

  it("counts an assertion against its sub, whatever else it carries, and not against another client's", async () => {
    const origin = await serve({ perClient: 2, keptBasicHeaders: 100 })
    expect(await formStatuses(origin, [assertion('victim'), assertion('victim'), assertion('victim')])).toEqual([200, 200, 429])
    expect(await formStatuses(origin, [assertion('other')])).toEqual([200])
  })

  it('lets an assertion that is not a JWT through uncounted per client, for the token endpoint to refuse', async () => {
    const origin = await serve({ perClient: 1, keptBasicHeaders: 100 })
    expect(await formStatuses(origin, ['not-a-jwt', 'a.%%%.c', `${part({})}.${part([1])}.c2ln`, 'not-a-jwt'])).toEqual([200, 200, 200, 200])
  })
})
